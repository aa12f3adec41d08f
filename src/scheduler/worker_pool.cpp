#include "scheduler/worker_pool.h"

#include "transform/query_functions.h"
#include "storage/batch_table_function.h"

namespace sluice::scheduler {

Result<std::unique_ptr<WorkerPool>> WorkerPool::Start(storage::Database& db, int threads) {
  auto pool = std::unique_ptr<WorkerPool>(new WorkerPool());
  for (int i = 0; i < threads; i++) {
    ASSIGN_OR_RETURN(auto con, db.Connect());
    // Tasks read their decoded rows through sluice_batch(); it is registered before any task runs.
    RETURN_IF_ERROR(storage::RegisterBatchTableFunction(*con));
    // Volume pipes run their SELECT here; it may call the MySQL/StarRocks functions queries know. (Load SQL
    // compiled by transform/ never calls them by these names, so defining them changes none of it.)
    for (const std::string& macro : transform::QueryFunctionMacros()) RETURN_IF_ERROR(con->Execute(macro));
    pool->connections_.push_back(std::move(con));
  }
  for (auto& con : pool->connections_) pool->threads_.emplace_back([p = pool.get(), c = con.get()] { p->Loop(*c); });
  return pool;
}

WorkerPool::~WorkerPool() { Stop(); }

void WorkerPool::Submit(Work work) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    queue_.push_back(std::move(work));
  }
  cv_.notify_one();
}

void WorkerPool::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    queue_.clear();
  }
  cv_.notify_all();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
}

void WorkerPool::Loop(storage::Connection& con) {
  while (true) {
    Work work;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      work = std::move(queue_.front());
      queue_.pop_front();
    }
    work(con);
  }
}

}  // namespace sluice::scheduler
