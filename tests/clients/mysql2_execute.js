// Drives Sluice with Node mysql2's execute() (COM_STMT_PREPARE / COM_STMT_EXECUTE, binary rows) and query()
// (text protocol), with its default settings, and prints one JSON line per check for
// tests/e2e/test_prepared_statements.py to judge.
//   node tests/clients/mysql2_execute.js PORT
'use strict';
process.env.TZ = 'UTC';  // mysql2 reads DATE/DATETIME in local time; the checks are written in UTC
const mysql = require('mysql2/promise');

async function main() {
  const port = Number(process.argv[2]);
  const conn = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root', password: '' });
  const out = (name, value) => console.log(JSON.stringify({ name, value }));

  await conn.query('DROP DATABASE IF EXISTS ps');
  await conn.query('CREATE DATABASE ps');
  await conn.query('USE ps');
  await conn.query(`CREATE TABLE typed (id INT, tiny TINYINT, small SMALLINT, big BIGINT, dbl DOUBLE,
                     dec DECIMAL(10, 3), s VARCHAR(64), d DATE, ts DATETIME, b BOOLEAN, j JSON)`);
  const [ins] = await conn.execute('INSERT INTO typed VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    [1, -5, 300, 9007199254740993n, 2.5, '12.345', "it's a \\ \"test\" 文", '2024-05-01',
     new Date(Date.UTC(2024, 4, 1, 10, 20, 30, 123)), true, '{"a": [1, 2]}']);
  out('insert_affected', ins.affectedRows);
  await conn.execute('INSERT INTO typed (id, s) VALUES (?, ?)', [2, null]);

  const [rows] = await conn.execute('SELECT * FROM typed WHERE id = ?', [1]);
  const r = rows[0];
  out('row', {
    id: r.id, tiny: r.tiny, small: r.small, big: String(r.big), dbl: r.dbl, dec: String(r.dec), s: r.s,
    d: r.d instanceof Date ? r.d.toISOString() : String(r.d),
    ts: r.ts instanceof Date ? r.ts.toISOString() : String(r.ts), b: r.b, j: r.j,
  });
  // mysql2 reads BIGINT into a JS number (53 bits) by default; the stored value, as text, is exact.
  const [big] = await conn.execute('SELECT CAST(big AS VARCHAR) AS big FROM typed WHERE id = ?', [1]);
  out('big_exact', big[0].big);
  const [nulls] = await conn.execute('SELECT id, s, tiny FROM typed WHERE id = ? AND s IS NULL', [2]);
  out('nulls', nulls);
  const [count] = await conn.execute('SELECT count(*) AS n FROM typed WHERE id > ? AND id < ?', [0, 10]);
  out('count', count[0].n);
  // The same statement again with other values: mysql2 caches the prepared statement.
  const [again] = await conn.execute('SELECT * FROM typed WHERE id = ?', [2]);
  out('again', again.map((x) => x.id));
  // A `?` inside a string is not a parameter.
  const [lit] = await conn.execute("SELECT '?' AS q, ? AS p", ['x']);
  out('literal_marker', lit[0]);
  // An injection attempt through a parameter stays a value.
  const [inj] = await conn.execute('SELECT count(*) AS n FROM typed WHERE s = ?', ["' OR '1'='1"]);
  out('injection', inj[0].n);
  // prepare() hands back the result columns the server announced, before any execute.
  const prepared = await conn.prepare('SELECT id, s AS name, d FROM typed WHERE id = ?');
  out('prepared_columns', prepared.statement.columns.map((c) => [c.name, c.columnType]));
  const [fromPrepared] = await prepared.execute([1]);
  out('prepared_rows', fromPrepared.map((x) => [x.id, x.name]));
  prepared.close();
  // A prepare checks what MySQL's checks: the privileges (1142), the tables (1146) and the columns (1054), for
  // queries and writes alike; the error comes from prepare(), before any execute.
  const prepareError = async (connection, sql) => {
    try {
      const statement = await connection.prepare(sql);
      statement.close();
      return null;
    } catch (e) {
      return [e.errno, e.sqlState];
    }
  };
  await conn.query("CREATE USER 'outsider'@'%' IDENTIFIED BY 'pw'");
  const other = await mysql.createConnection({ host: '127.0.0.1', port, user: 'outsider', password: 'pw' });
  out('unprivileged_prepare', await prepareError(other, 'SELECT * FROM ps.typed WHERE id = ?'));
  out('unprivileged_prepare_insert', await prepareError(other, 'INSERT INTO ps.typed (id) VALUES (?)'));
  try {
    await other.execute('SELECT * FROM ps.typed WHERE id = ?', [1]);
    out('unprivileged_execute', null);
  } catch (e) {
    out('unprivileged_execute', e.errno);
  }
  await other.end();
  out('prepare_unknown_table', await prepareError(conn, 'SELECT * FROM no_such_table WHERE id = ?'));
  out('prepare_unknown_column', await prepareError(conn, 'SELECT no_such_column FROM typed WHERE id = ?'));
  out('prepare_unknown_column_in_write', await prepareError(conn, 'UPDATE typed SET no_such_column = ? WHERE id = 1'));
  out('prepare_insert_unknown_table', await prepareError(conn, 'INSERT INTO no_such_table VALUES (?)'));
  // Errors that may come from the value a marker stands for are the execute's: this prepare succeeds.
  out('prepare_value_dependent', await prepareError(conn, 'SELECT CAST(? AS INT) AS n'));
  // The connection goes on after a refused prepare.
  const [after] = await conn.execute('SELECT id FROM typed WHERE id = ?', [1]);
  out('after_refused_prepare', after.map((x) => x.id));
  // Sluice's own statements prepare too.
  const [show] = await conn.execute('SHOW TABLES');
  out('show_tables', show.map((x) => Object.values(x)[0]));
  // Errors come back as errors.
  try {
    await conn.execute('SELECT * FROM no_such_table WHERE id = ?', [1]);
    out('error', null);
  } catch (e) {
    out('error', e.errno);
  }
  await conn.end();
}

main().catch((e) => {
  console.log(JSON.stringify({ name: 'fatal', value: String(e && e.stack || e) }));
  process.exit(1);
});
