// Op tasks the cpu device tests build, and helpers to run their configs.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "aoe/sdk/error.h"
#include "aoe/sdk/graph.h"
#include "aoe/sdk/op_task.h"
#include "cpu_op.h"
#include "evaluate.h"
#include "host_cpu.h"
#include "thread_pool.h"

namespace aoe::cpu::test {

inline sdk::TensorDesc f32(std::vector<int64_t> shape, bool constant = false) {
  sdk::TensorDesc t;
  t.shape = std::move(shape);
  t.dtype = sdk::DType::f32;
  t.constant = constant;
  return t;
}

// A tensor of another dtype the device holds (integer indices, a bool mask).
inline sdk::TensorDesc of_dtype(std::vector<int64_t> shape, sdk::DType dtype, bool constant = false) {
  sdk::TensorDesc t = f32(std::move(shape), constant);
  t.dtype = dtype;
  return t;
}

inline sdk::OpTask op(std::string type, std::vector<sdk::TensorDesc> inputs, nlohmann::json attrs = nlohmann::json::object(),
                      std::vector<std::string> fused = {}) {
  sdk::OpTask t;
  t.name = type;
  t.op_type = std::move(type);
  t.inputs = std::move(inputs);
  t.attrs = std::move(attrs);
  t.fused_ops = std::move(fused);
  return t;
}

inline const HostCpu& host() {
  static const HostCpu h = detect_host_cpu();
  return h;
}

// The code make_op() refuses `task` with; ok where it takes it.
inline sdk::StatusCode refusal_code(const sdk::OpTask& task) {
  try {
    make_op(task, host());
  } catch (const sdk::Error& e) {
    return e.code();
  }
  return sdk::StatusCode::ok;
}

// One pool of this CPU's threads for the kernels a test binary runs.
inline ThreadPool& pool() {
  static ThreadPool p(host().threads);
  return p;
}

// The config with knob `name` set to `value` (a label for categorical knobs).
inline sdk::Config with(const sdk::TuningSpace& space, sdk::Config c, const std::string& name, const nlohmann::json& value) {
  for (size_t i = 0; i < space.knobs.size(); ++i) {
    if (space.knobs[i].name != name) continue;
    if (value.is_string()) {
      const auto& labels = space.knobs[i].labels;
      const auto it = std::find(labels.begin(), labels.end(), value.get<std::string>());
      EXPECT_NE(it, labels.end()) << name << " has no label " << value;
      c[i] = it - labels.begin();
    } else {
      c[i] = value.get<int64_t>();
    }
    return c;
  }
  ADD_FAILURE() << "no knob " << name;
  return c;
}

inline int64_t knob(const sdk::TuningSpace& space, const sdk::Config& c, const std::string& name) {
  for (size_t i = 0; i < space.knobs.size(); ++i)
    if (space.knobs[i].name == name) return c[i];
  ADD_FAILURE() << "no knob " << name;
  return -1;
}

// Up to `count` configs the op accepts, drawn with a fixed seed, plus the default.
inline std::vector<sdk::Config> sample_configs(const CpuOp& op, size_t count, uint64_t seed = 1) {
  std::vector<sdk::Config> out{op.space().default_config};
  std::mt19937_64 rng(seed);
  for (size_t tries = 0; out.size() < count + 1 && tries < count * 50; ++tries) {
    sdk::Config c;
    for (const auto& k : op.space().knobs) c.push_back(k.values[rng() % k.values.size()]);
    if (op.check(c).empty()) out.push_back(c);
  }
  return out;
}

// Runs each config on the task's random inputs and compares it with the reference.
inline void expect_matches_reference(const CpuOp& op, const std::vector<sdk::Config>& configs, ThreadPool& pool,
                                     const Tolerance& tolerance = {}) {
  const TaskData data = make_task_data(op, 7);
  std::vector<const float*> in;
  for (const auto& v : data.inputs) in.push_back(v.data());
  for (const auto& c : configs) {
    ASSERT_EQ(op.check(c), "") << op.space().describe(c).dump();
    const auto out = run_once(op, c, in, pool);
    for (size_t i = 0; i < out.size(); ++i)
      EXPECT_EQ(compare(out[i].data(), data.expected[i].data(), static_cast<int64_t>(out[i].size()), tolerance), "")
          << "output " << i << " of " << op.space().describe(c).dump();
  }
}

// The op's output on `inputs` from every threads count, and from its reference.
inline void expect_gives(const sdk::OpTask& task, const std::vector<std::vector<float>>& inputs, const std::vector<float>& want) {
  const auto o = make_op(task, host());
  std::vector<const float*> in;
  for (const auto& v : inputs) in.push_back(v.data());
  std::vector<float> ref(want.size(), -99.0f);
  float* out = ref.data();
  o->reference(in, {out});
  EXPECT_EQ(ref, want) << "reference of " << task.attrs.dump();
  for (int64_t threads = 1; threads <= std::min(host().threads, 3); ++threads) {
    const auto got = run_once(*o, {threads}, in, pool());
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0], want) << "kernel of " << task.attrs.dump() << " on " << threads << " threads";
  }
}

// What make_op says refusing `task`, or "(accepted)".
inline std::string refusal(const sdk::OpTask& task) {
  try {
    make_op(task, host());
  } catch (const sdk::Error& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace aoe::cpu::test
