// The cpu device as its tests run it: short timing caps (the tests check
// behaviour, never speed) and a batch of configs built and timed together.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "cpu_device.h"

namespace aoe::cpu::test {

inline nlohmann::json quick(nlohmann::json extra = nlohmann::json::object()) {
  nlohmann::json o = {{"max_seconds", 0.05}, {"max_repeats", 10}};
  o.update(extra);
  return o;
}

inline CpuDevice device(nlohmann::json options = quick()) {
  return CpuDevice(sdk::CreateArgs{"cpu", std::move(options)});
}

inline std::vector<sdk::Measurement> evaluate(sdk::DeviceTask& task, const std::vector<sdk::Config>& configs,
                                              sdk::MeasureOptions options = {1, 3, false}) {
  std::vector<std::unique_ptr<sdk::Candidate>> built;
  std::vector<sdk::Candidate*> batch;
  for (const auto& c : configs) {
    auto b = task.build(c);
    EXPECT_TRUE(b.candidate) << b.failure.message;
    batch.push_back(b.candidate.get());
    built.push_back(std::move(b.candidate));
  }
  return task.measure(batch, options);
}

}  // namespace aoe::cpu::test
