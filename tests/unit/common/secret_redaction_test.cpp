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
