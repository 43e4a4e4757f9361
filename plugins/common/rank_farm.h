// The ranks of one mpirun as a farm of tuners: rank 0 hands out task numbers
// and takes back each task's outcome as JSON text; the other ranks tune what
// they are given. This is the only place the operator and subgraph modes talk
// MPI; built without MPI, join() says so and the modes run alone.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mpi_launch.h"

namespace aoe::modes {


// What a worker sends rank 0: a finished task, or word that it is still at work.
struct TaskOutcome {
  int rank = 0;
  int64_t task = 0;
  std::string outcome;     // the mode's JSON text
  bool heartbeat = false;  // only word that the rank is alive: no task, no outcome
};

class RankFarm {
 public:
  // Joins MPI when launched under mpirun with more than one rank; else
  // nullptr, and why_not says why (empty when simply run alone).
  // Throws aoe::sdk::Error when launched under mpirun but built without MPI.
  static std::unique_ptr<RankFarm> join(std::string& why_not);
  ~RankFarm();
  RankFarm(const RankFarm&) = delete;
  RankFarm& operator=(const RankFarm&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

  // Every rank's text, in rank order, on rank 0; empty elsewhere.
  std::vector<std::string> gather(const std::string& text) const;
  // Rank 0's text on every rank.
  std::string broadcast(const std::string& text) const;

  // Rank 0: a task number for `rank` to tune, or stop() when there is none left.
  void assign(int rank, int64_t task) const;
  void stop(int rank) const;
  // Rank 0: what a worker has sent, if anything has arrived; receive() waits
  // for it at most timeout_s.
  std::optional<TaskOutcome> poll() const;
  std::optional<TaskOutcome> receive(double timeout_s) const;

  // A worker: the next task number, or nothing once rank 0 says stop.
  std::optional<int64_t> next_task() const;
  void report(int64_t task, const std::string& outcome) const;
  // A worker at work: tells rank 0 it is alive, at most once a second.
  void heartbeat() const;
  // A rank was lost: MPI_Finalize would wait for it forever, so it is skipped.
  void lost_a_rank() const { lost_a_rank_ = true; }

 private:
  RankFarm(int rank, int size) : rank_(rank), size_(size) {}
  int rank_ = 0;
  int size_ = 1;
  mutable double last_heartbeat_s_ = 0;
  mutable bool lost_a_rank_ = false;
};

}  // namespace aoe::modes
