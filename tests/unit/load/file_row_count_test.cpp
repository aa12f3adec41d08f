#include "load/file_row_count.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace sluice::load {
namespace {

class FileRowCountTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sluice-row-count-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  std::string dir_;
};

FileFormat Csv(bool header) {
  FileFormat f;
  f.header = header;
  return f;
}

TEST_F(FileRowCountTest, CsvCountsLinesAfterTheHeader) {
  EXPECT_EQ(CountCsvRows(Write("a.csv", "id,name\n1,a\n2,b\n"), Csv(true)), 2);
  EXPECT_EQ(CountCsvRows(Write("b.csv", "1,a\n2,b"), Csv(false)), 2);  // no newline after the last line
  EXPECT_EQ(CountCsvRows(Write("c.csv", "id,name\n"), Csv(true)), 0);
  EXPECT_EQ(CountCsvRows(Write("d.csv", ""), Csv(true)), 0);
}

TEST_F(FileRowCountTest, CsvQuotedValuesMayHoldLineEndsAndQuotes) {
  EXPECT_EQ(CountCsvRows(Write("a.csv", "id,name\n1,\"two\nlines\"\n2,\"a, b\"\n3,\"\"\n"), Csv(true)), 3);
  // Doubled quotes are an escaped quote only with ESCAPE = the quote (read_csv has no escape without the option).
  const std::string doubled = Write("q.csv", "id,name\n1,\"say \"\"hi\"\"\"\n2,\"x\ny\"\n");
  EXPECT_EQ(CountCsvRows(doubled, Csv(true)), std::nullopt);
  FileFormat escaped = Csv(true);
  escaped.escape = "\"";
  EXPECT_EQ(CountCsvRows(doubled, escaped), 2);
  FileFormat pipe = Csv(false);
  pipe.sep = "|";
  EXPECT_EQ(CountCsvRows(Write("b.csv", "1|\"a|b\nc\"\n2|x\n"), pipe), 2);
}

TEST_F(FileRowCountTest, CsvAmbiguousFilesAreLeftToDuckDB) {
  EXPECT_EQ(CountCsvRows(Write("a.csv", "1,a\r\n2,b\r\n"), Csv(false)), std::nullopt);
  EXPECT_EQ(CountCsvRows(Write("b.csv", "1,a\n\n2,b\n"), Csv(false)), std::nullopt);       // an empty line
  EXPECT_EQ(CountCsvRows(Write("c.csv", "1,a\"b\n"), Csv(false)), std::nullopt);          // quote inside a value
  EXPECT_EQ(CountCsvRows(Write("d.csv", "1,\"ab\"c\n"), Csv(false)), std::nullopt);       // text after the quote
  EXPECT_EQ(CountCsvRows(Write("e.csv", "1,\"open\n2,b\n"), Csv(false)), std::nullopt);   // never closed
  EXPECT_EQ(CountCsvRows(Write("f.csv.gz", "1,a\n"), Csv(false)), std::nullopt);          // compressed
  FileFormat skip = Csv(false);
  skip.skip = 1;
  EXPECT_EQ(CountCsvRows(Write("g.csv", "x\n1,a\n"), skip), std::nullopt);
  FileFormat escape = Csv(false);
  escape.escape = "\\";
  EXPECT_EQ(CountCsvRows(Write("h.csv", "1,\"a\\\"b\"\n"), escape), std::nullopt);
  EXPECT_EQ(CountCsvRows(Write("i.csv", "1,plain\n"), escape), 1);  // no escape character in it
  EXPECT_EQ(CountCsvRows(dir_ + "/missing.csv", Csv(false)), std::nullopt);
}

TEST_F(FileRowCountTest, CsvLargerThanOneChunk) {
  std::string text = "id,name\n";
  for (int i = 0; i < 100000; i++) text += std::to_string(i) + (i % 7 == 0 ? ",\"quoted\nvalue\"\n" : ",plain value\n");
  EXPECT_EQ(CountCsvRows(Write("big.csv", text), Csv(true)), 100000);
}

TEST_F(FileRowCountTest, JsonLinesCountsLinesThatAreNotBlank) {
  FileFormat f;
  f.kind = FileFormat::Kind::kJson;
  EXPECT_EQ(CountJsonLines(Write("a.jsonl", "{\"a\":1}\n{\"a\":2}\n"), f), 2);
  EXPECT_EQ(CountJsonLines(Write("b.jsonl", "{\"a\":1}\n  \n\r\n{\"a\":2}"), f), 2);
  EXPECT_EQ(CountJsonLines(Write("c.jsonl", ""), f), 0);
  EXPECT_EQ(CountJsonLines(Write("d.jsonl.zst", "{}\n"), f), std::nullopt);
  std::string big;
  for (int i = 0; i < 50000; i++) big += "{\"customer_name\":\"Mark Twain\",\"i\":" + std::to_string(i) + "}\n";
  EXPECT_EQ(CountJsonLines(Write("e.jsonl", big), f), 50000);
}

}  // namespace
}  // namespace sluice::load
