// S3 request building and ListObjectsV2 parsing (the requests themselves are tested against s3rver in
// tests/e2e/test_volumes.py).
#include <gtest/gtest.h>

#include "source/s3_client.h"
#include "source/volume.h"

namespace sluice::source {
namespace {

TEST(S3ListingTest, ParsesPageWithContinuation) {
  const std::string xml = R"(<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>inbox</Name><Prefix>in/</Prefix>
<KeyCount>2</KeyCount><MaxKeys>2</MaxKeys><IsTruncated>true</IsTruncated>
<Contents><Key>in/a b.csv</Key><LastModified>2024-05-01T10:20:30.123Z</LastModified>
<ETag>&quot;3ecfad755fa825f7a17c5526ec44e651&quot;</ETag><Size>4</Size><StorageClass>STANDARD</StorageClass></Contents>
<Contents><Key>in/c.json</Key><LastModified>2024-05-01T10:20:31.000Z</LastModified><ETag>"x-2"</ETag><Size>12345678901</Size></Contents>
<NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken></ListBucketResult>)";
  auto page = ParseListObjectsV2(xml);
  ASSERT_TRUE(page.ok()) << page.status().message();
  ASSERT_EQ(page->objects.size(), 2u);
  EXPECT_EQ(page->objects[0].key, "in/a b.csv");
  EXPECT_EQ(page->objects[0].size, 4);
  EXPECT_EQ(page->objects[0].etag, "3ecfad755fa825f7a17c5526ec44e651");
  EXPECT_EQ(page->objects[0].last_modified_ms, 1714558830123);
  EXPECT_EQ(page->objects[1].size, 12345678901);
  EXPECT_EQ(page->objects[1].etag, "x-2");
  EXPECT_TRUE(page->truncated);
  EXPECT_EQ(page->next_continuation_token, "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=");
}

TEST(S3ListingTest, LastPageAndEmptyBucket) {
  auto page = ParseListObjectsV2("<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>");
  ASSERT_TRUE(page.ok());
  EXPECT_TRUE(page->objects.empty());
  EXPECT_FALSE(page->truncated);
}

TEST(S3ListingTest, ErrorsAreReported) {
  auto err = ParseListObjectsV2("<Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist"
                                "</Message></Error>");
  ASSERT_FALSE(err.ok());
  EXPECT_NE(err.status().message().find("NoSuchBucket"), std::string::npos);
  EXPECT_FALSE(ParseListObjectsV2("not xml <").ok());
  // A truncated page must say where to go on, or the listing would stop early.
  EXPECT_FALSE(ParseListObjectsV2("<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>").ok());
}

TEST(S3ListingTest, QueryIsCanonical) {
  // Sorted by parameter name, values encoded with upper-case hex, '/' encoded inside values.
  EXPECT_EQ(ListObjectsQuery("in/2024 05/", "", "", 1000), "list-type=2&max-keys=1000&prefix=in%2F2024%2005%2F");
  EXPECT_EQ(ListObjectsQuery("", "/", "a+b/c=", 10),
            "continuation-token=a%2Bb%2Fc%3D&delimiter=%2F&list-type=2&max-keys=10&prefix=");
  EXPECT_EQ(UriEncode("a b/c~d.e_f-g", true), "a%20b/c~d.e_f-g");
  EXPECT_EQ(UriEncode("ü", false), "%C3%BC");
}

TEST(S3ListingTest, Iso8601) {
  EXPECT_EQ(*ParseIso8601Ms("1970-01-01T00:00:01Z"), 1000);
  EXPECT_EQ(*ParseIso8601Ms("2024-05-01T10:20:30.5Z"), 1714558830500);
  EXPECT_FALSE(ParseIso8601Ms("yesterday").ok());
}

TEST(VolumeLocationTest, Schemes) {
  auto s3 = ParseVolumeLocation("s3://bucket/in/sub");
  ASSERT_TRUE(s3.ok());
  EXPECT_EQ(s3->bucket, "bucket");
  EXPECT_EQ(s3->prefix, "in/sub/");
  EXPECT_EQ(s3->url, "s3://bucket/in/sub/");
  auto root = ParseVolumeLocation("s3://bucket");
  ASSERT_TRUE(root.ok());
  EXPECT_EQ(root->prefix, "");
  auto local = ParseVolumeLocation("file:///data/in");
  ASSERT_TRUE(local.ok());
  EXPECT_EQ(local->path, "/data/in/");
  EXPECT_FALSE(ParseVolumeLocation("file://relative/x").ok());
  EXPECT_FALSE(ParseVolumeLocation("s3:///nobucket").ok());
  EXPECT_FALSE(ParseVolumeLocation("hdfs://x/y").ok());
}

TEST(VolumeLocationTest, HiddenFiles) {
  EXPECT_TRUE(IsHiddenVolumePath(".part.csv"));
  EXPECT_TRUE(IsHiddenVolumePath("a/_temporary/0/x.csv"));
  EXPECT_TRUE(IsHiddenVolumePath("_temporary_x.csv"));
  EXPECT_TRUE(IsHiddenVolumePath("a/.staging/x.csv"));
  EXPECT_FALSE(IsHiddenVolumePath("a/b.csv"));
  EXPECT_FALSE(IsHiddenVolumePath("a/x.tmp.csv"));
  EXPECT_FALSE(IsHiddenVolumePath("_SUCCESS_no_not_hidden.csv"));
}

}  // namespace
}  // namespace sluice::source
