// A conv layer's training-step kernels on the cpu device: the forward Conv,
// its data gradient (Conv2DBackpropInput) and its weight gradient
// (Conv2DBackpropFilter), each at its default config and at the best of a
// small random search, timed in turns; every timed config is first checked
// against the reference.
//
//   cpu_conv_grad_bench [--n N] [--c C] [--hw HW] [--configs K] [--threads T]
//
// Defaults: ResNet-50's 64 -> 64 3x3 layer on 56x56 (conv2_x), N = 1.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cpu_op.h"
#include "evaluate.h"
#include "host_cpu.h"
#include "thread_pool.h"
#include "timing.h"

namespace aoe::cpu {
namespace {

struct Args {
  int64_t n = 1, c = 64, hw = 56;
  int configs = 12, threads = 0;
};

sdk::TensorDesc f32(Shape s) {
  sdk::TensorDesc t;
  t.shape = std::move(s);
  t.dtype = sdk::DType::f32;
  return t;
}

sdk::OpTask task_of(const std::string& type, std::vector<sdk::TensorDesc> inputs, nlohmann::json attrs) {
  sdk::OpTask t;
  t.name = type;
  t.op_type = type;
  t.inputs = std::move(inputs);
  t.attrs = std::move(attrs);
  return t;
}

// Configs checked against the reference; a wrong one is reported and dropped.
struct Row {
  std::string name;
  double gflop = 0;
  std::unique_ptr<CpuOp> op;
  TaskData data;
  std::vector<BoundKernel> kernels;  // [0] the default, then the search's
  std::vector<sdk::Config> configs;
};

void add_checked(Row& row, const sdk::Config& c, ThreadPool& pool) {
  BoundKernel k = bind_kernel(*row.op, c, row.data);
  k.kernel->run(pool);
  for (size_t o = 0; o < row.data.expected.size(); ++o) {
    std::vector<float> got(row.data.expected[o].size());
    k.kernel->read_output(o, got.data());
    if (const auto why = compare(got.data(), row.data.expected[o].data(), static_cast<int64_t>(got.size()), {}); !why.empty()) {
      std::printf("  %s: %s is wrong: %s\n", row.name.c_str(), row.op->space().describe(c).dump().c_str(), why.c_str());
      return;
    }
  }
  row.kernels.push_back(std::move(k));
  row.configs.push_back(c);
}

int run(const Args& a) {
  HostCpu host = detect_host_cpu();
  if (a.threads > 0) host.threads = std::min(a.threads, host.threads);
  ThreadPool pool(host.threads);
  const nlohmann::json conv = {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}};
  nlohmann::json input = conv;
  input["input_size"] = {a.hw, a.hw};
  const Shape x = {a.n, a.c, a.hw, a.hw}, w = {a.c, a.c, 3, 3};
  const double gflop = 2.0 * static_cast<double>(a.n * a.c * a.c * 9 * a.hw * a.hw) * 1e-9;
  std::vector<Row> rows(3);
  rows[0].name = "Conv (forward)";
  rows[0].op = make_op(task_of("Conv", {f32(x), f32(w)}, conv), host);
  rows[1].name = "Conv2DBackpropInput";
  rows[1].op = make_op(task_of("Conv2DBackpropInput", {f32(x), f32(w)}, input), host);
  rows[2].name = "Conv2DBackpropFilter";
  rows[2].op = make_op(task_of("Conv2DBackpropFilter", {f32(x), f32(x)}, conv), host);
  std::printf("N=%lld %lld->%lld 3x3 pad 1 on %lldx%lld, %d threads, %.2f GFLOP each; best of %d random configs\n",
              static_cast<long long>(a.n), static_cast<long long>(a.c), static_cast<long long>(a.c),
              static_cast<long long>(a.hw), static_cast<long long>(a.hw), host.threads, gflop, a.configs);
  std::mt19937_64 rng(1);
  for (auto& row : rows) {
    row.gflop = gflop;
    row.data = make_task_data(*row.op, 7);
    add_checked(row, row.op->space().default_config, pool);
    for (int tries = 0; static_cast<int>(row.configs.size()) < a.configs + 1 && tries < a.configs * 50; ++tries) {
      sdk::Config c;
      for (const auto& k : row.op->space().knobs) c.push_back(k.values[rng() % k.values.size()]);
      if (row.op->check(c).empty()) add_checked(row, c, pool);
    }
    std::vector<std::function<void()>> runs;
    for (auto& k : row.kernels) runs.push_back([&k, &pool] { k.kernel->run(pool); });
    TimingOptions options;
    options.max_seconds = 2.0;
    const auto times = time_in_turns(runs, [](size_t) {}, options);
    size_t best = 0;
    for (size_t i = 1; i < times.size(); ++i)
      if (times[i].median_us < times[best].median_us) best = i;
    const double def = times.empty() ? 0 : times[0].median_us;
    std::printf("%-22s default %9.0f us (%5.1f GFLOP/s)   best %9.0f us (%5.1f GFLOP/s, %.2fx)  %s\n", row.name.c_str(), def,
                gflop / def * 1e6, times[best].median_us, gflop / times[best].median_us * 1e6, def / times[best].median_us,
                row.op->space().describe(row.configs[best]).dump().c_str());
  }
  return 0;
}

}  // namespace
}  // namespace aoe::cpu

int main(int argc, char** argv) {
  aoe::cpu::Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const long v = std::strtol(argv[i + 1], nullptr, 10);
    if (k == "--n") a.n = v;
    else if (k == "--c") a.c = v;
    else if (k == "--hw") a.hw = v;
    else if (k == "--configs") a.configs = static_cast<int>(v);
    else if (k == "--threads") a.threads = static_cast<int>(v);
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  return aoe::cpu::run(a);
}
