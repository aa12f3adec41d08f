#pragma once
// SplitWholeJobs: which node runs each job that runs whole on one node (a volume pipe), given the live nodes able
// to run each and the node running it now. Every node computes it from the same leases and gets the same answer,
// so each node only takes what the split gives it and gives up what it gives another (scheduler/cluster_jobs.cpp).
//
// Even and sticky: with n nodes able to run j jobs, each node's share is floor(j / n), and j % n of them run one
// more. A job stays on the node running it while that node is within its share (jobs in id order); the others go,
// in id order, to the eligible node running the fewest so far (ties: the smaller name). So a node that joins takes
// only the jobs above the others' shares, and a job moves only when the split is uneven.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace sluice::cluster {

// `eligible`: job id -> the nodes that may run it (any order; duplicates ignored); `running`: job id -> the node
// holding it now (ignored unless eligible). A job with no eligible node is not in the result.
std::map<int64_t, std::string> SplitWholeJobs(const std::map<int64_t, std::vector<std::string>>& eligible,
                                              const std::map<int64_t, std::string>& running = {});

}  // namespace sluice::cluster
