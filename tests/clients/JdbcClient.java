// Drives Sluice with JDBC (MariaDB Connector/J from Debian's libmariadb-java): a plain URL with the driver's
// defaults (client-side prepared statements), then useServerPrepStmts=true (COM_STMT_PREPARE / EXECUTE, binary
// rows). Prints one "name=value" line per check for tests/e2e/test_prepared_statements.py.
//   java -cp /usr/share/java/mariadb-java-client.jar tests/clients/JdbcClient.java PORT
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.Date;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.sql.Timestamp;
import java.sql.Types;
import java.util.TimeZone;

public class JdbcClient {
  static void out(String name, Object value) {
    System.out.println(name + "=" + value);
  }

  static void run(String label, String url) throws Exception {
    try (Connection c = DriverManager.getConnection(url, "root", "")) {
      try (Statement s = c.createStatement()) {
        s.execute("DROP DATABASE IF EXISTS jdbc_" + label);
        s.execute("CREATE DATABASE jdbc_" + label);
        s.execute("USE jdbc_" + label);
        s.execute("CREATE TABLE t (id INT, big BIGINT, dbl DOUBLE, dec DECIMAL(10,2), s VARCHAR(64), d DATE, "
            + "ts DATETIME, b BOOLEAN)");
      }
      try (PreparedStatement p = c.prepareStatement("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
        for (int i = 1; i <= 3; i++) {
          p.setInt(1, i);
          p.setLong(2, 9_000_000_000_000_000_000L + i);
          p.setDouble(3, i / 4.0);
          p.setBigDecimal(4, new BigDecimal("1234.5" + i));
          if (i == 3) p.setNull(5, Types.VARCHAR); else p.setString(5, "it's \\ row " + i);
          p.setDate(6, Date.valueOf("2024-05-0" + i));
          p.setTimestamp(7, Timestamp.valueOf("2024-05-01 10:20:30.25"));
          p.setBoolean(8, i % 2 == 1);
          p.executeUpdate();
        }
      }
      try (PreparedStatement p = c.prepareStatement("SELECT id, big, dbl, dec, s, d, ts, b FROM t WHERE id >= ? ORDER BY id")) {
        p.setInt(1, 2);
        try (ResultSet r = p.executeQuery()) {
          StringBuilder sb = new StringBuilder();
          while (r.next()) {
            sb.append(r.getInt(1)).append('|').append(r.getLong(2)).append('|').append(r.getDouble(3)).append('|')
                .append(r.getBigDecimal(4)).append('|').append(r.getString(5)).append('|').append(r.getDate(6))
                .append('|').append(r.getTimestamp(7)).append('|').append(r.getBoolean(8)).append(';');
          }
          out(label + ".rows", sb);
        }
      }
      // getMetaData() before the first execute: the columns the server announced at prepare.
      try (PreparedStatement p = c.prepareStatement("SELECT id, s AS name, d, dec, count(*) OVER () AS n FROM t WHERE id = ?")) {
        out(label + ".metadata_before_execute", columns(p.getMetaData()));
        p.setInt(1, 1);
        try (ResultSet r = p.executeQuery()) {
          out(label + ".metadata_after_execute", columns(r.getMetaData()));
        }
      }
      // A VARCHAR(64) column is VARCHAR with precision 64 (DuckDB keeps no length; Sluice's catalog does).
      try (PreparedStatement p = c.prepareStatement("SELECT s, id FROM t WHERE id = ?")) {
        out(label + ".varchar_before_execute", sized(p.getMetaData()));
        p.setInt(1, 1);
        try (ResultSet r = p.executeQuery()) {
          out(label + ".varchar_after_execute", sized(r.getMetaData()));
        }
      }
      try (Statement st = c.createStatement(); ResultSet r = st.executeQuery("SELECT s, upper(s) AS u FROM t")) {
        out(label + ".varchar_text_query", sized(r.getMetaData()));
      }
      try (PreparedStatement p = c.prepareStatement("SELECT count(*) FROM t WHERE s = ?")) {
        p.setString(1, "' OR '1'='1");
        try (ResultSet r = p.executeQuery()) {
          r.next();
          out(label + ".injection", r.getLong(1));
        }
      }
      out(label + ".error", failure(c, "SELECT * FROM missing_table WHERE id = ?"));
      out(label + ".unknown_column", failure(c, "SELECT no_such_column FROM t WHERE id = ?"));
    }
  }

  // The error code of a statement prepared and executed with one int parameter; "none" when it runs.
  static String failure(Connection c, String sql) {
    try (PreparedStatement p = c.prepareStatement(sql)) {
      p.setInt(1, 1);
      p.executeQuery();
      return "none";
    } catch (java.sql.SQLException e) {
      return String.valueOf(e.getErrorCode());
    }
  }

  // "name:TYPE:precision,..." as the driver reports them.
  static String sized(ResultSetMetaData md) throws Exception {
    StringBuilder sb = new StringBuilder();
    for (int i = 1; i <= md.getColumnCount(); i++) {
      if (i > 1) sb.append(',');
      sb.append(md.getColumnLabel(i)).append(':').append(md.getColumnTypeName(i)).append(':')
          .append(md.getPrecision(i));
    }
    return sb.toString();
  }

  // "name:TYPE,..." as the driver reports them; "null" when it has none.
  static String columns(ResultSetMetaData md) throws Exception {
    if (md == null) return "null";
    StringBuilder sb = new StringBuilder();
    for (int i = 1; i <= md.getColumnCount(); i++) {
      if (i > 1) sb.append(',');
      sb.append(md.getColumnLabel(i)).append(':').append(md.getColumnTypeName(i));
    }
    return sb.toString();
  }

  public static void main(String[] args) throws Exception {
    TimeZone.setDefault(TimeZone.getTimeZone("UTC"));
    String base = "jdbc:mariadb://127.0.0.1:" + args[0] + "/";
    run("plain", base);
    run("server", base + "?useServerPrepStmts=true");
  }
}
