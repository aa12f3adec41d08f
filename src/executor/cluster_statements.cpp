// SHOW NODES: the nodes of the cluster as its PostgreSQL database knows them (serve --cluster), or the one local
// node on a server of its own, in the same columns (docs/cluster.md).
#include "executor/result_rows.h"
#include "executor/sql_session.h"

namespace sluice {

Result<StatementResult> SqlSession::ShowNodes() {
  if (nodes_ == nullptr) return Status::NotSupported("SHOW NODES is not available in this embedded engine");
  ASSIGN_OR_RETURN(std::vector<cluster::NodeRow> nodes, nodes_->ListNodes());
  ResultSet rs;
  for (const char* c : {"Name", "Address", "State", "LastHeartbeat", "StartedAt", "Version", "Leases"}) rs.AddColumn(c);
  rs.columns[3].type = ValueType::kTimestamp;
  rs.columns[4].type = ValueType::kTimestamp;
  rs.columns[6].type = ValueType::kBigInt;
  for (const auto& n : nodes) {
    rs.rows.push_back({n.name, n.address, n.state, n.last_heartbeat, n.started_at, n.version, std::to_string(n.leases)});
  }
  return Rows(std::move(rs));
}

}  // namespace sluice
