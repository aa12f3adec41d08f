// Placeholder until the scheduler lands: every routine load statement answers "not supported yet".
#include "scheduler/routine_load_manager.h"

namespace sluice::scheduler {

class JobRegistry {};

namespace {
Status NotYet() { return Status::NotSupported("routine loads are not available in this build yet"); }
}  // namespace

RoutineLoadManager::RoutineLoadManager(storage::Database&, catalog::Catalog&, SchedulerOptions) {}
RoutineLoadManager::~RoutineLoadManager() = default;
Status RoutineLoadManager::Start() { return Status::Ok(); }
void RoutineLoadManager::Stop() {}
Status RoutineLoadManager::Create(const sql::CreateRoutineLoad&, const std::string&) { return NotYet(); }
Status RoutineLoadManager::Alter(const sql::AlterRoutineLoad&, const std::string&) { return NotYet(); }
Status RoutineLoadManager::Control(const sql::ControlRoutineLoad&, const std::string&) { return NotYet(); }
Result<ResultSet> RoutineLoadManager::Show(const sql::ShowRoutineLoad&, const std::string&) { return NotYet(); }
Result<ResultSet> RoutineLoadManager::ShowTasks(const sql::ShowRoutineLoadTask&, const std::string&) { return NotYet(); }
Result<std::string> RoutineLoadManager::ShowCreate(const sql::ShowCreateRoutineLoad&, const std::string&) { return NotYet(); }
Result<ResultSet> RoutineLoadManager::RejectedRows(const std::string&, const std::string&, int64_t) { return NotYet(); }

}  // namespace sluice::scheduler
