// Drives Sluice's catalog through JDBC's DatabaseMetaData (MariaDB Connector/J from Debian's libmariadb-java):
// getCatalogs, getSchemas, getTables, getColumns, getPrimaryKeys and getIndexInfo, which Connector/J answers with
// queries over information_schema and SHOW. Prints one "name=value" line per call for tests/e2e/test_jdbc_metadata.py.
//   java -cp /usr/share/java/mariadb-java-client.jar tests/clients/JdbcMetadata.java PORT [USER PASSWORD]
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;

public class JdbcMetadata {
  // The rows of `rs` as "a|b|c;" for the named columns, so one line holds the whole answer.
  static String rows(ResultSet rs, String... columns) throws Exception {
    StringBuilder sb = new StringBuilder();
    while (rs.next()) {
      for (int i = 0; i < columns.length; i++) {
        if (i > 0) sb.append('|');
        sb.append(rs.getString(columns[i]));
      }
      sb.append(';');
    }
    rs.close();
    return sb.toString();
  }

  static void out(String name, String value) {
    System.out.println(name + "=" + value);
  }

  interface Call {
    String run() throws Exception;
  }

  // One failing call is reported as such and the others still run.
  static void check(String name, Call call) {
    try {
      out(name, call.run());
    } catch (Exception e) {
      out(name, "ERROR " + e.getMessage().replace('\n', ' '));
    }
  }

  public static void main(String[] args) throws Exception {
    String port = args[0];
    String user = args.length > 1 ? args[1] : "root";
    String password = args.length > 2 ? args[2] : "";
    String url = "jdbc:mariadb://127.0.0.1:" + port + "/jdbc_meta";
    try (Connection c = DriverManager.getConnection(url, user, password)) {
      DatabaseMetaData md = c.getMetaData();
      check("catalogs", () -> rows(md.getCatalogs(), "TABLE_CAT"));
      check("schemas", () -> rows(md.getSchemas(), "TABLE_SCHEM"));
      check("tables", () -> rows(md.getTables("jdbc_meta", null, "%", null), "TABLE_CAT", "TABLE_NAME", "TABLE_TYPE",
          "REMARKS"));
      check("columns", () -> rows(md.getColumns("jdbc_meta", null, "orders", "%"), "COLUMN_NAME", "DATA_TYPE",
          "TYPE_NAME", "COLUMN_SIZE", "DECIMAL_DIGITS", "NULLABLE", "REMARKS", "ORDINAL_POSITION", "IS_NULLABLE"));
      check("primary_keys", () -> rows(md.getPrimaryKeys("jdbc_meta", null, "orders"), "TABLE_NAME", "COLUMN_NAME",
          "KEY_SEQ"));
      check("index_info", () -> rows(md.getIndexInfo("jdbc_meta", null, "orders", false, false), "TABLE_NAME",
          "NON_UNIQUE", "INDEX_NAME", "ORDINAL_POSITION", "COLUMN_NAME"));
      check("all_tables", () -> rows(md.getTables(null, null, "%", new String[] {"TABLE", "VIEW"}), "TABLE_CAT",
          "TABLE_NAME"));
    }
  }
}
