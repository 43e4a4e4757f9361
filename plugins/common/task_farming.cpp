#include "task_farming.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <numeric>
#include <optional>

#include "aoe/sdk/error.h"

namespace aoe::modes {
namespace {

using aoe::sdk::Error;
using aoe::sdk::StatusCode;
using nlohmann::json;

std::string target_text(const json& target) {
  return "device " + target.value("device", std::string("?")) + " (SoC " + target.value("soc_version", std::string("?")) +
         ")";
}

// The CPUs this process may run on, as mpirun's binding left them.
std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> out;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) out.push_back(cpu);
  return out;
}

std::string host_name() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

// Two ranks of one machine whose CPUs overlap, when measuring on them.
std::string shared_cpus(const std::vector<json>& reports) {
  for (size_t a = 0; a < reports.size(); ++a)
    for (size_t b = a + 1; b < reports.size(); ++b) {
      if (!reports[a].contains("cpus") || reports[a]["host"] != reports[b]["host"]) continue;
      const auto mine = reports[a]["cpus"].get<std::vector<int>>(), theirs = reports[b]["cpus"].get<std::vector<int>>();
      for (int cpu : mine)
        if (std::find(theirs.begin(), theirs.end(), cpu) != theirs.end())
          return "ranks " + std::to_string(a) + " and " + std::to_string(b) + " on " +
                 reports[a]["host"].get<std::string>() + " may both run on CPU " + std::to_string(cpu) +
                 ", which the device measures on: bind each rank to its own cores (mpirun --bind-to core, "
                 "its default for 2 ranks) and run no more ranks on a machine than it has cores";
    }
  return {};
}

// Rank 0's verdict on what every rank reported: empty when they agree.
std::string verdict(const std::vector<std::string>& texts) {
  std::vector<json> reports;
  for (const auto& text : texts) reports.push_back(json::parse(text));
  const json& first = reports.front();
  for (size_t rank = 1; rank < reports.size(); ++rank) {
    const json& other = reports[rank];
    if (other["target"] != first["target"])
      return "rank " + std::to_string(rank) + " tunes for " + target_text(other["target"]) + ", rank 0 for " +
             target_text(first["target"]) + ": every rank of mpirun must tune on the same device and SoC";
    if (other["tasks"] != first["tasks"])
      return "rank " + std::to_string(rank) + " planned " + std::to_string(other["tasks"].size()) +
             " tasks, rank 0 " + std::to_string(first["tasks"].size()) +
             " others: give every rank the same model, options and bank";
  }
  return shared_cpus(reports);
}

}  // namespace

void check_same_target(const RankFarm& farm, const json& target, const std::vector<std::string>& task_ids,
                       bool measures_on_host_cpus) {
  json report = {{"target", target}, {"tasks", task_ids}};
  if (measures_on_host_cpus) report.update({{"host", host_name()}, {"cpus", allowed_cpus()}});
  const auto reports = farm.gather(report.dump());
  const std::string problem = farm.broadcast(farm.rank() == 0 ? verdict(reports) : std::string());
  if (!problem.empty()) throw Error(StatusCode::invalid_argument, problem);
}

std::vector<size_t> largest_first(const std::vector<double>& estimates) {
  std::vector<size_t> order(estimates.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return estimates[a] > estimates[b]; });
  return order;
}

std::vector<size_t> lead_tasks(const RankFarm& farm, const std::vector<size_t>& order, const FarmedRun& run) {
  using Clock = std::chrono::steady_clock;
  std::deque<size_t> pending(order.begin(), order.end());
  const auto ranks = static_cast<size_t>(farm.size());
  std::vector<std::optional<size_t>> busy(ranks);
  std::vector<Clock::time_point> heard(ranks, Clock::now());
  std::vector<bool> lost(ranks, false);
  std::vector<size_t> tuned(ranks, 0), losses(order.size(), 0);
  auto hand_out = [&](int rank) {
    if (pending.empty() || run.cancelled()) return farm.stop(rank);
    busy[static_cast<size_t>(rank)] = pending.front();
    heard[static_cast<size_t>(rank)] = Clock::now();
    farm.assign(rank, static_cast<int64_t>(pending.front()));
    pending.pop_front();
  };
  auto take = [&](const TaskOutcome& got) {
    const auto rank = static_cast<size_t>(got.rank);
    if (rank == 0 || rank >= ranks) throw Error(StatusCode::internal, "a message came from rank " + std::to_string(got.rank));
    if (lost[rank]) return;  // its task went elsewhere
    heard[rank] = Clock::now();
    if (got.heartbeat) return;
    if (!busy[rank] || static_cast<int64_t>(*busy[rank]) != got.task)
      throw Error(StatusCode::internal, "rank " + std::to_string(got.rank) + " reported task " +
                                            std::to_string(got.task) + ", which it was not given");
    busy[rank].reset();
    ++tuned[rank];
    hand_out(got.rank);
    run.finished(static_cast<size_t>(got.task), json::parse(got.outcome), got.rank);
  };
  // A rank silent too long at its task: the task goes back to the front of
  // the queue once, and fails when a second rank is lost on it.
  auto find_lost = [&] {
    if (run.lost_after_s <= 0) return;
    for (size_t rank = 1; rank < ranks; ++rank) {
      if (!busy[rank] || std::chrono::duration<double>(Clock::now() - heard[rank]).count() < run.lost_after_s) continue;
      const size_t task = *busy[rank];
      busy[rank].reset();
      lost[rank] = true;
      farm.lost_a_rank();
      const std::string why = "rank " + std::to_string(rank) + " was lost while tuning it (silent for " +
                              std::to_string(static_cast<int>(run.lost_after_s)) + " s)";
      if (++losses[task] == 1 && !run.cancelled()) {
        if (run.note) run.note(why + "; the task goes to another rank");
        pending.push_front(task);
      } else {
        if (run.note) run.note(why + "; the task is recorded failed");
        run.finished(task, run.failed(task, why), static_cast<int>(rank));
      }
    }
  };
  auto serve = [&] {
    while (auto got = farm.poll()) take(*got);
    find_lost();
  };
  for (int rank = 1; rank < farm.size(); ++rank) hand_out(rank);
  for (;;) {
    serve();
    if (!pending.empty() && !run.cancelled()) {
      const size_t task = pending.front();
      pending.pop_front();
      const json outcome = run.tune_here(task, serve);
      ++tuned[0];
      run.finished(task, outcome, 0);
      continue;
    }
    if (std::none_of(busy.begin(), busy.end(), [](const auto& t) { return t.has_value(); })) break;
    if (auto got = farm.receive(0.5)) take(*got);
  }
  return tuned;
}

void follow_tasks(const RankFarm& farm, size_t task_count, const std::function<json(size_t task)>& tune) {
  while (const auto task = farm.next_task()) {
    if (*task < 0 || static_cast<size_t>(*task) >= task_count)
      throw Error(StatusCode::internal, "rank 0 handed out task " + std::to_string(*task) + " of " +
                                            std::to_string(task_count));
    farm.report(*task, tune(static_cast<size_t>(*task)).dump());
  }
}

}  // namespace aoe::modes
