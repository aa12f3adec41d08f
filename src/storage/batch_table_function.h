#pragma once
// Lets SQL read a TextBatch in place: `SELECT ... FROM sluice_batch(<id>)` yields the batch's columns as VARCHAR
// plus `__sluice_row` (the row's index, to find its origin for error rows). This is how a load's transform runs
// in DuckDB over the decoded rows without copying them into a staging table (DESIGN.md decision 4).
//
// The id names a place, not a batch: the batch is looked up when a run of the statement starts (DuckDB's init),
// so a statement prepared once over `sluice_batch(<slot>)` reads whichever batch is published under the slot at
// each run (Connection::BatchSlot, Connection::QueryPrepared). Its columns are those of the batch published when
// the statement was bound; a run over a batch of other columns fails.
#include <cstdint>

#include "common/status.h"
#include "common/text_batch.h"
#include "storage/database.h"

namespace sluice::storage {

inline constexpr const char* kBatchFunctionName = "sluice_batch";
inline constexpr const char* kBatchRowColumn = "__sluice_row";

// Makes sluice_batch(id) callable on this connection. Safe to call more than once.
Status RegisterBatchTableFunction(Connection& con);

// A new id for sluice_batch(), never handed out before.
int64_t NewBatchId();

// Publishes a batch under an id for as long as the handle lives; the batch must outlive it.
class BatchHandle {
 public:
  // Under a new id.
  explicit BatchHandle(const TextBatch& batch);
  // Under `slot` (Connection::BatchSlot): one batch at a time per slot.
  BatchHandle(const TextBatch& batch, int64_t slot);
  ~BatchHandle();
  BatchHandle(const BatchHandle&) = delete;
  BatchHandle& operator=(const BatchHandle&) = delete;
  int64_t id() const { return id_; }

 private:
  int64_t id_;
};

}  // namespace sluice::storage
