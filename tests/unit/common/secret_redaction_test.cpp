#include "common/secret_redaction.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(SecretRedactionTest, PropertyValuesNamingSecretsAreMasked) {
  std::string sql = R"(CREATE ROUTINE LOAD j ON t FROM KAFKA ("kafka_topic" = "orders", "property.sasl.password" = "hunter2", 'property.ssl.key.password'='p\'w', "property.sasl.username" = "bob"))";
  std::string out = RedactSecrets(sql);
  EXPECT_EQ(out.find("hunter2"), std::string::npos) << out;
  EXPECT_EQ(out.find("p\\'w"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("property.sasl.password" = "******")"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("kafka_topic" = "orders")"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("property.sasl.username" = "bob")"), std::string::npos) << out;
}

TEST(SecretRedactionTest, KeywordFormsAreMasked) {
  std::string out = RedactSecrets("CREATE STORAGE CONNECTION c TYPE S3 ACCESS_ID 'AKIA1' ACCESS_KEY 'sekret' REGION 'x'");
  EXPECT_EQ(out.find("sekret"), std::string::npos) << out;
  EXPECT_EQ(out.find("AKIA1"), std::string::npos) << out;
  EXPECT_NE(out.find("REGION 'x'"), std::string::npos) << out;
}

TEST(SecretRedactionTest, UrlCredentialsAreMasked) {
  std::string out = RedactSecrets(
      "CREATE ROUTINE LOAD j ON t PROPERTIES (\"format\" = \"avro\") FROM KAFKA (\"confluent.schema.registry.url\" = "
      "\"https://APIKEY1:s3cr%40t@registry.example:8081\")");
  EXPECT_EQ(out.find("APIKEY1"), std::string::npos) << out;
  EXPECT_EQ(out.find("s3cr"), std::string::npos) << out;
  EXPECT_NE(out.find("\"https://******@registry.example:8081\""), std::string::npos) << out;
  std::string plain = "SELECT 'http://registry:8081/x@y' AS u";
  EXPECT_EQ(RedactSecrets(plain), plain);
}

TEST(SecretRedactionTest, OrdinaryStatementsAreUnchanged) {
  std::string sql = "SELECT 'password' AS word, token FROM t WHERE a = 'b'";
  EXPECT_EQ(RedactSecrets(sql), sql);
}

}  // namespace
}  // namespace sluice

namespace sluice {
namespace {

TEST(SecretRedactionTest, MapArgumentsAreMasked) {
  EXPECT_EQ(RedactSecrets("READ_KAFKA('b', 't', map('kafka.sasl.username', 'alice', 'kafka.sasl.password', 'pw1'))"),
            "READ_KAFKA('b', 't', map('kafka.sasl.username', 'alice', 'kafka.sasl.password', '******'))");
  EXPECT_EQ(RedactSecrets("MAP {'kafka.sasl.password': 'pw2'}"), "MAP {'kafka.sasl.password': '******'}");
}

}  // namespace
}  // namespace sluice

namespace sluice {
namespace {

// Every value of every secret name, whatever the quoting, and the key next to it kept.
TEST(SecretRedactionTest, EverySecretValueInBothQuoteForms) {
  std::string sql =
      "CREATE ROUTINE LOAD db.j ON t FROM KAFKA ('kafka_topic' = 'orders', 'property.sasl.username' = 'bob', "
      "'property.sasl.password' = 'pw-single', \"property.ssl.key.password\" = \"pw-double\", "
      "'property.sasl.oauthbearer.config' = 'principal=alice clientSecret=oauth-sec', "
      "\"property.sasl.jaas.config\" = \"org.apache.kafka.common.security.plain.PlainLoginModule required "
      "username=\\\"u\\\" password=\\\"jaas-pw\\\";\", 'property.ssl.keystore.password'='it''s-ks')";
  std::string out = RedactSecrets(sql);
  for (const char* secret : {"pw-single", "pw-double", "oauth-sec", "principal=alice", "jaas-pw", "it''s-ks", "s-ks"})
    EXPECT_EQ(out.find(secret), std::string::npos) << secret << " in " << out;
  EXPECT_NE(out.find("'property.sasl.password' = '******'"), std::string::npos) << out;
  EXPECT_NE(out.find("\"property.ssl.key.password\" = \"******\""), std::string::npos) << out;
  EXPECT_NE(out.find("'property.sasl.username' = 'bob'"), std::string::npos) << out;
  EXPECT_NE(out.find("'kafka_topic' = 'orders'"), std::string::npos) << out;
}

TEST(SecretRedactionTest, AssignmentsInsideUrlsAndJaasText) {
  EXPECT_EQ(RedactSecrets("https://h/x?user=bob&token=abc123&x=1"), "https://h/x?user=bob&token=******&x=1");
  EXPECT_EQ(RedactSecrets("PlainLoginModule required username=\"u\" password=\"p1\";"),
            "PlainLoginModule required username=\"u\" password=\"******\";");
  EXPECT_EQ(RedactSecrets("ssl.key.password=hunter2 sasl.username=bob"), "ssl.key.password=****** sasl.username=bob");
  // Inside a string that is not itself a secret's value.
  std::string out = RedactSecrets("SELECT 'failed: sasl.password=pw9, broker down'");
  EXPECT_EQ(out.find("pw9"), std::string::npos) << out;
  out = RedactSecrets("'confluent.schema.registry.url' = 'http://key:regpw@reg:8081'");
  EXPECT_EQ(out.find("regpw"), std::string::npos) << out;
  EXPECT_NE(out.find("http://******@reg:8081"), std::string::npos) << out;
}

TEST(SecretRedactionTest, AccountStatements) {
  for (const char* sql : {"CREATE USER 'u'@'%' IDENTIFIED BY 'acct-pw'", "SET PASSWORD FOR 'u' = 'acct-pw'",
                          "SET PASSWORD = PASSWORD('acct-pw')",
                          "ALTER USER u IDENTIFIED WITH mysql_native_password AS 'acct-pw'",
                          "CREATE STORAGE CONNECTION c TYPE S3 SECRET_KEY = 'acct-pw'"}) {
    std::string out = RedactSecrets(sql);
    EXPECT_EQ(out.find("acct-pw"), std::string::npos) << out;
  }
}

TEST(SecretRedactionTest, UnterminatedStringsDoNotLeakOrCrash) {
  std::string out = RedactSecrets("'sasl.password' = 'half");
  EXPECT_EQ(out.find("half"), std::string::npos) << out;
  EXPECT_EQ(RedactSecrets(""), "");
  EXPECT_EQ(RedactSecrets("'"), "'");
}

}  // namespace
}  // namespace sluice
