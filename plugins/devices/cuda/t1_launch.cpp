#include "t1_launch.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "aoe/sdk/error.h"

namespace aoe::cuda {
namespace {

using replay::Number;
using sdk::Error;
using sdk::StatusCode;

const char* const kBlockNames[3] = {"block_size_x", "block_size_y", "block_size_z"};
const char* const kGridDivKeys[3] = {"GridDivX", "GridDivY", "GridDivZ"};

[[noreturn]] void fail(const T1Problem& p, const std::string& why) {
  throw Error(StatusCode::invalid_argument, "T1 problem " + p.path.string() + ": " + why);
}

Number number_of(const nlohmann::json& v) {
  if (v.is_number_integer()) return Number::of(v.get<int64_t>());
  if (v.is_number()) return Number::of(v.get<double>());
  if (v.is_boolean()) return Number::of(int64_t{v.get<bool>()});
  return Number{};
}

// The value of parameter `name` as Python's int() gives it, or `otherwise`.
int64_t parameter(const T1Problem& p, const std::vector<nlohmann::json>& values, const std::string& name,
                  int64_t otherwise) {
  const auto names = p.parameters.names();
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) return otherwise;
  const nlohmann::json& v = values.at(static_cast<size_t>(it - names.begin()));
  if (!v.is_number() && !v.is_boolean())
    fail(p, "parameter '" + name + "' is " + v.dump() + ", not a number of threads");
  const Number n = number_of(v);
  if (n.is_int) return n.i;
  const double whole = std::trunc(n.f);
  // int64_t holds [-2^63, 2^63): past that the conversion is undefined.
  if (!(whole >= -0x1p63 && whole < 0x1p63))
    fail(p, "parameter '" + name + "' is " + v.dump() + ", not a number of threads");
  return static_cast<int64_t>(whole);
}

unsigned dimension(const T1Problem& p, double v, const std::string& what) {
  if (!(v >= 1) || v > std::numeric_limits<unsigned>::max())
    fail(p, what + " is " + std::to_string(v) + ", not a launch dimension: check the parameters' values");
  return static_cast<unsigned>(v);
}

}  // namespace

LaunchGeometry t1_launch(const T1Problem& p, const std::vector<nlohmann::json>& values) {
  if (values.size() != p.parameters.parameters.size())
    fail(p, "a config gives " + std::to_string(values.size()) + " values for " +
                std::to_string(p.parameters.parameters.size()) + " parameters");
  std::vector<Number> numbers;
  for (const auto& v : values) numbers.push_back(number_of(v));
  LaunchGeometry g;
  const int64_t block_default[3] = {256, 1, 1};
  for (size_t d = 0; d < 3; ++d) {
    g.block[d] =
        dimension(p, static_cast<double>(parameter(p, values, kBlockNames[d], block_default[d])), kBlockNames[d]);
    double divisor = 1;
    if (p.grid_div[d].empty()) {
      divisor = static_cast<double>(parameter(p, values, kBlockNames[d], 1));
    } else {
      for (const auto& e : p.grid_div[d]) {
        const Number n = e.evaluate(numbers);
        divisor *= n.is_int ? static_cast<double>(n.i) : std::trunc(n.f);
      }
    }
    if (!(divisor > 0))
      fail(p, std::string(kGridDivKeys[d]) + " divides by " + std::to_string(divisor) +
                  " for this config: a grid divisor must be positive");
    const double size = d < p.problem_size.size() ? static_cast<double>(p.problem_size[d]) : 1.0;
    g.grid[d] = dimension(p, std::ceil(size / divisor), std::string("the grid's ") + "xyz"[d] + " dimension");
  }
  g.shared_bytes = p.shared_memory_bytes;
  return g;
}

}  // namespace aoe::cuda
