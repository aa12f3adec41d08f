// SHOW NODES: the nodes of the cluster as its PostgreSQL database knows them (serve --cluster), or the one local
// node on a server of its own, in the same columns (docs/cluster.md).
#include "common/log.h"
#include "executor/result_rows.h"
#include "executor/sql_session.h"
#include "scheduler/routine_load_manager.h"

namespace sluice {

Result<StatementResult> SqlSession::ShowNodes() {
  if (nodes_ == nullptr) return Status::NotSupported("SHOW NODES is not available in this embedded engine");
  ASSIGN_OR_RETURN(std::vector<cluster::NodeRow> nodes, nodes_->ListNodes());
  ResultSet rs;
  for (const char* c : {"Name", "Address", "State", "LastHeartbeat", "StartedAt", "Version", "Leases",
                         "Decommissioned", "Jobs", "Partitions", "Held"})
    rs.AddColumn(c);
  rs.columns[3].type = ValueType::kTimestamp;
  rs.columns[4].type = ValueType::kTimestamp;
  rs.columns[6].type = ValueType::kBigInt;
  rs.columns[8].type = ValueType::kBigInt;
  rs.columns[9].type = ValueType::kBigInt;
  for (const auto& n : nodes) {
    // The jobs are named by the scheduler, which knows every cluster job (the same on every node).
    scheduler::HeldWork work = routine_loads_.DescribeHeld(n.held);
    rs.rows.push_back({n.name, n.address, n.state, n.last_heartbeat, n.started_at, n.version, std::to_string(n.leases),
                       n.decommissioned ? "true" : "false", std::to_string(work.jobs), std::to_string(work.partitions),
                       work.held});
  }
  return Rows(std::move(rs));
}

Result<StatementResult> SqlSession::DecommissionNode(const sql::DecommissionNode& s) {
  if (nodes_ == nullptr) return Status::NotSupported("DECOMMISSION is not available in this embedded engine");
  if (s.drop) {
    RETURN_IF_ERROR(nodes_->DropNode(s.name));
    log::Info("session", "conn {}: node '{}' dropped from the cluster (its row and its leases are gone)",
              connection_id_, s.name);
    return StatementResult{};
  }
  RETURN_IF_ERROR(nodes_->SetDecommissioned(s.name, !s.cancel));
  log::Info("session", "conn {}: node '{}' {}", connection_id_, s.name,
            s.cancel ? "is no longer decommissioned: it takes a share of the work again"
                     : "is decommissioned: its work moves to the other nodes");
  return StatementResult{};
}

}  // namespace sluice
