#include "storage/write_gate.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <thread>

#include <unistd.h>

#include "storage/database.h"

namespace sluice::storage {
namespace {

using Mode = WriteGate::Mode;
using namespace std::chrono_literals;

TEST(WriteGateTest, LikeClaimsAndOtherTablesDoNotConflict) {
  using C = std::vector<WriteGate::Claim>;
  EXPECT_FALSE(WriteGate::Conflicts(C{{"t", Mode::kUpdate}}, C{{"t", Mode::kUpdate}}));
  EXPECT_FALSE(WriteGate::Conflicts(C{{"t", Mode::kAppend}}, C{{"t", Mode::kAppend}}));
  EXPECT_FALSE(WriteGate::Conflicts(C{{"t", Mode::kUpdate}}, C{{"u", Mode::kAppend}}));
  EXPECT_TRUE(WriteGate::Conflicts(C{{"t", Mode::kUpdate}}, C{{"t", Mode::kAppend}}));
  EXPECT_TRUE(WriteGate::Conflicts(C{{"t", Mode::kExclusive}}, C{{"t", Mode::kExclusive}}));
  EXPECT_TRUE(WriteGate::Conflicts(C{{"*", Mode::kUpdate}}, C{{"u", Mode::kAppend}}));
  EXPECT_TRUE(WriteGate::Conflicts(C{{"u", Mode::kAppend}, {"t", Mode::kAppend}}, C{{"t", Mode::kUpdate}}));
}

TEST(WriteGateTest, AnUpdateWaitsForAnAppendingCommitOfTheSameTable) {
  WriteGate gate;
  auto append = std::make_unique<WriteGate::Hold>(gate.Acquire({{"t", Mode::kAppend}}));
  WriteGate::Hold other_table = gate.Acquire({{"u", Mode::kUpdate}});  // does not wait
  std::atomic<bool> updated{false};
  std::thread update([&] {
    WriteGate::Hold h = gate.Acquire({{"t", Mode::kUpdate}});
    updated = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(updated.load());
  append.reset();
  update.join();
  EXPECT_TRUE(updated.load());
}

TEST(WriteGateTest, WaitersAreServedInArrivalOrder) {
  WriteGate gate;
  auto first_append = std::make_unique<WriteGate::Hold>(gate.Acquire({{"t", Mode::kAppend}}));
  std::atomic<bool> updated{false};
  std::thread update([&] {
    WriteGate::Hold h = gate.Acquire({{"t", Mode::kUpdate}});
    updated = true;
    std::this_thread::sleep_for(20ms);
  });
  std::this_thread::sleep_for(50ms);
  // A later append waits behind the waiting update instead of overtaking it, so appends cannot starve updates.
  std::atomic<bool> appended_before_update{false};
  std::thread late_append([&] {
    WriteGate::Hold h = gate.Acquire({{"t", Mode::kAppend}});
    appended_before_update = !updated.load();
  });
  std::this_thread::sleep_for(50ms);
  first_append.reset();
  update.join();
  late_append.join();
  EXPECT_FALSE(appended_before_update.load());
}

// The race the gate exists for, on a database file (an in-memory database did not show it): without the gate,
// DuckDB 1.4.4 invalidated the database after 46 and 967 inserts in two of three runs of a program of this shape,
// and this test failed in 3 of 5 runs.
TEST(WriteGateTest, UpdatesBesideCommittingInsertsKeepTheDatabaseWorking) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("sluice-write-gate-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto db = Database::Open((dir / "test.db").string());
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto setup = (*db)->Connect();
  ASSERT_TRUE(setup.ok());
  ASSERT_TRUE((*setup)->Execute("CREATE TABLE p (job BIGINT, part INT, next_offset BIGINT, loaded BIGINT, note VARCHAR);"
                                "INSERT INTO p VALUES (1, 0, 0, 0, NULL)").ok());
  auto inserter = (*db)->Connect();
  auto updater = (*db)->Connect();
  ASSERT_TRUE(inserter.ok() && updater.ok());
  constexpr int kInserts = 1000;
  std::atomic<bool> done{false};
  auto updates = std::async(std::launch::async, [&]() -> Status {
    int64_t n = 0;
    while (!done) {
      RETURN_IF_ERROR((*updater)->Execute("UPDATE p SET next_offset = next_offset + 1, loaded = loaded + 3 "
                                          "WHERE job = 1"));
      n++;
    }
    return n > 0 ? Status::Ok() : Status::Internal("no update ran");
  });
  Status inserts;
  for (int i = 2; i < kInserts && inserts.ok(); i++) {
    const std::string row = "(" + std::to_string(i) + ", 0, 0, 0, NULL)";
    inserts = i % 2 ? (*inserter)->Execute("INSERT INTO p VALUES " + row)
                    : InTransaction(**inserter, [&] { return (*inserter)->Execute("INSERT INTO p VALUES " + row); });
  }
  done = true;
  Status st = updates.get();
  EXPECT_TRUE(inserts.ok()) << inserts.ToString();
  EXPECT_TRUE(st.ok()) << st.ToString();
  auto count = (*setup)->Query("SELECT count(*) FROM p");
  ASSERT_TRUE(count.ok()) << count.status().ToString();
  EXPECT_EQ(*count->result_set->rows[0][0], std::to_string(kInserts - 1));
  setup->reset();
  inserter->reset();
  updater->reset();
  db->reset();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sluice::storage
