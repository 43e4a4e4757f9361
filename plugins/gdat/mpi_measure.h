// Real measurement under mpirun: every rank replays the backward timeline by
// the clock and issues MPI_Iallreduce of each segment's real bytes once its
// last gradient is ready; the slowest rank's end of communication, past the
// end of backward, is the measured tail. Also a sweep of allreduce sizes that
// calibrates the cost model.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cluster.h"
#include "gradient_profile.h"
#include "mpi_launch.h"
#include "split.h"

namespace aoe::gdat {

using modes::Launch;
using modes::launch_from_environment;

// True when the plugin was built with MPI.
bool measurement_built();

struct ReplayResult {
  double comm_end_us = 0;  // median over steps of the slowest rank's last allreduce end
  double tail_us = 0;      // comm_end - backward, at least 0
  std::vector<double> steps_us;  // every timed step's comm_end
  bool cancelled = false;
};

class MpiWorld {
 public:
  // Joins MPI when launched under mpirun and built with it; else nothing, and why.
  static std::unique_ptr<MpiWorld> join(std::string& why_not);
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // Rank 0's text on every rank.
  std::string broadcast(const std::string& text) const;
  // Blocking allreduce time per size: the slowest rank's median of `repeats`.
  std::vector<TablePoint> calibrate(const std::vector<double>& sizes, int repeats) const;
  // cancelled is asked on rank 0 only; every rank stops together.
  ReplayResult replay(const GradientProfile& profile, const Split& split, int warmup, int steps,
                      const std::function<bool()>& cancelled) const;

 private:
  MpiWorld(int rank, int size) : rank_(rank), size_(size) {}
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace aoe::gdat
