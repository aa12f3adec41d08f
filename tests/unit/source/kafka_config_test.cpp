// property.* validation by librdkafka, and secrets kept out of errors and logs.
#include "source/kafka_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "source/kafka_source.h"

namespace sluice::source {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

KafkaClientConfig Config(std::vector<std::pair<std::string, std::string>> props) {
  KafkaClientConfig config;
  config.brokers = "127.0.0.1:9";  // never contacted: Create() does not connect
  config.topic = "orders";
  config.properties = std::move(props);
  return config;
}

TEST(KafkaConfig, UnknownPropertyIsInvalidArgumentNamingIt) {
  auto r = KafkaSource::Create(Config({{"no.such.setting", "1"}}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("property.no.such.setting"));
  EXPECT_THAT(r.status().message(), HasSubstr("No such configuration property"));
}

TEST(KafkaConfig, BadValueIsInvalidArgumentWithLibrdkafkasReason) {
  auto r = KafkaSource::Create(Config({{"fetch.wait.max.ms", "soon"}}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("property.fetch.wait.max.ms"));
  EXPECT_THAT(r.status().message(), HasSubstr("Invalid value"));

  r = KafkaSource::Create(Config({{"security.protocol", "CARRIER_PIGEON"}}));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("property.security.protocol"));
}

TEST(KafkaConfig, ValidPropertiesPassThrough) {
  auto r = KafkaSource::Create(Config({{"client.rack", "r1"},
                                       {"auto.offset.reset", "earliest"},
                                       {"isolation.level", "read_uncommitted"},
                                       {"kafka_default_offsets", "OFFSET_END"}}));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(KafkaSource::Create(Config({})).status().code(), StatusCode::kOk);
}

TEST(KafkaConfig, MissingBrokersOrTopicIsInvalidArgument) {
  KafkaClientConfig config = Config({});
  config.brokers.clear();
  EXPECT_EQ(KafkaSource::Create(config).status().code(), StatusCode::kInvalidArgument);
  config = Config({});
  config.topic.clear();
  EXPECT_EQ(KafkaSource::Create(config).status().code(), StatusCode::kInvalidArgument);
}

// What CREATE ROUTINE LOAD / CREATE PIPE run: the same checks as creating a client, without starting one.
TEST(KafkaConfig, ValidateNamesTheBadPropertyWithoutStartingAClient) {
  Status st = ValidateKafkaClientConfig(Config({{"client.rack", "r1"}, {"no.such.setting", "1"}}));
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("invalid Kafka property \"property.no.such.setting\""));
  EXPECT_THAT(st.message(), HasSubstr("No such configuration property"));

  st = ValidateKafkaClientConfig(Config({{"sasl.password", "hunter2"}, {"fetch.wait.max.ms", "hunter2"}}));
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("property.fetch.wait.max.ms"));
  EXPECT_THAT(st.message(), HasSubstr("Invalid value"));
  EXPECT_THAT(st.message(), Not(HasSubstr("hunter2")));

  EXPECT_EQ(ValidateKafkaClientConfig(Config({{"ssl.ca.location", "/etc/passwd"}})).code(), StatusCode::kAccessDenied);
  KafkaClientConfig no_brokers = Config({});
  no_brokers.brokers.clear();
  EXPECT_EQ(ValidateKafkaClientConfig(no_brokers).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(ValidateKafkaClientConfig(Config({{"client.rack", "r1"}, {"kafka_default_offsets", "OFFSET_END"}})).ok());
}

TEST(KafkaConfig, MasksSecretValuesInText) {
  KafkaClientConfig config = Config({{"sasl.password", "hunter2"}, {"sasl.username", "bob"}});
  EXPECT_EQ(internal::MaskSecrets("user bob pass hunter2, hunter2!", config), "user bob pass ******, ******!");
}

TEST(KafkaConfig, SecretValuesNeverAppearInErrorsOrLogs) {
  const std::string secret = "S3cr3t-Value-9f8e";
  struct Case {
    std::vector<std::pair<std::string, std::string>> props;
  };
  std::vector<Case> cases = {
      // librdkafka's Java-only key: unknown here, but its value is still a secret.
      {{{"sasl.jaas.config", secret}}},
      // An invalid value that happens to be the secret too.
      {{{"sasl.password", secret}, {"fetch.wait.max.ms", secret}}},
      {{{"ssl.key.password", secret}, {"my.token", secret}}},
      // rd_kafka_new fails on the combination and may describe it.
      {{{"security.protocol", "SASL_PLAINTEXT"}, {"sasl.mechanism", "OAUTHBEARER"},
        {"sasl.oauthbearer.config", "principal=" + secret + " bad=" + secret}}},
  };
  for (const Case& c : cases) {
    ::testing::internal::CaptureStderr();
    auto r = KafkaSource::Create(Config(c.props));
    std::string logged = ::testing::internal::GetCapturedStderr();
    EXPECT_THAT(logged, Not(HasSubstr(secret)));
    if (!r.ok()) {
      EXPECT_THAT(r.status().message(), Not(HasSubstr(secret)));
    }
  }
}

}  // namespace
}  // namespace sluice::source
