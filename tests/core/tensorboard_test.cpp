// TensorBoard event files: framing against the byte vectors in /work/shared/notes/ecosystem.md
// section 4, writer -> reader round trips, and the reader's handling of damaged files.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <unistd.h>

#include "core/common/crc32c.h"
#include "core/common/error.h"
#include "core/logging/event_file_writer.h"
#include "core/logging/logger.h"
#include "core/logging/tensorboard_sink.h"
#include "core/logging/tfrecord.h"
#include "core/logging/tfrecord_reader.h"
#include "tests/support/test_paths.h"

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using rlzoo::tensorboard::Event;

namespace {

std::string from_hex(std::string_view hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  return out;
}

std::string from_base64(std::string_view text) {
  const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    if (c == '=') break;
    acc = (acc << 6) | static_cast<std::uint32_t>(alphabet.find(c));
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  return out;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void spit(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes; }

// The notes' scalar event: wall_time 1700000000.0, step 2048, rollout/ep_rew_mean = 1.5.
const char* kScalarEventHex =
    "0900000040fc54d9411080102a1c0a1a0a13726f6c6c6f75742f65705f7265775f6d65616e150000c03f";
const char* kFileVersionEventHex = "0900000040fc54d9411a0d627261696e2e4576656e743a32";

rlzoo::EventFileWriterOptions fixed_clock(double t) {
  rlzoo::EventFileWriterOptions o;
  o.wall_clock = [t] { return t; };
  return o;
}

}  // namespace

TEST(TensorBoardFraming, FooRecordMatchesBase64Vector) {
  EXPECT_EQ(rlzoo::frame_tfrecord("foo"), from_base64("AwAAAAAAAACwmUkOZm9vYYq+/g=="));
  const auto scan = rlzoo::parse_tfrecords(from_base64("AwAAAAAAAACwmUkOZm9vYYq+/g=="), "foo.tfrecord");
  ASSERT_EQ(scan.records.size(), 1u);
  EXPECT_EQ(scan.records[0].data, "foo");
  EXPECT_FALSE(scan.truncated);
}

TEST(TensorBoardFraming, ScalarEventSerializesToTheNotesBytes) {
  Event e;
  e.set_wall_time(1700000000.0);
  e.set_step(2048);
  auto* v = e.mutable_summary()->add_value();
  v->set_tag("rollout/ep_rew_mean");
  v->set_simple_value(1.5f);
  const std::string bytes = e.SerializeAsString();
  EXPECT_EQ(bytes.size(), 42u);
  EXPECT_EQ(bytes, from_hex(kScalarEventHex));
}

TEST(TensorBoardFraming, ScalarEventFramedWithTheNotesCrcs) {
  const std::string framed = rlzoo::frame_tfrecord(from_hex(kScalarEventHex));
  EXPECT_EQ(framed, from_hex(std::string("2a00000000000000") + "ae8d91f5" + kScalarEventHex + "73f6b86a"));
}

TEST(TensorBoardFraming, FileVersionEventBytes) {
  Event e;
  e.set_wall_time(1700000000.0);
  e.set_file_version("brain.Event:2");
  EXPECT_EQ(e.SerializeAsString(), from_hex(kFileVersionEventHex));
}

TEST(TensorBoardFraming, ZeroScalarIsStillOnTheWire) {
  // simple_value sits in a oneof, so 0.0 is written (TensorBoard drops a value with no oneof set).
  Event e;
  auto* v = e.mutable_summary()->add_value();
  v->set_tag("x");
  v->set_simple_value(0.0f);
  Event back;
  ASSERT_TRUE(back.ParseFromString(e.SerializeAsString()));
  ASSERT_EQ(back.summary().value_size(), 1);
  EXPECT_TRUE(back.summary().value(0).has_simple_value());
}

TEST(TensorBoardWriter, FileNameFollowsTensorBoard) {
  EXPECT_EQ(rlzoo::event_file_name(1700000000.9, "box.example.org", 4242, 3), "events.out.tfevents.1700000000.box.example.org.4242.3");
  EXPECT_EQ(rlzoo::event_file_name(12.0, "h", 1, 0, ".eval"), "events.out.tfevents.0000000012.h.1.0.eval");
}

TEST(TensorBoardWriter, RoundTripVerifiesEveryCrc) {
  const fs::path dir = fs::path(rlzoo::test::make_temp_dir("rlzoo-tb")) / "nested" / "PPO_1";
  rlzoo::EventFileWriter writer(dir, fixed_clock(1700000000.0));

  const std::string name = writer.path().filename().string();
  std::smatch m;
  ASSERT_TRUE(std::regex_match(name, m, std::regex(R"(events\.out\.tfevents\.(\d{10})\.(.+)\.(\d+)\.(\d+))"))) << name;
  EXPECT_EQ(m[1], "1700000000");
  EXPECT_EQ(m[3], std::to_string(::getpid()));
  EXPECT_EQ(writer.path().parent_path(), dir);

  // The file_version record is on disk before anything else is flushed.
  auto first = rlzoo::read_event_file(writer.path());
  ASSERT_EQ(first.events.size(), 1u);
  EXPECT_FALSE(first.truncated);
  EXPECT_EQ(first.events[0].file_version(), "brain.Event:2");
  EXPECT_EQ(first.events[0].source_metadata().writer(), "rlzoo");
  EXPECT_DOUBLE_EQ(first.events[0].wall_time(), 1700000000.0);

  writer.add_scalar("rollout/ep_rew_mean", 1.5, 2048);
  writer.add_scalar("train/loss", 0.0, 2048);
  writer.add_scalar("rollout/ep_rew_mean", -3.25, 4096, 1700000123.5);
  EXPECT_EQ(rlzoo::read_event_file(writer.path()).events.size(), 1u) << "scalars are buffered until flush";
  writer.flush();
  writer.close();
  EXPECT_FALSE(writer.is_open());

  // Walk the raw bytes independently of the reader and check both CRCs of every record.
  const std::string bytes = slurp(writer.path());
  std::size_t offset = 0, records = 0;
  while (offset < bytes.size()) {
    ASSERT_LE(offset + 12, bytes.size());
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data() + offset);
    const std::uint64_t len = rlzoo::load_le64(p);
    EXPECT_EQ(rlzoo::load_le32(p + 8), rlzoo::masked_crc32c(p, 8)) << "record " << records;
    ASSERT_LE(offset + 16 + len, bytes.size());
    EXPECT_EQ(rlzoo::load_le32(p + 12 + len), rlzoo::masked_crc32c(p + 12, len)) << "record " << records;
    if (records == 1) {
      EXPECT_EQ(bytes.substr(offset + 12, len), from_hex(kScalarEventHex)) << "the notes' 42 bytes";
    }
    offset += 16 + len;
    ++records;
  }
  EXPECT_EQ(offset, bytes.size());
  EXPECT_EQ(records, 4u);

  const auto file = rlzoo::read_event_file(writer.path());
  ASSERT_EQ(file.events.size(), 4u);
  const auto points = rlzoo::scalar_points(file.events);
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[0].tag, "rollout/ep_rew_mean");
  EXPECT_EQ(points[0].step, 2048);
  EXPECT_EQ(points[0].value, 1.5f);
  EXPECT_EQ(points[1].tag, "train/loss");
  EXPECT_EQ(points[1].value, 0.0f);
  EXPECT_EQ(points[2].value, -3.25f);
  EXPECT_DOUBLE_EQ(points[2].wall_time, 1700000123.5);
  EXPECT_EQ(rlzoo::scalar_points(file.events, "train/loss").size(), 1u);

  EXPECT_THROW(writer.add_scalar("late", 1, 1), rlzoo::UserError);
  EXPECT_EQ(rlzoo::find_event_files(dir.parent_path().parent_path()), std::vector<fs::path>{writer.path()});
}

TEST(TensorBoardWriter, WritersInTheSameSecondGetDistinctFiles) {
  const fs::path dir = rlzoo::test::make_temp_dir("rlzoo-tb");
  rlzoo::EventFileWriter a(dir, fixed_clock(1700000000.0));
  rlzoo::EventFileWriter b(dir, fixed_clock(1700000000.0));
  EXPECT_NE(a.path(), b.path());
  EXPECT_EQ(rlzoo::find_event_files(dir).size(), 2u);
}

TEST(TensorBoardReader, ToleratesATruncatedLastRecord) {
  const fs::path dir = rlzoo::test::make_temp_dir("rlzoo-tb");
  fs::path path;
  {
    rlzoo::EventFileWriter w(dir, fixed_clock(1700000000.0));
    w.add_scalar("a", 1, 1);
    path = w.path();
  }
  const std::string whole = slurp(path);
  const std::string next = rlzoo::frame_tfrecord(from_hex(kScalarEventHex));
  // Cut inside the data, and inside the 12-byte header: both are "still being written".
  for (std::size_t keep : {next.size() - 1, std::size_t{20}, std::size_t{5}}) {
    spit(path, whole + next.substr(0, keep));
    const auto file = rlzoo::read_event_file(path);
    EXPECT_EQ(file.events.size(), 2u) << keep;
    EXPECT_TRUE(file.truncated) << keep;
    EXPECT_EQ(file.truncated_offset, whole.size()) << keep;
    EXPECT_THAT(file.truncation_message, HasSubstr("offset " + std::to_string(whole.size()))) << keep;
    EXPECT_THAT(file.truncation_message, HasSubstr(path.string()));
  }
  spit(path, whole);
  EXPECT_FALSE(rlzoo::read_event_file(path).truncated);
}

TEST(TensorBoardReader, FlippedDataByteNamesFileAndOffset) {
  const fs::path dir = rlzoo::test::make_temp_dir("rlzoo-tb");
  fs::path path;
  {
    rlzoo::EventFileWriter w(dir, fixed_clock(1700000000.0));
    w.add_scalar("rollout/ep_rew_mean", 1.5, 2048);
    w.add_scalar("rollout/ep_rew_mean", 2.5, 4096);
    path = w.path();
  }
  std::string bytes = slurp(path);
  const auto records = rlzoo::parse_tfrecords(bytes, "x").records;
  ASSERT_EQ(records.size(), 3u);
  const std::uint64_t third = records[2].offset;
  bytes[third + 12 + 5] ^= 0x01;  // inside the third record's data
  spit(path, bytes);
  try {
    rlzoo::read_event_file(path);
    FAIL() << "a flipped byte must not pass";
  } catch (const rlzoo::UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr(path.string()));
    EXPECT_THAT(e.what(), HasSubstr("bad data CRC in record 2 at offset " + std::to_string(third)));
  }
}

TEST(TensorBoardReader, FlippedLengthByteIsCorruptionNotTruncation) {
  std::string bytes = rlzoo::frame_tfrecord("first") + rlzoo::frame_tfrecord(from_hex(kScalarEventHex));
  const std::size_t second = rlzoo::frame_tfrecord("first").size();
  bytes[second + 1] ^= 0x40;  // the length now claims far more bytes than the file has
  try {
    rlzoo::parse_tfrecords(bytes, "run/events.out.tfevents.x");
    FAIL() << "a damaged length must not be taken for a truncated tail";
  } catch (const rlzoo::UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("run/events.out.tfevents.x"));
    EXPECT_THAT(e.what(), HasSubstr("bad length CRC in record 1 at offset " + std::to_string(second)));
  }
}

TEST(TensorBoardReader, MissingFileIsAUserError) {
  EXPECT_THROW(rlzoo::read_event_file("/nonexistent/events.out.tfevents.1"), rlzoo::UserError);
}

TEST(TensorBoardSink, WritesNumbersAndRespectsExclusions) {
  const fs::path dir = rlzoo::test::make_temp_dir("rlzoo-tb");
  fs::path path;
  {
    rlzoo::Logger logger;
    auto& sink = static_cast<rlzoo::TensorBoardSink&>(
        logger.add_sink(std::make_unique<rlzoo::TensorBoardSink>(dir, fixed_clock(1700000000.0))));
    path = sink.writer().path();
    logger.record("rollout/ep_rew_mean", 21.5);
    logger.record("time/fps", 1234);
    logger.record("note", std::string("strings are not plotted"));
    logger.record_excluded("time/iterations", 1, {"tensorboard"});
    logger.record_excluded("train/n_updates", 10, {"tensorboard"});
    logger.dump(2048);
    // Flushed at the dump: readable while the logger is still open.
    EXPECT_EQ(rlzoo::scalar_points(rlzoo::read_event_file(path).events).size(), 2u);
    logger.record("rollout/ep_rew_mean", 30.0);
    logger.dump(4096);
  }
  const auto points = rlzoo::scalar_points(rlzoo::read_event_file(path).events);
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[0].tag, "rollout/ep_rew_mean");
  EXPECT_EQ(points[0].step, 2048);
  EXPECT_EQ(points[1].tag, "time/fps");
  EXPECT_EQ(points[1].value, 1234.0f);
  EXPECT_EQ(points[2].step, 4096);
  EXPECT_EQ(points[2].value, 30.0f);
}
