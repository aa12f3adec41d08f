#include "format/csv_decoder.h"

#include <gtest/gtest.h>

#include <string>

#include "batch_rows.h"
#include "format/rejected_row.h"

namespace sluice::format {
namespace {

using testing::ColumnNames;
using testing::Row;
using testing::Rows;
using std::nullopt;

CsvOptions Options(std::string separator, size_t columns) {
  CsvOptions o;
  o.column_separator = std::move(separator);
  o.num_columns = columns;
  return o;
}

// Decodes one message into a fresh batch.
TextBatch DecodeOne(const CsvOptions& options, std::string_view message, RowOrigin origin = {0, 0}) {
  auto decoder = CsvDecoder::Create(options);
  EXPECT_TRUE(decoder.ok()) << decoder.status().message();
  TextBatch batch(ColumnNames(options.num_columns));
  decoder->Decode(message, origin, batch);
  return batch;
}

TEST(CsvDecoderTest, ReferenceOrdersExample) {
  const std::string message =
      "2020050802,20200508,Johann Georg Faust,Deutschland,male,895\n"
      "2020050802,20200508,Julien Sorel,France,male,893\n"
      "2020050803,20200508,Dorian Grey,UK,male,1262\n"
      "2020050901,20200509,Anna Karenina,Russia,female,175\n"
      "2020051001,20200510,Tess Durbeyfield,US,female,986\n"
      "2020051101,20200511,Edogawa Conan,japan,male,8924\n";
  TextBatch batch = DecodeOne(Options(",", 6), message, {3, 42});
  ASSERT_EQ(batch.num_rows(), 6u);
  EXPECT_TRUE(batch.rejected().empty());
  EXPECT_EQ(Rows(batch)[0], (Row{"2020050802", "20200508", "Johann Georg Faust", "Deutschland", "male", "895"}));
  EXPECT_EQ(Rows(batch)[5], (Row{"2020051101", "20200511", "Edogawa Conan", "japan", "male", "8924"}));
  EXPECT_EQ(batch.origin(5).partition, 3);
  EXPECT_EQ(batch.origin(5).offset, 42);
}

TEST(CsvDecoderTest, DefaultSeparatorIsTab) {
  CsvOptions o;
  o.num_columns = 3;
  TextBatch batch = DecodeOne(o, "a\tb c\td");
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"a", "b c", "d"}}));
}

TEST(CsvDecoderTest, MultiByteSeparators) {
  TextBatch batch = DecodeOne(Options("||", 3), "a||b|c||d\n||x|| ");
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"a", "b|c", "d"}, {"", "x", " "}}));

  TextBatch ctrl = DecodeOne(Options("\x01", 2), "k\x01v");
  EXPECT_EQ(Rows(ctrl), (std::vector<Row>{{"k", "v"}}));

  CsvOptions crlf = Options("<sep>", 2);
  crlf.row_delimiter = "\r\n";
  TextBatch rows = DecodeOne(crlf, "a<sep>b\r\nc<sep>d\r\n");
  EXPECT_EQ(Rows(rows), (std::vector<Row>{{"a", "b"}, {"c", "d"}}));
}

TEST(CsvDecoderTest, NullMarkerVersusEmptyString) {
  TextBatch batch = DecodeOne(Options(",", 3), "a,,b\na,\\N,b\n\\N,\\NN,N");
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"a", "", "b"}, {"a", nullopt, "b"}, {nullopt, "\\NN", "N"}}));
}

TEST(CsvDecoderTest, TrailingSeparatorMakesAnEmptyLastField) {
  TextBatch batch = DecodeOne(Options(",", 3), "a,b,\n,,");
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"a", "b", ""}, {"", "", ""}}));
}

TEST(CsvDecoderTest, SeveralRowsAndEmptyRowsSkipped) {
  TextBatch batch = DecodeOne(Options(",", 2), "1,a\n\n2,b\n3,c\n\n");
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"1", "a"}, {"2", "b"}, {"3", "c"}}));
  EXPECT_TRUE(batch.rejected().empty());
  EXPECT_EQ(DecodeOne(Options(",", 2), "").num_rows(), 0u);
  EXPECT_EQ(DecodeOne(Options(",", 2), "\n\n").num_rows(), 0u);
}

TEST(CsvDecoderTest, CarriageReturnIsKeptWithNewlineDelimiter) {
  TextBatch batch = DecodeOne(Options(",", 2), "a,b\r\n");
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"a", "b\r"}}));
}

TEST(CsvDecoderTest, WrongColumnCountIsRejectedOthersLoad) {
  TextBatch batch = DecodeOne(Options(",", 6),
                              "2020050802,20200508,Johann Georg Faust,Deutschland,male,895\n"
                              "2020050802,20200508,Julien Sorel,France,male\n"
                              "2020050803,20200508,Dorian Grey,UK,male,1262,extra\n"
                              "2020050901,20200509,Anna Karenina,Russia,female,175",
                              {1, 7});
  ASSERT_EQ(batch.num_rows(), 2u);
  EXPECT_EQ(*Rows(batch)[1][2], "Anna Karenina");
  ASSERT_EQ(batch.rejected().size(), 2u);
  EXPECT_EQ(batch.rejected()[0].reason, "column count mismatch: expected 6 columns, got 5 (separator \",\")");
  EXPECT_EQ(batch.rejected()[0].raw, "2020050802,20200508,Julien Sorel,France,male");
  EXPECT_EQ(batch.rejected()[0].origin.partition, 1);
  EXPECT_EQ(batch.rejected()[0].origin.offset, 7);
  EXPECT_EQ(batch.rejected()[1].reason, "column count mismatch: expected 6 columns, got 7 (separator \",\")");
}

TEST(CsvDecoderTest, MismatchReasonShowsControlSeparators) {
  TextBatch batch = DecodeOne(Options("\x01", 2), "only");
  ASSERT_EQ(batch.rejected().size(), 1u);
  EXPECT_EQ(batch.rejected()[0].reason, "column count mismatch: expected 2 columns, got 1 (separator \"\\x01\")");
}

TEST(CsvDecoderTest, EncloseKeepsSeparatorsAndDelimitersLiteral) {
  CsvOptions o = Options(",", 3);
  o.enclose = '"';
  TextBatch batch = DecodeOne(o, "\"a,b\",\"line1\nline2\",c\n\"\",\"x\"\"y\",\"\"\"\"");
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"a,b", "line1\nline2", "c"}, {"", "x\"y", "\""}}));
}

TEST(CsvDecoderTest, EnclosedNullMarkerIsText) {
  CsvOptions o = Options(",", 2);
  o.enclose = '"';
  TextBatch batch = DecodeOne(o, "\"\\N\",\\N");
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"\\N", nullopt}}));
}

TEST(CsvDecoderTest, EncloseOnlyCountsAtFieldStart) {
  CsvOptions o = Options(",", 2);
  o.enclose = '"';
  TextBatch batch = DecodeOne(o, "ab\"c,d");
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"ab\"c", "d"}}));
}

TEST(CsvDecoderTest, UnterminatedEncloseRejectsOnlyItsRow) {
  CsvOptions o = Options(",", 2);
  o.enclose = '"';
  TextBatch batch = DecodeOne(o, "1,a\n2,\"open\n3,c");
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"1", "a"}, {"3", "c"}}));
  ASSERT_EQ(batch.rejected().size(), 1u);
  EXPECT_EQ(batch.rejected()[0].reason, "unterminated enclose \"\\\"\" in column 2");
  EXPECT_EQ(batch.rejected()[0].raw, "2,\"open");
}

TEST(CsvDecoderTest, BytesAfterClosingEncloseRejectTheRow) {
  CsvOptions o = Options(",", 2);
  o.enclose = '"';
  TextBatch batch = DecodeOne(o, "\"ab\"cd,e\n\"x\",\"y\"");
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"x", "y"}}));
  ASSERT_EQ(batch.rejected().size(), 1u);
  EXPECT_EQ(batch.rejected()[0].reason, "unexpected bytes after the closing enclose \"\\\"\" in column 1");
  EXPECT_EQ(batch.rejected()[0].raw, "\"ab\"cd,e");
}

TEST(CsvDecoderTest, EscapeMakesTheNextByteLiteral) {
  CsvOptions o = Options(",", 3);
  o.escape = '\\';
  TextBatch batch = DecodeOne(o, "a\\,b,c\\\\d,e\\\nf\nx,\\N,z\\");
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"a,b", "c\\d", "e\nf"}, {"x", nullopt, "z\\"}}));
}

TEST(CsvDecoderTest, EscapeInsideEnclose) {
  CsvOptions o = Options(",", 2);
  o.enclose = '"';
  o.escape = '\\';
  TextBatch batch = DecodeOne(o, "\"say \\\"hi\\\"\",\"a\\\\b\"\n\"doubled \"\"ok\"\"\",\\,");
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"say \"hi\"", "a\\b"}, {"doubled \"ok\"", ","}}));
}

TEST(CsvDecoderTest, EscapeEqualToEncloseMeansDoubling) {
  CsvOptions o = Options(",", 2);
  o.enclose = '"';
  o.escape = '"';
  TextBatch batch = DecodeOne(o, "\"a\"\"b\",c\"d");
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"a\"b", "c\"d"}}));
}

TEST(CsvDecoderTest, TrimSpace) {
  CsvOptions o = Options(",", 3);
  o.trim_space = true;
  TextBatch batch = DecodeOne(o, "  a ,\tb\t, \\N \n , ,  ");
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"a", "b", nullopt}, {"", "", ""}}));
}

TEST(CsvDecoderTest, TrimSpaceOutsideEncloseOnly) {
  CsvOptions o = Options(",", 3);
  o.trim_space = true;
  o.enclose = '"';
  o.escape = '\\';
  TextBatch batch = DecodeOne(o, "  \" a \"  , b\\ ,c");
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{" a ", "b ", "c"}}));
}

TEST(CsvDecoderTest, TrimSpaceKeepsTabSeparators) {
  CsvOptions o = Options("\t", 3);
  o.trim_space = true;
  TextBatch plain = DecodeOne(o, " a \t\tb ");
  EXPECT_EQ(Rows(plain), (std::vector<Row>{{"a", "", "b"}}));
  o.enclose = '"';
  TextBatch general = DecodeOne(o, " a \t\tb ");
  EXPECT_EQ(Rows(general), (std::vector<Row>{{"a", "", "b"}}));
}

TEST(CsvDecoderTest, RawBytesOfRejectedRowsAreBounded) {
  const std::string huge(100'000, 'x');
  TextBatch batch = DecodeOne(Options(",", 2), huge);
  ASSERT_EQ(batch.rejected().size(), 1u);
  EXPECT_EQ(batch.rejected()[0].raw.size(), kMaxRejectedRawBytes);
}

TEST(CsvDecoderTest, AppendsToAnExistingBatch) {
  auto decoder = CsvDecoder::Create(Options(",", 2));
  ASSERT_TRUE(decoder.ok());
  TextBatch batch(ColumnNames(2));
  decoder->Decode("a,b", {0, 1}, batch);
  decoder->Decode("c,d\ne,f", {0, 2}, batch);
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"a", "b"}, {"c", "d"}, {"e", "f"}}));
  EXPECT_EQ(batch.origin(2).offset, 2);
}

TEST(CsvOptionsTest, Validation) {
  auto check = [](CsvOptions o) { return ValidateCsvOptions(o); };
  EXPECT_TRUE(check(Options(",", 1)).ok());
  EXPECT_FALSE(check(Options("", 1)).ok());
  EXPECT_FALSE(check(Options(std::string(51, '|'), 1)).ok());
  EXPECT_TRUE(check(Options(std::string(50, '|'), 1)).ok());
  EXPECT_FALSE(check(Options(",", 0)).ok());

  CsvOptions same = Options("\n", 1);
  Status st = check(same);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("overlap"), std::string::npos) << st.message();

  CsvOptions suffix = Options("ab", 1);
  suffix.row_delimiter = "bc";
  EXPECT_FALSE(check(suffix).ok());

  CsvOptions enclose_in_separator = Options(",\"", 1);
  enclose_in_separator.enclose = '"';
  EXPECT_FALSE(check(enclose_in_separator).ok());

  CsvOptions escape_in_delimiter = Options(",", 1);
  escape_in_delimiter.escape = '\n';
  EXPECT_FALSE(check(escape_in_delimiter).ok());

  EXPECT_FALSE(CsvDecoder::Create(Options("", 1)).ok());
}

}  // namespace
}  // namespace sluice::format
