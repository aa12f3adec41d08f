// StorageHealth's rewording of DuckDB's disk errors, and how clients without administrator rights see it: the
// data directory's path replaced, whichever way it is spelt, and nothing else touched.
#include "storage/storage_health.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace sluice::storage {
namespace {

TEST(StorageHealthTest, DiskFullNamesTheDirectoryAndHidesItForClients) {
  const std::string dir = (std::filesystem::temp_directory_path() / "sluice-health-test").string();
  StorageHealth health(dir, DiskPolicy{0});
  Status full = health.Observe(Status::IoError(
      "IO Error: Could not write file \"" + dir + "/sluice.db.wal\": No space left on device\n\nStack Trace:\n#0 x"));
  ASSERT_EQ(full.code(), StatusCode::kDiskFull);
  // For the operator (and the log): the directory and the file.
  EXPECT_NE(full.message().find("the disk holding " + dir + " has no space left"), std::string::npos) << full.message();
  EXPECT_NE(full.message().find(dir + "/sluice.db.wal"), std::string::npos) << full.message();
  EXPECT_EQ(full.message().find("Stack Trace"), std::string::npos);
  // For other clients: no path of the server, the rest of the advice intact.
  const std::string hidden = health.WithoutDataDirectory(full.message());
  EXPECT_EQ(hidden.find(dir), std::string::npos) << hidden;
  EXPECT_EQ(hidden.find(std::filesystem::temp_directory_path().string()), std::string::npos) << hidden;
  EXPECT_NE(hidden.find("the disk holding <data directory> has no space left"), std::string::npos) << hidden;
  EXPECT_NE(hidden.find("(could not write <data directory>/sluice.db.wal)"), std::string::npos) << hidden;
  EXPECT_NE(hidden.find("nothing of this statement was committed"), std::string::npos) << hidden;
}

TEST(StorageHealthTest, InvalidatedDatabaseAndWriteBlockerHideTheDirectoryToo) {
  const std::string dir = (std::filesystem::temp_directory_path() / "sluice-health-test-2").string();
  StorageHealth health(dir, DiskPolicy{0});
  Status stopped = health.Observe(Status::IoError(
      "FATAL Error: Failed to create checkpoint because of error: Could not write file \"" + dir +
      "/sluice.db\": No space left on device"));
  ASSERT_TRUE(health.invalidated());
  EXPECT_NE(stopped.message().find(dir), std::string::npos) << stopped.message();
  const std::string hidden = health.WithoutDataDirectory(stopped.message());
  EXPECT_EQ(hidden.find(dir), std::string::npos) << hidden;
  EXPECT_NE(hidden.find("<data directory>/sluice.db"), std::string::npos) << hidden;
  const std::string blocker = health.WriteBlocker();
  EXPECT_NE(blocker.find(dir), std::string::npos) << blocker;
  EXPECT_EQ(health.WithoutDataDirectory(blocker).find(dir), std::string::npos);
}

TEST(StorageHealthTest, RelativeDirectoryIsHiddenInEverySpelling) {
  StorageHealth health("data", DiskPolicy{0});
  const std::string absolute = (std::filesystem::current_path() / "data").string();
  EXPECT_EQ(health.WithoutDataDirectory("the disk holding data has no room; could not write " + absolute +
                                        "/sluice.db.wal; the database is fine"),
            "the disk holding <data directory> has no room; could not write <data directory>/sluice.db.wal; the "
            "database is fine");
}

TEST(StorageHealthTest, ReplacesWholePathsOnly) {
  const std::vector<std::string> paths = {"/srv/sluice/data", "data"};
  auto replace = [&](const std::string& m) { return ReplaceDirectories(m, paths, "<d>"); };
  EXPECT_EQ(replace("/srv/sluice/data"), "<d>");
  EXPECT_EQ(replace("\"/srv/sluice/data/sluice.db\": full"), "\"<d>/sluice.db\": full");
  EXPECT_EQ(replace("/srv/sluice/data2 and /x/srv/sluice/data"), "/srv/sluice/data2 and /x/srv/sluice/data");
  EXPECT_EQ(replace("database metadata data."), "database metadata <d>.");
  EXPECT_EQ(replace("/srv/sluice/data.old is another"), "/srv/sluice/data.old is another");
  EXPECT_EQ(replace("(data) data/x my_data"), "(<d>) <d>/x my_data");
  EXPECT_EQ(ReplaceDirectories("/ and . stay", {"/", "."}, "<d>"), "/ and . stay");
}

}  // namespace
}  // namespace sluice::storage
