#include "common/egress_policy.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>

#include <cstring>

namespace sluice::egress {
namespace {

sockaddr_storage Address(const char* ip, int port) {
  sockaddr_storage ss{};
  if (std::strchr(ip, ':')) {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&ss);
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons(static_cast<uint16_t>(port));
    inet_pton(AF_INET6, ip, &in6->sin6_addr);
  } else {
    auto* in = reinterpret_cast<sockaddr_in*>(&ss);
    in->sin_family = AF_INET;
    in->sin_port = htons(static_cast<uint16_t>(port));
    inet_pton(AF_INET, ip, &in->sin_addr);
  }
  return ss;
}

bool Allows(const EgressPolicy& p, const char* ip, int port) {
  sockaddr_storage ss = Address(ip, port);
  return p.AllowsAddress(reinterpret_cast<const sockaddr*>(&ss));
}

TEST(EgressPolicyTest, UnsetAllowsEverything) {
  EgressPolicy p;
  EXPECT_TRUE(p.unrestricted());
  EXPECT_TRUE(Allows(p, "169.254.169.254", 80));
  EXPECT_TRUE(p.CheckTarget("Kafka broker", "anything.invalid", 9092).ok());
}

TEST(EgressPolicyTest, AddressesPrefixesAndPorts) {
  auto p = EgressPolicy::Parse("10.0.0.0/8:9092, 192.168.1.7, [fd00::/8]:443, ::1");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_TRUE(Allows(*p, "10.200.3.4", 9092));
  EXPECT_FALSE(Allows(*p, "10.200.3.4", 9093)) << "the port is part of the rule";
  EXPECT_FALSE(Allows(*p, "11.0.0.1", 9092));
  EXPECT_TRUE(Allows(*p, "192.168.1.7", 22)) << "no port: any port";
  EXPECT_FALSE(Allows(*p, "192.168.1.8", 22));
  EXPECT_TRUE(Allows(*p, "fd12::5", 443));
  EXPECT_FALSE(Allows(*p, "fe80::1", 443));
  EXPECT_TRUE(Allows(*p, "::1", 5432));
  EXPECT_TRUE(Allows(*p, "::ffff:10.1.1.1", 9092)) << "an IPv4-mapped address counts as IPv4";
  EXPECT_FALSE(Allows(*p, "127.0.0.1", 9092));
}

TEST(EgressPolicyTest, NamesAndWildcards) {
  auto p = EgressPolicy::Parse("kafka.internal:9092,*.s3.example.com:443");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_TRUE(p->AllowsName("KAFKA.internal", 9092));
  EXPECT_FALSE(p->AllowsName("kafka.internal", 9093));
  EXPECT_TRUE(p->AllowsName("bucket.s3.example.com", 443));
  EXPECT_FALSE(p->AllowsName("s3.example.com", 443)) << "*.x covers names under x only";
  EXPECT_FALSE(p->AllowsName("evils3.example.com", 443));
  EXPECT_TRUE(p->CheckTarget("Kafka broker", "kafka.internal", 9092).ok());
}

TEST(EgressPolicyTest, RefusalNamesTheHostAndTheFlag) {
  auto p = EgressPolicy::Parse("127.0.0.1:9092");
  ASSERT_TRUE(p.ok());
  Status st = p->CheckTarget("Kafka broker", "127.0.0.1", 9093);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("'127.0.0.1:9093'"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("--allow-egress"), std::string::npos) << st.message();
  EXPECT_TRUE(p->CheckTarget("Kafka broker", "127.0.0.1", 9092).ok());
  // A name is checked on what it resolves to: localhost is 127.0.0.1 (and ::1, which the list leaves out).
  EXPECT_TRUE(p->CheckTarget("Kafka broker", "localhost", 9092).ok());
  EXPECT_FALSE(p->CheckTarget("Kafka broker", "localhost", 9093).ok());
  EXPECT_FALSE(p->CheckTarget("Kafka broker", "no-such-host.invalid", 9092).ok());
}

TEST(EgressPolicyTest, EmptyListAllowsNothingAndStarEverything) {
  auto none = EgressPolicy::Parse("");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->unrestricted());
  EXPECT_FALSE(Allows(*none, "127.0.0.1", 9092));
  auto any = EgressPolicy::Parse("*:9092");
  ASSERT_TRUE(any.ok());
  EXPECT_TRUE(Allows(*any, "8.8.8.8", 9092));
  EXPECT_FALSE(Allows(*any, "8.8.8.8", 22));
}

TEST(EgressPolicyTest, BadEntriesAreRefused) {
  for (const char* bad : {"10.0.0.0/33", "host:99999", "host:", "[::1", "bad host", "10.0.0.x/8"}) {
    auto p = EgressPolicy::Parse(bad);
    EXPECT_FALSE(p.ok()) << bad;
    if (!p.ok()) {
      EXPECT_NE(p.status().message().find("--allow-egress"), std::string::npos);
    }
  }
}

TEST(EgressPolicyTest, UrlHostPort) {
  EXPECT_EQ(UrlHostPort("https://key:secret@registry.example:8081/x", 1).host, "registry.example");
  EXPECT_EQ(UrlHostPort("https://key:secret@registry.example:8081/x", 1).port, 8081);
  EXPECT_EQ(UrlHostPort("https://s3.us-east-1.amazonaws.com", 1).port, 443);
  EXPECT_EQ(UrlHostPort("http://127.0.0.1", 1).port, 80);
  EXPECT_EQ(UrlHostPort("127.0.0.1:9000", 443).port, 9000);
  EXPECT_EQ(UrlHostPort("http://[::1]:9000/b", 1).host, "::1");
  EXPECT_EQ(UrlHostPort("http://[::1]:9000/b", 1).port, 9000);
}

}  // namespace
}  // namespace sluice::egress
