SELECT 1 FROM DUAL; /* ; */ SELECT ';' -- ;
; SELECT $$;$$