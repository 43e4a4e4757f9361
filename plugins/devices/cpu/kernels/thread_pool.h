// A fork-join pool of std::threads: the caller and its workers split tasks
// of one parallel region, pulling runs of task indices from a shared counter.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace aoe::cpu {

class ThreadPool {
 public:
  // `threads` counts the caller: a pool of 1 runs everything inline.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  // Runs body(task, thread) for every task in [0, tasks) on up to `threads`
  // threads (thread 0 is the caller) and returns when all are done. It
  // waits only for tasks a thread has taken: on a busy machine a worker
  // that is off its core leaves its share to the others.
  void run(int64_t tasks, int threads, const std::function<void(int64_t, int)>& body);

  // With `awake`, workers spin between regions however long the gap, rather
  // than sleeping after a while: for a model run, whose kernels on one thread
  // would otherwise leave them to sleep and each later region to wait for the
  // wake-up (tens of µs on a virtual machine), as ONNX Runtime's spinning
  // threads do not. Every kernel runs on the pool (oneDNN's and OpenBLAS's
  // too), so no other runtime's threads want the cores they spin on.
  void keep_awake(bool awake);
  // Workers asleep now, waiting for a region.
  int sleeping_workers();

  // The CPU the creating thread ran on when the pool was made, and the one
  // worker `id` (1..size()-1) was moved to as it started; -1 where the pool
  // left the OS to place it, or (for a worker) it has not started yet.
  int creator_cpu() const { return creator_cpu_; }
  int started_on(int id) const { return started_on_[static_cast<size_t>(id)].load(std::memory_order_acquire); }

 private:
  struct Region {
    const std::function<void(int64_t, int)>* body = nullptr;
    int64_t tasks = 0;
    int threads = 0;
    uint32_t generation = 0;
    int64_t chunk = 1;  // tasks a thread takes at once
  };
  void work(int id);
  void take_tasks(const Region& region, int id);

  std::vector<std::thread> workers_;
  int creator_cpu_ = -1;
  std::vector<std::atomic<int>> started_on_;  // by worker id; [0] is the caller's, unused
  std::mutex mutex_;  // guards region_ and sleepers_
  std::condition_variable wake_;
  Region region_;
  int sleepers_ = 0;
  // What spinning workers read, the counter threads take tasks from, and the
  // count of tasks done each have a cache line of their own: a write to one
  // does not pull the others away from the cores polling them.
  alignas(64) std::atomic<uint32_t> generation_{0};
  std::atomic<bool> stop_{false};
  std::atomic<bool> awake_{false};  // keep_awake()
  // (generation << 32) | next task: a worker holding an old region can
  // never take a task of a newer one.
  alignas(64) std::atomic<uint64_t> next_{0};
  alignas(64) std::atomic<int64_t> done_{0};
};

// The threads this process may run on: its CPU affinity, else the online CPUs.
int available_threads();

// [lo, hi) of part `t` of `parts` over [0, size) in whole blocks of `unit`
// (the last block may be short): parts differ by at most one block.
struct BlockRange {
  int64_t lo = 0, hi = 0;
};
inline BlockRange block_part(int64_t size, int64_t unit, int64_t parts, int64_t t) {
  const int64_t blocks = (size + unit - 1) / unit;
  return {std::min(size, blocks * t / parts * unit), std::min(size, blocks * (t + 1) / parts * unit)};
}
// The parts `threads` threads split [0, size) into: one per thread, at most
// one per block, at least one.
inline int block_parts(int64_t size, int64_t unit, int threads) {
  return static_cast<int>(std::clamp<int64_t>(threads, 1, std::max<int64_t>((size + unit - 1) / unit, 1)));
}

}  // namespace aoe::cpu
