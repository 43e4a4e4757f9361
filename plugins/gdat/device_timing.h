// Times of kernels on the job's device: each distinct op task timed once with
// the device's default config; a task the device does not model is estimated
// as memory-bound at its HBM bandwidth.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "aoe/sdk/tuning_mode.h"

namespace aoe::gdat {

class TaskTimer {
 public:
  explicit TaskTimer(const aoe::sdk::Job& job);

  // A kernel's time; counted as timed or as estimated under its op type.
  double time(const aoe::sdk::OpTask& task);
  size_t timed() const { return timed_; }
  size_t estimated() const { return estimated_; }
  std::string estimated_ops() const;  // "BatchNormalization x53, ..."

 private:
  struct Timing {
    double us = 0;
    bool timed = false;  // else estimated from bytes
  };
  const aoe::sdk::Job& job_;
  double hbm_bytes_per_us_ = 0;
  double launch_us_ = 0;
  std::map<std::string, Timing> by_signature_;  // repeated layers are timed once
  std::map<std::string, size_t> estimated_by_type_;
  size_t timed_ = 0, estimated_ = 0;
};

struct NodeTimes {
  std::vector<double> forward_us;  // per node, graph order
  size_t timed = 0;                // nodes the device timed
  size_t estimated = 0;            // nodes estimated from their bytes
  size_t views = 0;                // reshapes and the like: no kernel, no time
  std::string estimated_ops;       // "BatchNormalization x53, ..."
};

// Forward time of every node of the model: each node as an op task.
NodeTimes forward_times(const aoe::sdk::Job& job);

}  // namespace aoe::gdat
