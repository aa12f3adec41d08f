#!/usr/bin/python3
"""Sluice's SQL logic test runner (sqllogictest format, run over the MySQL protocol).

    /usr/bin/python3 tests/sqllogic/run.py --server build/sluice tests/sql/foundation/databases.test [FILE...]

For each file: a fresh temp data dir, free loopback ports, a server of its own, the records run in order through
pymysql (autocommit on, CLIENT_MULTI_STATEMENTS), then SIGTERM (the exit code must be 0) and the temp dir removed.
The file format is described in tests/README.md and in the docstring of `parse_file` below.
Exit code 0 only if every record of every file passed.
"""
from __future__ import annotations

import argparse
import os
import re
import signal
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # keep the source tree clean of __pycache__
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
from harness import ServerStartError, SluiceServer, default_server_path  # noqa: E402

SORT_MODES = ("nosort", "rowsort", "valuesort")
INTEGER_TYPES = {1, 2, 3, 8, 9, 13, 16}        # TINY SHORT LONG LONGLONG INT24 YEAR BIT
REAL_TYPES = {4, 5}                             # FLOAT DOUBLE
DECIMAL_TYPES = {0, 246}                        # DECIMAL NEWDECIMAL
TYPE_NAMES = {0: "DECIMAL", 1: "TINY", 2: "SHORT", 3: "LONG", 4: "FLOAT", 5: "DOUBLE", 6: "NULL", 7: "TIMESTAMP",
              8: "LONGLONG", 9: "INT24", 10: "DATE", 11: "TIME", 12: "DATETIME", 13: "YEAR", 15: "VARCHAR",
              16: "BIT", 245: "JSON", 246: "NEWDECIMAL", 249: "TINY_BLOB", 250: "MEDIUM_BLOB", 251: "LONG_BLOB",
              252: "BLOB", 253: "VAR_STRING", 254: "STRING"}


class Record:
    def __init__(self, kind: str, line: int, **kw):
        self.kind = kind          # statement | query | restart | kill | sleep | connection
        self.line = line
        self.sql = kw.get("sql", "")
        self.expect_error = kw.get("expect_error", False)
        self.errno = kw.get("errno")
        self.error_text = kw.get("error_text")
        self.count = kw.get("count")
        self.types = kw.get("types", "")
        self.sort = kw.get("sort", "nosort")
        self.colnames = kw.get("colnames", False)
        self.label = kw.get("label")
        self.expected = kw.get("expected", [])
        self.has_expected = kw.get("has_expected", False)
        self.retry = kw.get("retry")           # seconds, or None
        self.arg = kw.get("arg")
        self.options = kw.get("options")       # connection: {"user", "password", "db"} or None (root)


class ParseError(Exception):
    pass


def parse_file(path: str) -> list[Record]:
    """Records are separated by blank lines; `#` starts a comment line.

    statement ok                      the SQL (following lines, up to a blank line) must succeed
    statement count N                 ... and report N affected rows (summed over the statements without a result set)
    statement error [ERRNO] [TEXT]    it must fail; with ERRNO (digits) the MySQL error number must match;
                                      with TEXT the message must contain TEXT (case-sensitive). TEXT may instead be
                                      given after a `----` line (all lines, joined by newlines).
    query TYPES [nosort|rowsort|valuesort] [colnames] [LABEL]
                                      TYPES: one char per column: I integer, R real/decimal, T anything (text,
                                      dates, ...). Then the SQL, `----`, and the expected rows: values separated by
                                      one tab, NULL as `NULL`, the empty string as `(empty)`, and inside a value
                                      newline/tab/backslash written as \\n, \\t, \\\\. valuesort: one value per
                                      line, all values sorted. colnames: the first expected line holds the column
                                      names. LABEL: every query with the same label must give the same result.
                                      An expected value `<any>` matches any non-NULL value, `<re:PATTERN>` a value
                                      the regular expression fully matches (for times, ids; nosort/rowsort only).
                                      Several statements in one query: the rows of every result set, in order.
    restart                           SIGTERM the server (exit code must be 0), start it on the same data dir
    kill                              SIGKILL the server, start it on the same data dir
    sleep MS                          wait MS milliseconds
    retry SECONDS                     (line right before a statement/query) re-run it until it passes or time is up
    connection NAME                   following records use connection NAME (created on first use; the first one
                                      is `default`). After restart/kill every connection is opened anew, so no
                                      database is selected.
    connection NAME user=U [password=P] [db=D]
                                      opens NAME now, logged in as U (P: its password, default empty; D: the
                                      database selected at login, also after restart/kill); later `connection NAME`
                                      (with or without the same options) switches back to it.
    connection NAME user=U [password=P] [db=D] error [ERRNO] [TEXT]
                                      the login must fail (with that MySQL error number / a message containing TEXT);
                                      no connection is opened and the current one stays in use.
    """
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    records: list[Record] = []
    i = 0
    pending_retry = None
    n = len(lines)

    def block(start):
        """Lines from start up to the next blank line."""
        j = start
        out = []
        while j < n and lines[j].strip() != "":
            out.append(lines[j])
            j += 1
        return out, j

    while i < n:
        raw = lines[i]
        stripped = raw.strip()
        if stripped == "" or stripped.startswith("#"):
            i += 1
            continue
        lineno = i + 1
        words = stripped.split()
        head = words[0]
        if head == "statement":
            if len(words) < 2:
                raise ParseError(f"{path}:{lineno}: statement needs ok, count or error")
            body, end = block(i + 1)
            sql_lines, expected = _split_dashes(body)
            if not sql_lines:
                raise ParseError(f"{path}:{lineno}: statement without SQL")
            kw = dict(sql="\n".join(sql_lines), retry=pending_retry)
            if words[1] == "ok":
                if len(words) != 2 or expected is not None:
                    raise ParseError(f"{path}:{lineno}: `statement ok` takes no arguments and no result")
            elif words[1] == "count":
                if len(words) != 3 or not words[2].isdigit():
                    raise ParseError(f"{path}:{lineno}: use `statement count N`")
                kw["count"] = int(words[2])
            elif words[1] == "error":
                kw["expect_error"] = True
                rest = stripped.split(None, 2)[2] if len(words) > 2 else ""
                m = re.match(r"^(\d+)(?:\s+(.*))?$", rest)
                if m:
                    kw["errno"] = int(m.group(1))
                    rest = m.group(2) or ""
                text = rest.strip()
                if expected is not None:
                    if text:
                        raise ParseError(f"{path}:{lineno}: error text both on the line and after ----")
                    text = "\n".join(expected)
                kw["error_text"] = text or None
            else:
                raise ParseError(f"{path}:{lineno}: unknown statement kind {words[1]!r}")
            records.append(Record("statement", lineno, **kw))
            pending_retry = None
            i = end
        elif head == "query":
            if len(words) < 2 or not re.fullmatch(r"[IRT]+", words[1]):
                raise ParseError(f"{path}:{lineno}: query needs column types made of I, R, T")
            sort, colnames, label = "nosort", False, None
            for w in words[2:]:
                if w in SORT_MODES:
                    sort = w
                elif w == "colnames":
                    colnames = True
                elif label is None:
                    label = w
                else:
                    raise ParseError(f"{path}:{lineno}: unexpected {w!r} after query")
            body, end = block(i + 1)
            sql_lines, expected = _split_dashes(body)
            if not sql_lines:
                raise ParseError(f"{path}:{lineno}: query without SQL")
            if expected is None and label is None:
                raise ParseError(f"{path}:{lineno}: query without ---- and expected result")
            records.append(Record("query", lineno, sql="\n".join(sql_lines), types=words[1], sort=sort,
                                  colnames=colnames, label=label, expected=expected or [],
                                  has_expected=expected is not None, retry=pending_retry))
            pending_retry = None
            i = end
        elif head in ("restart", "kill"):
            if len(words) != 1:
                raise ParseError(f"{path}:{lineno}: {head} takes no argument")
            records.append(Record(head, lineno))
            i += 1
        elif head == "sleep":
            if len(words) != 2 or not words[1].isdigit():
                raise ParseError(f"{path}:{lineno}: use `sleep MS`")
            records.append(Record("sleep", lineno, arg=int(words[1])))
            i += 1
        elif head == "retry":
            if len(words) != 2 or not re.fullmatch(r"\d+(\.\d+)?", words[1]):
                raise ParseError(f"{path}:{lineno}: use `retry SECONDS`")
            nxt = i + 1
            if nxt >= n or lines[nxt].split()[:1] not in (["statement"], ["query"]):
                raise ParseError(f"{path}:{lineno}: retry must be followed directly by a statement or query")
            pending_retry = float(words[1])
            i += 1
        elif head == "connection":
            records.append(_parse_connection(path, lineno, stripped, words))
            i += 1
        else:
            raise ParseError(f"{path}:{lineno}: unknown record {head!r}")
    return records


CONNECTION_KEYS = ("user", "password", "db")


def _parse_connection(path: str, lineno: int, stripped: str, words: list[str]) -> Record:
    """`connection NAME [user=U] [password=P] [db=D] [error [ERRNO] [TEXT]]`.

    Without options: switch to NAME (opened on first use as root). With options: open NAME now, logged in as U
    (switch to it if it is already open with the same options). With `error`: the login must fail (with ERRNO /
    a message containing TEXT); nothing is opened and the current connection stays what it was."""
    usage = f"{path}:{lineno}: use `connection NAME [user=U] [password=P] [db=D] [error [ERRNO] [TEXT]]`"
    if len(words) < 2 or "=" in words[1] or words[1] == "error":
        raise ParseError(usage)
    name = words[1]
    opts: dict = {}
    expect_error, errno, error_text = False, None, None
    k = 2
    while k < len(words):
        w = words[k]
        if w == "error":
            expect_error = True
            rest = stripped.split(None, k + 1)[k + 1] if len(words) > k + 1 else ""
            m = re.match(r"^(\d+)(?:\s+(.*))?$", rest)
            if m:
                errno, rest = int(m.group(1)), m.group(2) or ""
            error_text = rest.strip() or None
            break
        key, eq_sign, value = w.partition("=")
        if not eq_sign or key not in CONNECTION_KEYS:
            raise ParseError(f"{usage}; {w!r} is not one of " + ", ".join(f"{c}=..." for c in CONNECTION_KEYS))
        if key in opts:
            raise ParseError(f"{path}:{lineno}: {key}= given twice")
        opts[key] = value
        k += 1
    if (opts or expect_error) and "user" not in opts:
        raise ParseError(f"{path}:{lineno}: a connection with password=, db= or error needs user=")
    if name == "default" and opts:
        raise ParseError(f"{path}:{lineno}: `default` is the initial root connection; give the new one a name")
    return Record("connection", lineno, arg=name, options=opts or None, expect_error=expect_error, errno=errno,
                  error_text=error_text)


def _split_dashes(body: list[str]):
    if "----" in body:
        k = body.index("----")
        return body[:k], body[k + 1:]
    return body, None


def format_value(v) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, (bytes, bytearray)):
        v = v.decode("utf-8", "replace")
    else:
        v = str(v)
    if v == "":
        return "(empty)"
    return v.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")


class Failure(Exception):
    pass


class FileRun:
    def __init__(self, path: str, server_path: str, timeout: float, query_timeout: float, verbose: bool):
        self.path = path
        self.server_path = server_path
        self.deadline = time.monotonic() + timeout
        self.timeout = timeout
        self.query_timeout = query_timeout
        self.verbose = verbose
        self.server: SluiceServer | None = None
        self.conns: dict = {}
        self.conn_options: dict = {}   # name -> {"user", "password", "db"} for connections not logged in as root
        self.current = "default"
        self.labels: dict = {}
        self.passed = 0
        self.failed = 0

    # ---- connections ------------------------------------------------------------------------------------------
    def open_connection(self, options: dict | None):
        kw = {}
        if options:
            kw = dict(user=options["user"], password=options.get("password", ""))
            if options.get("db"):
                kw["database"] = options["db"]
        return self.server.connect(raw_values=True, read_timeout=self.query_timeout, **kw)

    def conn(self):
        c = self.conns.get(self.current)
        if c is None:
            c = self.open_connection(self.conn_options.get(self.current))
            self.conns[self.current] = c
        return c

    def switch_connection(self, rec: Record):
        """A `connection` record; raises Failure when a login does not go as the record says."""
        import pymysql
        name, opts = rec.arg, rec.options
        if opts is None:
            self.current = name
            return
        known = self.conn_options.get(name)
        if known is not None and not rec.expect_error:
            if known != opts:
                raise Failure(f"connection {name} is already open with {known}; use another name for {opts}")
            self.current = name
            return
        try:
            c = self.open_connection(opts)
        except pymysql.MySQLError as e:
            code = e.args[0] if e.args else None
            msg = e.args[1] if len(e.args) > 1 else str(e)
            if not rec.expect_error:
                # The records that follow still run as NAME (each failing to connect), never as the previous user.
                self.conn_options[name] = dict(opts)
                self.current = name
                raise Failure(f"login as {opts['user']!r} failed with error {code}: {msg}")
            if rec.errno is not None and code != rec.errno:
                raise Failure(f"expected the login to fail with error {rec.errno}, got error {code}: {msg}")
            if rec.error_text is not None and rec.error_text not in str(msg):
                raise Failure(f"expected a login error containing {rec.error_text!r}, got error {code}: {msg}")
            return
        except Exception as e:  # socket timeouts and the like
            if not rec.expect_error:
                self.conn_options[name] = dict(opts)
                self.current = name
            raise Failure(f"login as {opts['user']!r}: client failure: {type(e).__name__}: {e}")
        if rec.expect_error:
            try:
                c.close()
            except Exception:
                pass
            raise Failure(f"expected the login as {opts['user']!r} to fail, but it succeeded")
        self.conn_options[name] = dict(opts)
        self.conns[name] = c
        self.current = name

    def close_all(self):
        for c in self.conns.values():
            try:
                c.close()
            except Exception:
                pass
        self.conns.clear()

    def drop_current(self):
        c = self.conns.pop(self.current, None)
        if c is not None:
            try:
                c.close()
            except Exception:
                pass

    # ---- running ----------------------------------------------------------------------------------------------
    def run(self) -> bool:
        try:
            records = parse_file(self.path)
        except (ParseError, OSError) as e:
            print(f"FAIL {e}")
            self.failed += 1
            return False
        self.server = SluiceServer(self.server_path)
        try:
            try:
                self.server.start()
            except ServerStartError as e:
                self.fail_report(None, f"server did not start: {e}")
                return False
            for rec in records:
                if time.monotonic() > self.deadline:
                    self.fail_report(rec, f"file time limit of {self.timeout:.0f}s exceeded")
                    break
                if not self.server.alive():
                    self.fail_report(rec, f"server is not running (exit code {self.server.proc.returncode})")
                    break
                self.run_record(rec)
            self.close_all()
            if self.server.alive():
                code = self.server.stop(signal.SIGTERM)
                if code == 0:
                    self.passed += 1
                else:
                    self.fail_report(None, f"server shutdown on SIGTERM: expected exit code 0, got {code}")
            return self.failed == 0
        finally:
            self.close_all()
            self.server.cleanup()

    def run_record(self, rec: Record):
        if self.verbose:
            print(f"  {self.path}:{rec.line}: {rec.kind} {rec.sql.splitlines()[0] if rec.sql else rec.arg or ''}")
        if rec.kind == "connection" and rec.options is None:
            self.current = rec.arg
            return
        if rec.kind == "sleep":
            time.sleep(rec.arg / 1000.0)
            return
        if rec.kind in ("restart", "kill"):
            self.close_all()
            if rec.kind == "restart":
                code = self.server.stop(signal.SIGTERM)
                if code != 0:
                    self.fail_report(rec, f"restart: server exit code on SIGTERM was {code}, expected 0")
            else:
                self.server.kill_process()
            try:
                self.server.start()
                self.passed += 1
            except ServerStartError as e:
                self.fail_report(rec, f"{rec.kind}: server did not start again: {e}")
            return
        deadline = time.monotonic() + rec.retry if rec.retry is not None else None
        attempts = 0
        while True:
            attempts += 1
            try:
                if rec.kind == "connection":
                    self.switch_connection(rec)
                else:
                    self.execute(rec)
                self.passed += 1
                return
            except Failure as f:
                if deadline is not None and time.monotonic() < min(deadline, self.deadline):
                    time.sleep(0.2)
                    continue
                extra = f" (after {attempts} attempts over {rec.retry:g}s)" if rec.retry is not None else ""
                self.fail_report(rec, str(f) + extra)
                return

    def execute(self, rec: Record):
        import pymysql
        try:
            conn = self.conn()
        except pymysql.MySQLError as e:
            raise Failure(f"could not connect: {e}")
        cur = conn.cursor()
        results = []   # list of (description, rows)
        affected = None
        try:
            cur.execute(rec.sql)
            while True:
                if cur.description is not None:
                    results.append((cur.description, cur.fetchall()))
                else:
                    affected = (affected or 0) + max(cur.rowcount, 0)
                if not cur.nextset():
                    break
        except pymysql.MySQLError as e:
            code = e.args[0] if e.args else None
            msg = e.args[1] if len(e.args) > 1 else str(e)
            if isinstance(e, pymysql.err.OperationalError) and code in (2006, 2013, 2014):
                self.drop_current()   # connection lost or out of sync: open a new one for the next record
            if not rec.expect_error:
                raise Failure(f"expected success, got error {code}: {msg}")
            if rec.errno is not None and code != rec.errno:
                raise Failure(f"expected error {rec.errno}" + (f" containing {rec.error_text!r}" if rec.error_text
                                                                else "") + f", got error {code}: {msg}")
            if rec.error_text is not None and rec.error_text not in str(msg):
                raise Failure(f"expected an error message containing {rec.error_text!r}, got error {code}: {msg}")
            return
        except Exception as e:  # socket timeouts and the like
            self.drop_current()
            raise Failure(f"client failure: {type(e).__name__}: {e}")
        finally:
            try:
                cur.close()
            except Exception:
                self.drop_current()
        if rec.expect_error:
            raise Failure("expected an error, but the statement succeeded")
        if rec.kind == "statement":
            if rec.count is not None and affected != rec.count:
                raise Failure(f"expected {rec.count} affected rows, got {affected}")
            return
        self.check_query(rec, results)

    def check_query(self, rec: Record, results):
        if not results:
            raise Failure("expected a result set, the statement returned none")
        problems = []
        rows: list[list[str]] = []
        names = None
        for desc, data in results:
            if len(desc) != len(rec.types):
                problems.append(f"expected {len(rec.types)} columns ({rec.types}), got {len(desc)}: "
                                f"{[d[0] for d in desc]}")
                continue
            if names is None:
                names = [d[0] for d in desc]
            for k, (t, d) in enumerate(zip(rec.types, desc)):
                tc, scale = d[1], d[5]
                ok = (t == "T" or (t == "I" and (tc in INTEGER_TYPES or (tc in DECIMAL_TYPES and not scale)))
                      or (t == "R" and (tc in REAL_TYPES or tc in DECIMAL_TYPES)))
                if not ok:
                    problems.append(f"column {k + 1} ({d[0]}): type {t} expected, server sent MySQL type "
                                    f"{TYPE_NAMES.get(tc, tc)}")
            for r in data:
                for k, t in enumerate(rec.types):
                    v = r[k]
                    if v is None:
                        continue
                    s = v.decode() if isinstance(v, (bytes, bytearray)) else str(v)
                    if t == "I" and not re.fullmatch(r"-?\d+", s):
                        problems.append(f"column {k + 1}: {s!r} is not an integer")
                    if t == "R" and not re.fullmatch(r"-?(\d+\.?\d*([eE][-+]?\d+)?|inf|nan|Infinity|NaN)", s):
                        problems.append(f"column {k + 1}: {s!r} is not a number")
                rows.append([format_value(v) for v in r])
        if rec.sort == "valuesort":
            actual = sorted(v for r in rows for v in r)
        else:
            lines = ["\t".join(r) for r in rows]
            actual = sorted(lines) if rec.sort == "rowsort" else lines
        if rec.colnames:
            actual = ["\t".join(names or [])] + actual
        if rec.has_expected:
            expected = list(rec.expected)
            if rec.sort == "rowsort":
                head = expected[:1] if rec.colnames else []
                expected = head + sorted(expected[len(head):])
            elif rec.sort == "valuesort":
                head = expected[:1] if rec.colnames else []
                expected = head + sorted(expected[len(head):])
            if not _lines_match(expected, actual):
                problems.append("result differs\n" + _diff(expected, actual))
        if rec.label is not None:
            prev = self.labels.get(rec.label)
            if prev is None:
                self.labels[rec.label] = actual
            elif prev != actual:
                problems.append(f"result differs from the earlier query labeled {rec.label}\n" + _diff(prev, actual))
        if problems:
            raise Failure("\n".join(problems[:20]))

    def fail_report(self, rec: Record | None, message: str):
        self.failed += 1
        where = f"{self.path}:{rec.line}" if rec else self.path
        print(f"FAIL {where}")
        if rec is not None and rec.sql:
            print("  SQL:")
            for ln in rec.sql.splitlines():
                print(f"    {ln}")
        for ln in message.splitlines():
            print(f"  {ln}")
        if self.server is not None:
            print(f"  --- last 30 lines of server stderr ---")
            for ln in self.server.log_tail(30).splitlines():
                print(f"    {ln}")
        sys.stdout.flush()


PATTERN = re.compile(r"^<(any|re:.*)>$")


def _field_match(exp: str, act: str) -> bool:
    m = PATTERN.match(exp)
    if not m:
        return exp == act
    if m.group(1) == "any":
        return act != "NULL"
    return re.fullmatch(m.group(1)[3:], act) is not None


def _lines_match(expected: list[str], actual: list[str]) -> bool:
    if len(expected) != len(actual):
        return False
    for e, a in zip(expected, actual):
        if e == a:
            continue
        if "<" not in e:
            return False
        ef, af = e.split("\t"), a.split("\t")
        if len(ef) != len(af) or not all(_field_match(x, y) for x, y in zip(ef, af)):
            return False
    return True


def _diff(expected: list[str], actual: list[str]) -> str:
    out = ["  expected:"] + [f"    {x}" for x in expected] + ["  actual:"] + [f"    {x}" for x in actual]
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Run Sluice SQL logic tests (.test files) against a fresh server each.")
    ap.add_argument("--server", default=default_server_path(), help="path to the sluice binary")
    ap.add_argument("--timeout", type=float, default=120.0, help="time limit per file in seconds (default 120)")
    ap.add_argument("--query-timeout", type=float, default=30.0,
                    help="time limit for one statement's answer in seconds (default 30)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every record as it runs")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args(argv)
    if not os.access(args.server, os.X_OK):
        print(f"sqllogic: server binary not found or not executable: {args.server}")
        return 2
    passed = failed = 0
    bad_files = []
    for path in args.files:
        t0 = time.monotonic()
        run = FileRun(path, args.server, args.timeout, args.query_timeout, args.verbose)
        try:
            ok = run.run()
        except Exception:
            traceback.print_exc()
            run.failed += 1
            ok = False
        passed += run.passed
        failed += run.failed
        if not ok:
            bad_files.append(path)
        print(f"{'ok  ' if ok else 'FAIL'} {path}: {run.passed} passed, {run.failed} failed "
              f"({time.monotonic() - t0:.1f}s)", flush=True)
    print(f"sqllogic: {passed} passed, {failed} failed" + (f" in {', '.join(bad_files)}" if bad_files else ""))
    return 1 if failed or bad_files else 0


if __name__ == "__main__":
    sys.exit(main())
