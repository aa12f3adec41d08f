#include "common/secret_names.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(SecretNamesTest, KafkaSecretsAreSecret) {
  for (const char* k : {"sasl.password", "property.sasl.password", "kafka.sasl.password", "ssl.key.password",
                        "ssl.keystore.password", "ssl.truststore.password", "sasl.jaas.config", "SASL.JAAS.CONFIG",
                        "sasl.oauthbearer.config", "property.sasl.oauthbearer.config",
                        "sasl.oauthbearer.client.secret", "ssl.key.pem", "my.api.token"})
    EXPECT_TRUE(IsSecretName(k)) << k;
}

TEST(SecretNamesTest, StorageAndRegistrySecretsAreSecret) {
  for (const char* k : {"ACCESS_KEY", "access_key", "SECRET_KEY", "aws_secret_access_key", "aws.secret.access.key",
                        "session_token", "basic.auth.user.info", "schema.registry.basic.auth.user.info", "PASSWORD",
                        "credentials"})
    EXPECT_TRUE(IsSecretName(k)) << k;
}

TEST(SecretNamesTest, OrdinaryNamesAreNot) {
  for (const char* k : {"sasl.username", "sasl.mechanism", "security.protocol", "ssl.ca.location",
                        "ssl.certificate.pem", "kafka_topic", "kafka_broker_list", "group.id", "format", "ACCESS_ID",
                        "REGION", "ENDPOINT", "confluent.schema.registry.url", "max_batch_rows"})
    EXPECT_FALSE(IsSecretName(k)) << k;
}

TEST(SecretNamesTest, EveryPatternIsLowercaseAndMatchesItself) {
  ASSERT_FALSE(SecretNamePatterns().empty());
  for (std::string_view p : SecretNamePatterns()) {
    for (char c : p) EXPECT_FALSE(c >= 'A' && c <= 'Z') << p;
    EXPECT_TRUE(IsSecretName(p)) << p;
  }
}

}  // namespace
}  // namespace sluice
