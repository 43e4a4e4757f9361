// The host kernels of problems/ compute what their CUDA kernels compute for
// every config, from the launch, source and data the T1 reader makes; their
// times are deterministic with a clear optimum. They are found in the
// double's registry, linked here with them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "argument_data.h"
#include "host_kernel.h"
#include "host_kernel_registry.h"
#include "kernel_source.h"
#include "t1_launch.h"
#include "parameter_space.h"
#include "t1_problem.h"

namespace aoe::cuda {
namespace {

using cuda_double::HostKernel;
using cuda_double::HostLaunch;
using nlohmann::json;

const std::filesystem::path kProblems = AOE_T1_PROBLEMS_DIR;

// One config's launch as the cuda device would make it: the buffers hold
// the arguments' initial data, the symbols the Constant arguments'.
struct Launch {
  std::vector<std::vector<std::byte>> data;
  std::vector<unsigned long long> addresses;
  std::vector<void*> params;
  std::map<std::string, std::vector<std::byte>> symbols;
  HostLaunch host;

  Launch(const T1Problem& p, const std::vector<json>& values) {
    const LaunchGeometry g = t1_launch(p, values);
    std::istringstream source(t1_kernel_source(p, values, g));
    // The config's defines come before `#line 1`; the file's own fallbacks (under #ifndef) after.
    for (std::string line; std::getline(source, line) && line != "#line 1";) {
      std::istringstream words(line);
      std::string directive, name, value;
      if (words >> directive >> name >> value && directive == "#define") host.defines[name] = value;
    }
    host.grid = {g.grid[0], g.grid[1], g.grid[2]};
    host.block = {g.block[0], g.block[1], g.block[2]};
    host.shared_bytes = g.shared_bytes;
    for (const auto& a : p.arguments) {
      data.push_back(t1_initial_data(a, 42));
      if (a.constant_memory) symbols[a.name] = data.back();
    }
    addresses.resize(data.size());
    for (size_t i = 0; i < data.size(); ++i) {
      addresses[i] = reinterpret_cast<uintptr_t>(data[i].data());
      params.push_back(p.arguments[i].scalar ? static_cast<void*>(data[i].data()) : &addresses[i]);
    }
    host.params = params.data();
    host.symbol = [this](const std::string& name) -> void* {
      const auto it = symbols.find(name);
      return it == symbols.end() ? nullptr : it->second.data();
    };
  }

  template <typename T>
  std::vector<T> values_of(size_t i) const {
    std::vector<T> out(data[i].size() / sizeof(T));
    std::memcpy(out.data(), data[i].data(), data[i].size());
    return out;
  }
};

const HostKernel& kernel(const std::string& name) {
  const auto* found = cuda_double::find_host_kernel(name);
  if (!found) throw std::runtime_error("no host kernel " + name);
  return *found;
}

// The valid configs of a problem's space, as the parameters' values.
std::vector<std::vector<json>> valid_configs(const T1Problem& p) {
  const replay::ParameterSpace space(p.parameters);
  std::vector<std::vector<json>> out;
  sdk::for_each_config(space.space(), [&](const sdk::Config& c) {
    if (space.check(c).ok()) out.push_back(space.values(c));
  });
  return out;
}

TEST(HostKernelsT1, TheConvolutionComputesWhatTheKernelDoesForEveryShape) {
  const T1Problem p = read_t1_problem(kProblems / "convolution_small.json");
  const auto configs = valid_configs(p);
  ASSERT_GT(configs.size(), 100u);
  std::vector<float> expected;
  for (size_t i = 0; i < configs.size(); i += 29) {
    Launch launch(p, configs[i]);
    if (expected.empty()) {
      const auto in = launch.values_of<float>(1);
      const auto filter = launch.values_of<float>(2);
      expected.assign(256 * 256, 0.0f);
      for (int y = 0; y < 256; ++y)
        for (int x = 0; x < 256; ++x) {
          float sum = 0.0f;
          for (int fi = 0; fi < 5; ++fi)
            for (int fj = 0; fj < 5; ++fj) sum += in[(y + fi) * 260 + x + fj] * filter[fi * 5 + fj];
          expected[y * 256 + x] = sum;
        }
    }
    kernel("convolution_kernel").run(launch.host);
    ASSERT_EQ(launch.values_of<float>(0), expected) << "config " << json(configs[i]).dump();
  }
}

TEST(HostKernelsT1, TheVectorAddAddsForEveryConfig) {
  const T1Problem p = read_t1_problem(kProblems / "vector_add.json");
  for (const auto& values : valid_configs(p)) {
    Launch launch(p, values);
    kernel("vector_add").run(launch.host);
    const auto c = launch.values_of<float>(0), a = launch.values_of<float>(1), b = launch.values_of<float>(2);
    for (size_t i = 0; i < c.size(); ++i)
      ASSERT_EQ(c[i], a[i] + b[i]) << "element " << i << " of " << json(values).dump();
  }
}

// Deterministic, positive, and a clear optimum that is neither the default
// nor the corner of any one parameter's range.
void expect_a_clear_optimum(const std::string& problem, const std::string& name) {
  const T1Problem p = read_t1_problem(kProblems / problem);
  std::vector<std::pair<double, std::vector<json>>> times;
  for (const auto& values : valid_configs(p)) {
    Launch launch(p, values);
    const double t = kernel(name).time_ms(launch.host);
    ASSERT_TRUE(std::isfinite(t) && t > 0) << json(values).dump();
    ASSERT_EQ(t, kernel(name).time_ms(Launch(p, values).host));
    times.emplace_back(t, values);
  }
  std::sort(times.begin(), times.end());
  const double best = times.front().first, median = times[times.size() / 2].first;
  EXPECT_LT(best, 0.75 * median) << name;
  EXPECT_LT(best, times[1].first) << name << ": the optimum is not unique";
  std::vector<json> defaults;
  for (const auto& parameter : p.parameters.parameters) defaults.push_back(*parameter.default_value);
  EXPECT_NE(times.front().second, defaults) << name;
  std::cout << name << ": best " << best << " ms at " << json(times.front().second).dump() << ", median " << median
            << " ms, worst " << times.back().first << " ms over " << times.size() << " configs\n";
}

TEST(HostKernelsT1, TimesHaveAClearOptimum) {
  expect_a_clear_optimum("convolution_small.json", "convolution_kernel");
  expect_a_clear_optimum("vector_add.json", "vector_add");
}

}  // namespace
}  // namespace aoe::cuda
