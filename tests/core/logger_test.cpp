// Logger and its sinks: what reaches each sink, SB3's console table, and SB3's CSV with a
// header that grows when new keys appear.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#include "core/common/error.h"
#include "core/logging/console_sink.h"
#include "core/logging/csv_sink.h"
#include "core/logging/logger.h"
#include "tests/support/test_paths.h"

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;

namespace {

// Remembers every dump it receives.
class RecordingSink : public rlzoo::LogSink {
 public:
  explicit RecordingSink(std::string name) : name_(std::move(name)) {}
  std::string_view name() const override { return name_; }
  void write(std::span<const rlzoo::LogEntry> entries, std::int64_t step) override {
    dumps.push_back({step, {entries.begin(), entries.end()}});
  }
  void close() override { ++closes; }

  struct Dump {
    std::int64_t step;
    std::vector<rlzoo::LogEntry> entries;
  };
  std::vector<Dump> dumps;
  int closes = 0;

 private:
  std::string name_;
};

class ThrowingSink : public rlzoo::LogSink {
 public:
  std::string_view name() const override { return "broken"; }
  void write(std::span<const rlzoo::LogEntry>, std::int64_t) override { throw std::runtime_error("disk full"); }
};

std::vector<std::string> keys(const RecordingSink::Dump& d) {
  std::vector<std::string> out;
  for (const auto& e : d.entries) out.push_back(e.key);
  return out;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

TEST(Logger, DumpSendsSortedValuesToEverySinkAndClears) {
  rlzoo::Logger logger;
  auto& a = static_cast<RecordingSink&>(logger.add_sink(std::make_unique<RecordingSink>("stdout")));
  auto& b = static_cast<RecordingSink&>(logger.add_sink(std::make_unique<RecordingSink>("tensorboard")));
  logger.record("train/loss", 0.5);
  logger.record("rollout/ep_rew_mean", 10.0);
  logger.record("rollout/ep_rew_mean", 12.0);  // replaces
  logger.dump(2048);
  ASSERT_EQ(a.dumps.size(), 1u);
  ASSERT_EQ(b.dumps.size(), 1u);
  EXPECT_EQ(a.dumps[0].step, 2048);
  EXPECT_EQ(keys(a.dumps[0]), (std::vector<std::string>{"rollout/ep_rew_mean", "train/loss"}));
  EXPECT_EQ(std::get<double>(a.dumps[0].entries[0].value), 12.0);
  EXPECT_FALSE(logger.value("train/loss").has_value()) << "dump clears";

  logger.dump(4096);  // nothing recorded: sinks are not called with an empty dump
  EXPECT_EQ(a.dumps.size(), 1u);
}

TEST(Logger, ExcludedKeysNeverReachThatSink) {
  rlzoo::Logger logger;
  auto& console = static_cast<RecordingSink&>(logger.add_sink(std::make_unique<RecordingSink>("stdout")));
  auto& csv = static_cast<RecordingSink&>(logger.add_sink(std::make_unique<RecordingSink>("csv")));
  auto& tb = static_cast<RecordingSink&>(logger.add_sink(std::make_unique<RecordingSink>("tensorboard")));
  logger.record("time/fps", 100);
  logger.record_excluded("time/iterations", 3, {"tensorboard"});
  logger.record_excluded("time/total_timesteps", 2048, {"tensorboard"});
  logger.record_excluded("debug/secret", 1.0, {"log", "csv"});  // "log" is SB3's alias of stdout
  logger.dump(2048);
  EXPECT_EQ(keys(tb.dumps[0]), (std::vector<std::string>{"debug/secret", "time/fps"}));
  EXPECT_EQ(keys(csv.dumps[0]), (std::vector<std::string>{"time/fps", "time/iterations", "time/total_timesteps"}));
  EXPECT_EQ(keys(console.dumps[0]), keys(csv.dumps[0]));
}

TEST(Logger, UnknownExclusionNameIsRejectedWithAHint) {
  rlzoo::Logger logger;
  try {
    logger.record_excluded("time/iterations", 1, {"tensorbord"});
    FAIL() << "a typo must not silently leak the key";
  } catch (const rlzoo::UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("'tensorbord'"));
    EXPECT_THAT(e.what(), HasSubstr("did you mean 'tensorboard'"));
  }
  logger.add_sink(std::make_unique<RecordingSink>("wandb"));
  EXPECT_NO_THROW(logger.record_excluded("x", 1, {"wandb"})) << "a custom sink's name is valid";
}

TEST(Logger, ValueTypesAndMeans) {
  rlzoo::Logger logger;
  logger.record("i", 3);
  logger.record("u", std::size_t{7});
  logger.record("f", 2.5f);
  logger.record("s", "text");
  EXPECT_EQ(std::get<std::int64_t>(*logger.value("i")), 3);
  EXPECT_EQ(std::get<std::int64_t>(*logger.value("u")), 7);
  EXPECT_EQ(std::get<double>(*logger.value("f")), 2.5);
  EXPECT_EQ(std::get<std::string>(*logger.value("s")), "text");

  logger.record_mean("train/loss", 1.0);
  logger.record_mean("train/loss", 2.0);
  logger.record_mean("train/loss", 6.0);
  EXPECT_DOUBLE_EQ(std::get<double>(*logger.value("train/loss")), 3.0);
  logger.dump(1);
  logger.record_mean("train/loss", 5.0);
  EXPECT_DOUBLE_EQ(std::get<double>(*logger.value("train/loss")), 5.0) << "means restart after a dump";
}

TEST(Logger, FailingSinkDoesNotStarveTheOthers) {
  rlzoo::Logger logger;
  logger.add_sink(std::make_unique<ThrowingSink>());
  auto& ok = static_cast<RecordingSink&>(logger.add_sink(std::make_unique<RecordingSink>("stdout")));
  logger.record("a", 1);
  EXPECT_THROW(logger.dump(1), std::runtime_error);
  EXPECT_EQ(ok.dumps.size(), 1u);
  EXPECT_FALSE(logger.value("a").has_value());
}

TEST(Logger, CloseClosesSinksOnce) {
  auto sink = std::make_unique<RecordingSink>("stdout");
  RecordingSink* raw = sink.get();
  {
    rlzoo::Logger logger;
    logger.add_sink(std::move(sink));
    logger.close();
    logger.record("a", 1);
    logger.dump(1);  // after close: goes nowhere
    EXPECT_TRUE(raw->dumps.empty());
    EXPECT_EQ(raw->closes, 1);
  }  // the destructor's close() is a no-op now; `raw` died with the logger
}

TEST(Logger, UnknownFormatListsValidOnes) {
  try {
    rlzoo::make_log_sink("tensorbaord", "/tmp");
    FAIL();
  } catch (const rlzoo::UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("did you mean 'tensorboard'"));
    EXPECT_THAT(e.what(), HasSubstr("stdout, csv, tensorboard"));
  }
}

TEST(LoggerConsoleSink, PrintsSb3BoxedTable) {
  std::ostringstream out;
  rlzoo::Logger logger;
  logger.add_sink(std::make_unique<rlzoo::ConsoleSink>(out));
  logger.record("rollout/ep_len_mean", 22.4);
  logger.record("rollout/ep_rew_mean", 22.4);
  logger.record("time/fps", 1234);
  logger.record_excluded("time/iterations", 1, {"tensorboard"});
  logger.record_excluded("time/total_timesteps", 2048, {"tensorboard"});
  logger.record("train/learning_rate", 0.0003);
  logger.record("train/value_loss", 1234.5678);
  logger.dump(2048);
  EXPECT_EQ(out.str(),
            "---------------------------------\n"
            "| rollout/           |          |\n"
            "|    ep_len_mean     | 22.4     |\n"
            "|    ep_rew_mean     | 22.4     |\n"
            "| time/              |          |\n"
            "|    fps             | 1234     |\n"
            "|    iterations      | 1        |\n"
            "|    total_timesteps | 2048     |\n"
            "| train/             |          |\n"
            "|    learning_rate   | 0.0003   |\n"
            "|    value_loss      | 1.23e+03 |\n"
            "---------------------------------\n");
}

TEST(LoggerConsoleSink, TruncatesLongCellsAndKeepsUngroupedKeys) {
  const std::vector<rlzoo::LogEntry> entries = {
      {"plain", std::int64_t{5}},
      {"x/" + std::string(40, 'k'), std::string(50, 'v')},
  };
  const std::string table = rlzoo::format_kv_table(entries);
  EXPECT_THAT(table, HasSubstr("| plain "));
  EXPECT_THAT(table, HasSubstr("|    " + std::string(30, 'k') + "... | " + std::string(33, 'v') + "... |"));
}

TEST(LoggerConsoleSink, QuietWhenNotVerbose) {
  std::ostringstream out;
  rlzoo::ConsoleSink sink(out, /*verbose=*/false);
  const std::vector<rlzoo::LogEntry> entries = {{"a", 1.0}};
  sink.write(entries, 1);
  EXPECT_EQ(out.str(), "");
}

TEST(LoggerCsvSink, HeaderGrowsAndOldRowsGetEmptyCells) {
  const fs::path path = fs::path(rlzoo::test::make_temp_dir("rlzoo-csv")) / "run" / "progress.csv";
  rlzoo::Logger logger;
  logger.add_sink(std::make_unique<rlzoo::CsvSink>(path));
  logger.record("time/total_timesteps", 100);
  logger.record("rollout/ep_rew_mean", 1.5);
  logger.dump(100);
  EXPECT_EQ(slurp(path), "rollout/ep_rew_mean,time/total_timesteps\n1.5,100\n");

  logger.record("time/total_timesteps", 200);
  logger.record("rollout/ep_rew_mean", 2.0);
  logger.record("train/loss", 0.25);
  logger.record("eval/mean_reward", 9.75);
  logger.dump(200);
  logger.record("time/total_timesteps", 300);
  logger.record("note", "say \"hi\", twice");
  logger.dump(300);
  EXPECT_EQ(slurp(path),
            "rollout/ep_rew_mean,time/total_timesteps,eval/mean_reward,train/loss,note\n"
            "1.5,100,,,\n"
            "2,200,9.75,0.25,\n"
            ",300,,,\"say \"\"hi\"\", twice\"\n");
  EXPECT_FALSE(fs::exists(path.string() + ".tmp"));
}

TEST(LoggerCsvSink, TruncatesAnExistingFile) {
  const fs::path path = fs::path(rlzoo::test::make_temp_dir("rlzoo-csv")) / "progress.csv";
  std::ofstream(path) << "old,stuff\n1,2\n";
  rlzoo::CsvSink sink(path);
  EXPECT_EQ(slurp(path), "");
}

// K7 (docs/reliability.md): a resumed run's log goes on in the same file. Rows after the
// checkpoint's step were logged by lost work and go; a row cut short by a crash goes too.
TEST(LoggerCsvSink, AContinuedLogKeepsTheRowsUpToTheResumedStep) {
  const fs::path path = fs::path(rlzoo::test::make_temp_dir("rlzoo-csv")) / "progress.csv";
  std::ofstream(path) << "\"a,b\",time/total_timesteps\n1,100\n2,200\n3,300\n4,3";
  {
    rlzoo::Logger logger;
    logger.add_sink(std::make_unique<rlzoo::CsvSink>(rlzoo::CsvSink::continued(path, 200)));
    logger.record("time/total_timesteps", 300);
    logger.record("a,b", 5);
    logger.dump(300);
  }
  EXPECT_EQ(slurp(path), "\"a,b\",time/total_timesteps\n1,100\n2,200\n5,300\n");
  // Nothing to continue: a fresh log.
  const fs::path fresh = path.parent_path() / "fresh.csv";
  rlzoo::CsvSink sink = rlzoo::CsvSink::continued(fresh, 500);
  EXPECT_TRUE(sink.columns().empty());
  // A step cell that is not a number is named.
  std::ofstream(path) << "time/total_timesteps\nlots\n";
  EXPECT_THAT(rlzoo::test::error_of([&] { rlzoo::CsvSink::continued(path, 1); }),
              AllOf(HasSubstr(path.string()), HasSubstr("'lots' is not a step number")));
}
