#include "server/prepared_statements.h"

#include <utility>

namespace sluice::server {

uint32_t PreparedStatements::Add(PreparedStatement statement) {
  if (statements_.size() >= kMaxPerConnection) return 0;
  uint32_t id = next_id_++;
  if (next_id_ == 0) next_id_ = 1;  // 0 is never an id
  statements_.emplace(id, std::move(statement));
  return id;
}

PreparedStatement* PreparedStatements::Find(uint32_t id) {
  auto it = statements_.find(id);
  return it == statements_.end() ? nullptr : &it->second;
}

}  // namespace sluice::server
