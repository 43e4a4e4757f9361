// What a cuda task for one of a model's ops (gemm_plan.h, conv_plan.h) is
// fed and must give: the cpu device's reference kernel's inputs, drawn from
// the seed, and its outputs.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "aoe/sdk/op_task.h"
#include "evaluate.h"
#include "kernel_plan.h"

namespace aoe::cuda {

// Past this many multiply-adds the cpu's double-precision reference would
// take minutes (4096^3 is 6.9e10): the default config's outputs are the
// reference instead, as Kernel Tuner checks without an answer.
inline constexpr double kMostReferenceMacs = 4.0e9;

// The inputs, and the expected outputs where the op takes at most kMostReferenceMacs.
cpu::TaskData reference_data(const sdk::OpTask& task, uint64_t seed, double multiply_adds);

std::string bytes_of(const std::vector<float>& values);
ArgumentData buffer(std::string name, std::string bytes, bool output = false);

// A plan's kernel arguments and the outputs they must give.
struct PlanData {
  std::vector<ArgumentData> arguments;
  std::optional<std::string> expected;
};

// PlanData made on first use: a model run prepares every op's plan to look
// its space up in the bank, and measures none of them.
class LazyPlanData {
 public:
  LazyPlanData() = default;
  explicit LazyPlanData(std::function<PlanData()> make) : make_(std::move(make)) {}
  // How it is made, where that is known only after construction; before its first use.
  void made_by(std::function<PlanData()> make) { make_ = std::move(make); }
  const PlanData& get() const {
    std::call_once(once_, [&] { data_ = make_(); });
    return data_;
  }

 private:
  std::function<PlanData()> make_;
  mutable std::once_flag once_;
  mutable PlanData data_;
};

}  // namespace aoe::cuda
