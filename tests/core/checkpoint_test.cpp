// Checkpoint directories: writer/reader round trip, validation messages, crash safety of the
// commit, and the manager's rotation, `latest` pointer and fallback.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "core/checkpoint/manager.h"
#include "core/checkpoint/reader.h"
#include "core/checkpoint/writer.h"
#include "core/common/error.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// The UserError message thrown by f, or a marker that makes the expectation fail readably.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "<no UserError thrown>";
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void spit(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

// Entries of `dir` whose names start with '.' (temp / moved-aside directories).
std::vector<std::string> hidden_entries(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().starts_with(".")) out.push_back(e.path().filename().string());
  return out;
}

const std::string kModel = std::string("weights\0with\0nul bytes", 22) + std::string(1000, 'w');

CheckpointWriter sample_writer(const std::string& model = kModel) {
  CheckpointWriter w({{"algo", "ppo"}, {"env_steps", 4096}});
  w.add("model.pt", model);
  w.add("empty.bin", "");
  w.add_json("counters.json", {{"updates", 7}, {"episodes", 3}});
  return w;
}

class CheckpointTest : public ::testing::Test {
 protected:
  fs::path root_ = test::make_temp_dir("rlzoo-ckpt");
  fs::path dir_ = root_ / "ckpt";
  void TearDown() override { fs::remove_all(root_); }
};

TEST_F(CheckpointTest, RoundTripsFilesAndMetadata) {
  sample_writer().commit(dir_);
  const CheckpointReader r = CheckpointReader::open(dir_);
  EXPECT_THAT(r.names(), ElementsAre("counters.json", "empty.bin", "model.pt"));
  EXPECT_EQ(r.read("model.pt"), kModel);
  EXPECT_EQ(r.read("empty.bin"), "");
  EXPECT_EQ(r.read_json("counters.json")["updates"], 7);
  EXPECT_TRUE(r.has("model.pt"));
  EXPECT_FALSE(r.has("optim.pt"));
  EXPECT_EQ(r.metadata()["algo"], "ppo");
  EXPECT_EQ(r.metadata()["env_steps"], 4096);
  EXPECT_EQ(r.rlzoo_version(), RLZOO_VERSION);
  EXPECT_EQ(r.created_at().size(), 20u);  // 2024-05-01T12:34:56Z
  EXPECT_EQ(r.manifest()["files"]["model.pt"]["size"], kModel.size());
  EXPECT_THAT(hidden_entries(root_), IsEmpty());
  EXPECT_THAT(error_of([&] { r.read("optim.pt"); }),
              AllOf(HasSubstr(dir_.string()), HasSubstr("no file 'optim.pt'"), HasSubstr("model.pt")));
}

TEST_F(CheckpointTest, TruncatedFileIsNamed) {
  sample_writer().commit(dir_);
  fs::resize_file(dir_ / "model.pt", 1000);
  EXPECT_THAT(error_of([&] { CheckpointReader::open(dir_); }),
              AllOf(HasSubstr(dir_.string()),
                    HasSubstr("model.pt is truncated: expected " + std::to_string(kModel.size()) +
                              " bytes, found 1000")));
}

TEST_F(CheckpointTest, FlippedByteIsNamed) {
  sample_writer().commit(dir_);
  std::string bytes = slurp(dir_ / "model.pt");
  bytes[500] ^= 0x01;
  spit(dir_ / "model.pt", bytes);
  EXPECT_THAT(error_of([&] { CheckpointReader::open(dir_); }),
              AllOf(HasSubstr(dir_.string()), HasSubstr("model.pt is corrupted: CRC-32C")));
}

TEST_F(CheckpointTest, ChangeAfterOpenIsCaughtByRead) {
  sample_writer().commit(dir_);
  const CheckpointReader r = CheckpointReader::open(dir_);
  std::string bytes = slurp(dir_ / "model.pt");
  bytes[0] ^= 0x40;
  spit(dir_ / "model.pt", bytes);
  EXPECT_THAT(error_of([&] { r.read("model.pt"); }), HasSubstr("model.pt is corrupted"));
}

TEST_F(CheckpointTest, MissingManifestIsNamed) {
  sample_writer().commit(dir_);
  fs::remove(dir_ / "manifest.json");
  EXPECT_THAT(error_of([&] { CheckpointReader::open(dir_); }),
              AllOf(HasSubstr(dir_.string()), HasSubstr("manifest.json is missing")));
}

TEST_F(CheckpointTest, UnparsableManifestIsNamed) {
  sample_writer().commit(dir_);
  spit(dir_ / "manifest.json", "{\"format_version\": 1, \"files\": ");
  EXPECT_THAT(error_of([&] { CheckpointReader::open(dir_); }),
              AllOf(HasSubstr(dir_.string()), HasSubstr("manifest.json is not valid JSON")));
}

// Found by fuzz/fuzz_checkpoint_manifest: a number too large for a double made nlohmann throw
// out_of_range (not parse_error), which escaped as an internal error.
TEST_F(CheckpointTest, ManifestWithANumberTooLargeIsNamed) {
  sample_writer().commit(dir_);
  spit(dir_ / "manifest.json", "{\"format_version\": 55E555}");
  EXPECT_THAT(error_of([&] { CheckpointReader::open(dir_); }),
              AllOf(HasSubstr(dir_.string()), HasSubstr("manifest.json is not valid JSON"), HasSubstr("55E555")));
}

TEST_F(CheckpointTest, ManifestFromNewerFormatIsRejected) {
  sample_writer().commit(dir_);
  auto manifest = nlohmann::json::parse(slurp(dir_ / "manifest.json"));
  manifest["format_version"] = 99;
  spit(dir_ / "manifest.json", manifest.dump());
  EXPECT_THAT(error_of([&] { CheckpointReader::open(dir_); }), HasSubstr("format_version 99"));
}

TEST_F(CheckpointTest, ManifestCannotPointOutsideTheDirectory) {
  sample_writer().commit(dir_);
  auto manifest = nlohmann::json::parse(slurp(dir_ / "manifest.json"));
  manifest["files"]["../escape"] = {{"size", 0}, {"crc32c", "00000000"}};
  spit(dir_ / "manifest.json", manifest.dump());
  EXPECT_THAT(error_of([&] { CheckpointReader::open(dir_); }), HasSubstr("invalid file name '../escape'"));
}

TEST_F(CheckpointTest, MissingFileIsNamed) {
  sample_writer().commit(dir_);
  fs::remove(dir_ / "model.pt");
  EXPECT_THAT(error_of([&] { CheckpointReader::open(dir_); }),
              AllOf(HasSubstr(dir_.string()), HasSubstr("model.pt is missing")));
}

TEST_F(CheckpointTest, MissingDirectoryIsNamed) {
  EXPECT_THAT(error_of([&] { CheckpointReader::open(root_ / "nope"); }),
              AllOf(HasSubstr((root_ / "nope").string()), HasSubstr("does not exist")));
}

TEST_F(CheckpointTest, WriterRejectsBadNames) {
  CheckpointWriter w;
  EXPECT_THAT(error_of([&] { w.add("../model.pt", "x"); }), HasSubstr("'../model.pt'"));
  EXPECT_THAT(error_of([&] { w.add("manifest.json", "x"); }), HasSubstr("reserved"));
  EXPECT_THAT(error_of([&] { w.add(".hidden", "x"); }), HasSubstr("may not start with '.'"));
  w.add("a", "x");
  EXPECT_THAT(error_of([&] { w.add("a", "y"); }), HasSubstr("added twice"));
  EXPECT_THAT(error_of([&] { CheckpointWriter(nlohmann::json::array()); }), HasSubstr("must be a JSON object"));
}

TEST_F(CheckpointTest, SavingOverAnExistingDirectoryReplacesIt) {
  sample_writer("old").commit(dir_);
  spit(dir_ / "stray.txt", "not in the new checkpoint");
  sample_writer("new").commit(dir_);
  const CheckpointReader r = CheckpointReader::open(dir_);
  EXPECT_EQ(r.read("model.pt"), "new");
  EXPECT_FALSE(fs::exists(dir_ / "stray.txt"));
  EXPECT_THAT(hidden_entries(root_), IsEmpty());
}

TEST_F(CheckpointTest, CrashBeforeRenameLeavesNothingNew) {
  for (CommitStage stage : {CommitStage::kFilesWritten, CommitStage::kBeforeRename}) {
    CheckpointWriter w = sample_writer();
    w.set_fault_hook([stage](CommitStage s) {
      if (s == stage) throw std::runtime_error("simulated crash");
    });
    EXPECT_THROW(w.commit(dir_), std::runtime_error);
    EXPECT_FALSE(fs::exists(dir_));
    EXPECT_THAT(hidden_entries(root_), IsEmpty());
  }
}

TEST_F(CheckpointTest, CrashWhileReplacingKeepsThePreviousCheckpoint) {
  sample_writer("old").commit(dir_);
  // With the atomic exchange (the default) and with the two-rename fallback.
  for (bool exchange : {true, false}) {
    for (CommitStage stage : {CommitStage::kFilesWritten, CommitStage::kBeforeRename, CommitStage::kOldMovedAside}) {
      if (exchange && stage == CommitStage::kOldMovedAside) continue;  // no such moment
      CheckpointWriter w = sample_writer("new");
      w.use_rename_exchange(exchange);
      w.set_fault_hook([stage](CommitStage s) {
        if (s == stage) throw std::runtime_error("simulated crash");
      });
      EXPECT_THROW(w.commit(dir_), std::runtime_error);
      EXPECT_EQ(CheckpointReader::open(dir_).read("model.pt"), "old");
      EXPECT_THAT(hidden_entries(root_), IsEmpty());
    }
  }
}

TEST_F(CheckpointTest, ReplacingExchangesAtomicallyWithoutAMomentAside) {
  sample_writer("old").commit(dir_);
  std::vector<CommitStage> seen;
  CheckpointWriter w = sample_writer("new");
  w.set_fault_hook([&](CommitStage s) { seen.push_back(s); });
  w.commit(dir_);
  EXPECT_THAT(seen, ElementsAre(CommitStage::kFilesWritten, CommitStage::kBeforeRename));
  EXPECT_EQ(CheckpointReader::open(dir_).read("model.pt"), "new");
  EXPECT_THAT(hidden_entries(root_), IsEmpty());
  // The fallback passes through the moment without final_dir.
  seen.clear();
  w.use_rename_exchange(false);
  w.commit(dir_);
  EXPECT_THAT(seen, ElementsAre(CommitStage::kFilesWritten, CommitStage::kBeforeRename, CommitStage::kOldMovedAside));
  EXPECT_EQ(CheckpointReader::open(dir_).read("model.pt"), "new");
}

// ---- CheckpointManager ----

TEST_F(CheckpointTest, ManagerNamesDirectoriesByZeroPaddedStep) {
  EXPECT_EQ(CheckpointManager::dir_name(42), "ckpt_000000000042");
  EXPECT_EQ(CheckpointManager::dir_name(1234567890123), "ckpt_1234567890123");
  EXPECT_THAT(error_of([&] { CheckpointManager(root_, 0); }), HasSubstr("keep_last must be at least 1"));
  CheckpointManager m(root_);
  EXPECT_THAT(error_of([&] { m.save(-1, sample_writer()); }), HasSubstr("step must be >= 0"));
}

TEST_F(CheckpointTest, ManagerWithoutCheckpointsHasNoLatest) {
  const CheckpointManager m(root_ / "run");
  const LatestCheckpoint l = m.latest();
  EXPECT_FALSE(l.reader.has_value());
  EXPECT_EQ(l.step, -1);
  EXPECT_THAT(l.warnings, IsEmpty());
}

TEST_F(CheckpointTest, ManagerKeepsTheLastN) {
  CheckpointManager m(root_ / "run", 3);
  for (std::int64_t step = 100; step <= 600; step += 100) m.save(step, sample_writer(std::to_string(step)));
  EXPECT_THAT(m.steps(), ElementsAre(400, 500, 600));
  EXPECT_EQ(m.pointer(), "ckpt_000000000600");
  EXPECT_EQ(slurp(root_ / "run" / "latest"), "ckpt_000000000600\n");
  const LatestCheckpoint l = m.latest();
  ASSERT_TRUE(l.reader.has_value());
  EXPECT_EQ(l.step, 600);
  EXPECT_EQ(l.reader->read("model.pt"), "600");
  EXPECT_THAT(l.warnings, IsEmpty());
  EXPECT_THAT(hidden_entries(root_ / "run"), IsEmpty());
}

TEST_F(CheckpointTest, ManagerFallsBackWhenTheNewestIsCorrupt) {
  CheckpointManager m(root_ / "run", 3);
  m.save(1, sample_writer("one"));
  m.save(2, sample_writer("two"));
  fs::resize_file(m.dir_for(2) / "model.pt", 1);
  const LatestCheckpoint l = m.latest();
  ASSERT_TRUE(l.reader.has_value());
  EXPECT_EQ(l.step, 1);
  EXPECT_EQ(l.reader->read("model.pt"), "one");
  ASSERT_EQ(l.warnings.size(), 1u);
  EXPECT_THAT(l.warnings[0], AllOf(HasSubstr("ckpt_000000000002"), HasSubstr("model.pt is truncated")));
}

TEST_F(CheckpointTest, ManagerSurvivesACrashBetweenTempWriteAndRename) {
  CheckpointManager m(root_ / "run", 3);
  m.save(1, sample_writer("one"));
  CheckpointWriter w = sample_writer("two");
  w.set_fault_hook([](CommitStage s) {
    if (s == CommitStage::kBeforeRename) throw std::runtime_error("simulated crash");
  });
  EXPECT_THROW(m.save(2, w), std::runtime_error);
  EXPECT_THAT(m.steps(), ElementsAre(1));
  EXPECT_EQ(m.pointer(), "ckpt_000000000001");
  const LatestCheckpoint l = m.latest();
  ASSERT_TRUE(l.reader.has_value());
  EXPECT_EQ(l.step, 1);
  EXPECT_EQ(l.reader->read("model.pt"), "one");
  EXPECT_THAT(l.warnings, IsEmpty());
}

TEST_F(CheckpointTest, ManagerIgnoresAndCleansCrashLeftovers) {
  CheckpointManager m(root_ / "run", 3);
  m.save(1, sample_writer("one"));
  // What a process killed in the middle of save(2) leaves behind.
  const fs::path stray = root_ / "run" / ".ckpt_000000000002.tmp-99999-0";
  fs::create_directory(stray);
  spit(stray / "model.pt", "half");
  spit(root_ / "run" / ".latest.tmp-99999-1", "ckpt_0");
  // Not ours: must survive.
  spit(root_ / "run" / ".keep-me", "user file");

  EXPECT_EQ(m.latest().step, 1);
  EXPECT_TRUE(fs::exists(stray));  // latest() only reads
  m.save(2, sample_writer("two"));
  EXPECT_THAT(hidden_entries(root_ / "run"), ElementsAre(".keep-me"));
  EXPECT_EQ(m.latest().step, 2);
}

TEST_F(CheckpointTest, ManagerFollowsThePointerAfterARollback) {
  CheckpointManager m(root_ / "run", 2);
  m.save(10, sample_writer("ten"));
  m.save(20, sample_writer("twenty"));
  // The run resumed from step 10 and saves step 15: 20 belongs to the abandoned future.
  m.save(15, sample_writer("fifteen"));
  EXPECT_THAT(m.steps(), ElementsAre(10, 15, 20));
  EXPECT_EQ(m.latest().step, 15);
}

TEST_F(CheckpointTest, ManagerWarnsAboutADanglingPointer) {
  CheckpointManager m(root_ / "run", 3);
  m.save(1, sample_writer("one"));
  spit(root_ / "run" / "latest", "ckpt_000000000009\n");
  const LatestCheckpoint l = m.latest();
  EXPECT_EQ(l.step, 1);
  ASSERT_EQ(l.warnings.size(), 1u);
  EXPECT_THAT(l.warnings[0], HasSubstr("does not exist"));
}

TEST_F(CheckpointTest, ManagerSavesOverTheSameStep) {
  CheckpointManager m(root_ / "run", 3);
  m.save(5, sample_writer("first"));
  m.save(5, sample_writer("second"));
  EXPECT_THAT(m.steps(), ElementsAre(5));
  EXPECT_EQ(m.latest().reader->read("model.pt"), "second");
}

}  // namespace
}  // namespace rlzoo
