#include "thread_pool.h"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>

namespace aoe::cpu {
namespace {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

// Spinning this long (a pause is ~40-140 cycles) before sleeping keeps the
// wake-up of back-to-back regions off the futex path.
constexpr int kSpins = 20000;

// Runs of tasks each thread takes per region, about: every take moves the
// counter's cache line between cores (a fraction of a µs on a virtual
// machine, as much as a small task), while a thread that starts late (woken
// from sleep) still finds runs left to take.
constexpr int64_t kClaimsPerThread = 4;

// Moves the calling thread onto `cpu`, then gives it back every CPU of
// `allowed`: the OS stays free to move it later, but it starts where asked.
// Returns the CPU it ran on while held to `cpu` alone, -1 if it could not be.
int start_on(int cpu, const cpu_set_t& allowed) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (pthread_setaffinity_np(pthread_self(), sizeof one, &one) != 0) return -1;
  const int ran_on = sched_getcpu();
  pthread_setaffinity_np(pthread_self(), sizeof allowed, &allowed);
  return ran_on;
}

}  // namespace

int available_threads() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
}

ThreadPool::ThreadPool(int threads) : started_on_(static_cast<size_t>(std::max(1, threads))) {
  // A new thread starts on its creator's CPU, and the OS may leave the two
  // sharing it for tens of milliseconds (seen on a 2-vCPU VM: a two-thread
  // model run's first 20-40 regions at one thread's speed, or slower). Each
  // worker starts on a CPU of its own, the CPUs after the creator's in turn.
  cpu_set_t allowed;
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  for (auto& c : started_on_) c.store(-1, std::memory_order_relaxed);
  creator_cpu_ = sched_getcpu();
  const auto creator = std::find(cpus.begin(), cpus.end(), creator_cpu_);
  const bool apart = creator != cpus.end() && threads <= static_cast<int>(cpus.size());
  const auto first = creator - cpus.begin();
  for (int id = 1; id < std::max(1, threads); ++id) {
    const int cpu = apart ? cpus[static_cast<size_t>(first + id) % cpus.size()] : -1;
    workers_.emplace_back([this, id, cpu, allowed] {
      if (cpu >= 0) started_on_[static_cast<size_t>(id)].store(start_on(cpu, allowed), std::memory_order_release);
      work(id);
    });
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true, std::memory_order_release);
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::take_tasks(const Region& r, int id) {
  const uint64_t tag = static_cast<uint64_t>(r.generation) << 32;
  for (;;) {
    uint64_t state = next_.load(std::memory_order_acquire);
    if ((state & ~uint64_t{0xffffffff}) != tag) return;  // a newer region
    const auto task = static_cast<int64_t>(state & 0xffffffff);
    if (task >= r.tasks) return;
    const int64_t count = std::min(r.chunk, r.tasks - task);
    if (!next_.compare_exchange_weak(state, state + static_cast<uint64_t>(count), std::memory_order_acq_rel)) continue;
    for (int64_t t = task; t < task + count; ++t) (*r.body)(t, id);
    done_.fetch_add(count, std::memory_order_release);
  }
}

void ThreadPool::work(int id) {
  uint32_t seen = 0;
  for (;;) {
    for (int spins = 0; generation_.load(std::memory_order_acquire) == seen &&
                        (spins < kSpins || awake_.load(std::memory_order_relaxed));
         ++spins)
      cpu_relax();
    Region r;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (generation_.load(std::memory_order_acquire) == seen) {
        ++sleepers_;
        wake_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
        --sleepers_;
      }
      if (stop_.load(std::memory_order_acquire)) return;
      r = region_;
      seen = generation_.load(std::memory_order_acquire);
    }
    if (id < r.threads) take_tasks(r, id);
  }
}

void ThreadPool::run(int64_t tasks, int threads, const std::function<void(int64_t, int)>& body) {
  threads = static_cast<int>(std::min<int64_t>({static_cast<int64_t>(threads), size(), tasks}));
  if (threads <= 1 || workers_.empty()) {
    for (int64_t t = 0; t < tasks; ++t) body(t, 0);
    return;
  }
  Region r;
  int sleeping;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    r = {&body, tasks, threads, region_.generation + 1, std::max<int64_t>(1, tasks / (threads * kClaimsPerThread))};
    region_ = r;
    done_.store(0, std::memory_order_relaxed);
    next_.store(static_cast<uint64_t>(r.generation) << 32, std::memory_order_release);
    generation_.store(r.generation, std::memory_order_release);
    sleeping = sleepers_;
  }
  if (sleeping) wake_.notify_all();
  take_tasks(r, 0);
  // On a busy machine a worker may be off its core mid-task: stop spinning and yield to it.
  for (int spins = 0; done_.load(std::memory_order_acquire) < tasks; ++spins) {
    if (spins < kSpins) cpu_relax();
    else std::this_thread::yield();
  }
}

void ThreadPool::keep_awake(bool awake) { awake_.store(awake, std::memory_order_relaxed); }

int ThreadPool::sleeping_workers() {
  std::lock_guard<std::mutex> lock(mutex_);
  return sleepers_;
}

}  // namespace aoe::cpu
