SELECT `a`, DATABASE(), @@session.autocommit FROM `t` WHERE b = "x" AND c IN ("y", 'z\'s') # c
LIMIT 5, 10