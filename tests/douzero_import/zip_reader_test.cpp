// ZipReader on hand-built archives: stored entries found through the central directory (with
// torch.save's data descriptors and padding), zip64 and comments, and every kind of bad input
// reported as a UserError that names the file.
#include "algorithms/dmc/douzero_import/zip_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "core/common/error.h"
#include "tests/douzero_import/zip_builder.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

using test::error_of;
using test::ZipBuilder;
using test::ZipOptions;
using ::testing::AllOf;
using ::testing::HasSubstr;

std::string as_string(const std::vector<std::byte>& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

std::string write_temp(const std::string& bytes, const std::string& name = "archive.zip") {
  const std::string path = test::make_temp_dir("rlzoo-zip") + "/" + name;
  test::write_file(path, bytes);
  return path;
}

ZipBuilder sample() {
  ZipBuilder b;
  b.add("top/data.pkl", std::string("pickle\0bytes", 12))
      .add("top/data/0", std::string(1000, 'x'))
      .add("top/empty", "");
  return b;
}

void expect_sample_contents(const ZipReader& zip) {
  ASSERT_EQ(zip.entries().size(), 3u);
  EXPECT_EQ(zip.entries()[0].name, "top/data.pkl");
  EXPECT_EQ(zip.entries()[1].name, "top/data/0");
  EXPECT_EQ(zip.entries()[1].size, 1000u);
  EXPECT_EQ(as_string(zip.read("top/data.pkl")), std::string("pickle\0bytes", 12));
  EXPECT_EQ(as_string(zip.read("top/data/0")), std::string(1000, 'x'));
  EXPECT_EQ(as_string(zip.read("top/empty")), "");
  EXPECT_EQ(zip.find("top/missing"), nullptr);
}

TEST(ZipReaderTest, ReadsStoredEntriesWithDataDescriptors) {
  expect_sample_contents(ZipReader(write_temp(sample().build())));
}

TEST(ZipReaderTest, ReadsStoredEntriesWithSizesInLocalHeaders) {
  expect_sample_contents(ZipReader(write_temp(sample().build({.data_descriptors = false}))));
}

TEST(ZipReaderTest, ReadsZip64DirectoryAndComment) {
  expect_sample_contents(ZipReader(write_temp(sample().build({.zip64 = true}))));
  expect_sample_contents(
      ZipReader(write_temp(sample().build({.comment = "a comment with PK\x05\x06 inside, and more text after it"}))));
}

TEST(ZipReaderTest, ReaderIsMovable) {
  ZipReader a(write_temp(sample().build()));
  ZipReader b = std::move(a);
  expect_sample_contents(b);
}

TEST(ZipReaderTest, NotAZipNamesTheFile) {
  const std::string path = write_temp("just some text, long enough to look for a zip directory", "notes.txt");
  EXPECT_THAT(error_of([&] { ZipReader{path}; }), AllOf(HasSubstr(path), HasSubstr("not a zip archive")));
  const std::string empty = write_temp("", "empty.zip");
  EXPECT_THAT(error_of([&] { ZipReader{empty}; }), AllOf(HasSubstr(empty), HasSubstr("not a zip archive")));
  EXPECT_THAT(error_of([] { ZipReader{"/nonexistent/dir/file.zip"}; }),
              AllOf(HasSubstr("/nonexistent/dir/file.zip"), HasSubstr("cannot open")));
}

TEST(ZipReaderTest, MissingEntryIsNamed) {
  const std::string path = write_temp(sample().build());
  EXPECT_THAT(error_of([&] { ZipReader(path).read("top/other"); }), AllOf(HasSubstr(path), HasSubstr("'top/other'")));
}

TEST(ZipReaderTest, RejectsCompressedEntries) {
  ZipBuilder b;
  b.add("a.bin", "data", 8);
  const std::string path = write_temp(b.build());
  ZipReader zip(path);
  EXPECT_THAT(error_of([&] { zip.read("a.bin"); }),
              AllOf(HasSubstr(path), HasSubstr("'a.bin'"), HasSubstr("compression method 8 (deflate)")));
}

TEST(ZipReaderTest, DetectsCorruptedData) {
  std::string bytes = sample().build();
  const auto at = bytes.find(std::string(1000, 'x'));
  ASSERT_NE(at, std::string::npos);
  bytes[at + 500] = 'y';
  const std::string path = write_temp(bytes);
  ZipReader zip(path);
  EXPECT_THAT(error_of([&] { zip.read("top/data/0"); }),
              AllOf(HasSubstr(path), HasSubstr("'top/data/0' is corrupted"), HasSubstr("CRC-32")));
}

// Every prefix of an archive is rejected, at open or when reading an entry, with a UserError
// that names the file (never a crash or another exception type).
TEST(ZipReaderTest, EveryTruncationIsAUserError) {
  for (const bool zip64 : {false, true}) {
    const std::string bytes = sample().build({.zip64 = zip64});
    const std::string dir = test::make_temp_dir("rlzoo-zip-cut");
    for (std::size_t len = 0; len < bytes.size(); ++len) {
      const std::string path = dir + "/cut.zip";
      test::write_file(path, bytes.substr(0, len));
      const std::string msg = error_of([&] {
        ZipReader zip(path);
        for (const auto& e : zip.entries()) zip.read(e);
      });
      ASSERT_THAT(msg, HasSubstr(path)) << "cut at " << len << " of " << bytes.size() << (zip64 ? " (zip64)" : "");
    }
  }
}

TEST(ZipReaderTest, TruncatedArchiveSaysTruncated) {
  const std::string bytes = sample().build();
  const std::string path = write_temp(bytes.substr(0, bytes.size() / 2));
  EXPECT_THAT(error_of([&] { ZipReader{path}; }), AllOf(HasSubstr(path), HasSubstr("truncated")));
}

}  // namespace
}  // namespace rlzoo
