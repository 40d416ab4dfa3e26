//===- Parallel.h - Indexed work on a few threads ---------------*- C++ -*-===//
//
// What `audit` and `strip` share: items taken in index order by `jobs`
// threads, each result stored at its item's index by the caller, so the
// output never depends on the number of threads.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_SUPPORT_PARALLEL_H
#define AIMODEL_SUPPORT_PARALLEL_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace aimodel::support {

/// Runs `job(i)` for i in [0, count) on up to `jobs` threads (this one
/// included). Once a job returns false, no new job starts.
inline void forEachIndex(size_t count, unsigned jobs,
                         llvm::function_ref<bool(size_t)> job) {
  std::atomic<size_t> next{0};
  std::atomic<bool> stopped{false};
  auto work = [&] {
    for (size_t i; !stopped && (i = next++) < count;)
      if (!job(i))
        stopped = true;
  };
  jobs = unsigned(std::max<size_t>(1, std::min<size_t>(jobs, count)));
  std::vector<std::thread> workers;
  for (unsigned j = 1; j < jobs; ++j)
    workers.emplace_back(work);
  work();
  for (std::thread &worker : workers)
    worker.join();
}

} // namespace aimodel::support

#endif // AIMODEL_SUPPORT_PARALLEL_H
