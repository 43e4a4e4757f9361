// The fork-join pool: every task of every region runs exactly once, on a
// thread the region allows, however the regions follow each other.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "thread_pool.h"

namespace aoe::cpu {
namespace {

TEST(ThreadPool, EveryTaskRunsOnceInEveryRegion) {
  ThreadPool pool(4);
  EXPECT_EQ(pool.size(), 4);
  for (int region = 0; region < 3000; ++region) {
    const int64_t tasks = region % 37;
    const int threads = 1 + region % 5;
    std::vector<std::atomic<int>> hits(static_cast<size_t>(tasks));
    std::atomic<int> bad_thread{0};
    pool.run(tasks, threads, [&](int64_t t, int thread) {
      hits[static_cast<size_t>(t)].fetch_add(1);
      if (thread < 0 || thread >= std::min(threads, pool.size())) bad_thread.fetch_add(1);
    });
    for (const auto& h : hits) ASSERT_EQ(h.load(), 1) << "region " << region;
    ASSERT_EQ(bad_thread.load(), 0);
  }
}

// A thread takes runs of consecutive tasks, a few per thread and region, not
// one task at a time: every take moves the shared counter between cores.
TEST(ThreadPool, ThreadsTakeRunsOfTasks) {
  ThreadPool pool(2);
  for (int region = 0; region < 50; ++region) {
    std::vector<int> by(4096, -1);
    pool.run(4096, 2, [&](int64_t t, int thread) { by[static_cast<size_t>(t)] = thread; });
    int runs = 1;
    for (size_t t = 1; t < by.size(); ++t) runs += by[t] != by[t - 1];
    ASSERT_LE(runs, 16) << "region " << region;
  }
}

// A worker starts on a CPU other than its creator's (left to the OS, a new
// thread may share its creator's CPU for tens of milliseconds), and is not
// pinned there: its CPUs are the process's. Where either runs later is the
// OS's to say (on a busy machine both may share a CPU again), so the test
// reads where the worker ran while it was held to one CPU.
TEST(ThreadPool, AWorkerStartsOnAnotherCpuAndMayMoveOn) {
  cpu_set_t process;
  ASSERT_EQ(sched_getaffinity(0, sizeof process, &process), 0);
  if (CPU_COUNT(&process) < 2) GTEST_SKIP() << "this process may run on one CPU only";
  ThreadPool pool(2);
  ASSERT_GE(pool.creator_cpu(), 0);
  std::atomic<int> arrived{0};
  cpu_set_t worker_cpus;
  CPU_ZERO(&worker_cpus);
  // Two tasks, each waiting for the other: the worker must run one.
  pool.run(2, 2, [&](int64_t, int thread) {
    if (thread == 1) pthread_getaffinity_np(pthread_self(), sizeof worker_cpus, &worker_cpus);
    arrived.fetch_add(1);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (arrived.load() < 2 && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
  });
  ASSERT_EQ(arrived.load(), 2);
  const int started_on = pool.started_on(1);
  ASSERT_GE(started_on, 0);
  EXPECT_TRUE(CPU_ISSET(started_on, &process));
  EXPECT_NE(started_on, pool.creator_cpu());
  EXPECT_TRUE(CPU_EQUAL(&worker_cpus, &process));
}

TEST(ThreadPool, APoolOfOneRunsInline) {
  ThreadPool pool(1);
  std::vector<int> order;
  pool.run(5, 8, [&](int64_t t, int thread) {
    EXPECT_EQ(thread, 0);
    order.push_back(static_cast<int>(t));
  });
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
}

// Kept awake, a worker never sleeps between regions; released, it sleeps
// after its spin.
TEST(ThreadPool, AWorkerKeptAwakeSleepsOnlyWhenReleased) {
  ThreadPool pool(3);
  const auto region = [&] { pool.run(16, 3, [](int64_t, int) {}); };
  const auto wait_for_sleepers = [&](int want) {
    for (int i = 0; i < 10000 && pool.sleeping_workers() != want; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return pool.sleeping_workers();
  };
  pool.keep_awake(true);
  region();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // far past any spin
  EXPECT_EQ(pool.sleeping_workers(), 0);
  pool.keep_awake(false);
  EXPECT_EQ(wait_for_sleepers(2), 2);
  region();
}

// Parts of a range in whole blocks: they cover it in order, each starts on a
// block, and none has more than one block over another.
TEST(ThreadPool, BlockPartsCoverTheRangeInWholeBlocks) {
  for (int64_t size : {1, 15, 16, 70, 768, 3072})
    for (int64_t unit : {8, 16})
      for (int threads : {1, 2, 3, 8}) {
        const int parts = block_parts(size, unit, threads);
        EXPECT_EQ(parts, std::min<int64_t>(threads, (size + unit - 1) / unit));
        int64_t next = 0, fewest = size, most = 0;
        for (int t = 0; t < parts; ++t) {
          const auto [lo, hi] = block_part(size, unit, parts, t);
          EXPECT_EQ(lo, next);
          EXPECT_EQ(lo % unit, 0);
          EXPECT_GT(hi, lo);
          fewest = std::min(fewest, hi - lo);
          most = std::max(most, hi - lo);
          next = hi;
        }
        EXPECT_EQ(next, size);
        EXPECT_LE(most - fewest, unit) << size << " in " << parts << " parts of " << unit;
      }
}

}  // namespace
}  // namespace aoe::cpu
