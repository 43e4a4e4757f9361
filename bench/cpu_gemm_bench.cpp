// The cpu device's GEMM and Conv kernels against OpenBLAS on this machine:
// default config, tuned config (a search inside the bench) and OpenBLAS
// sgemm (im2col + sgemm for Conv), timed side by side, as GFLOP/s and as a
// fraction of the machine's peak, measured with an FMA loop.
//
//   cpu_gemm_bench [--threads N] [--configs N] [--quick] [--gemm-only] [--conv-only] [--only TEXT]
//
// --only keeps the rows whose name contains TEXT.
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "conv.h"
#include "conv_op.h"
#include "cpu_op.h"
#include "evaluate.h"
#include "fma_peak.h"
#include "host_cpu.h"
#include "matmul_op.h"
#include "thread_pool.h"
#include "timing.h"

namespace aoe::cpu {
namespace {

using Clock = std::chrono::steady_clock;

struct Args {
  int threads = 0;
  int configs = 120;
  bool gemm = true, conv = true;
  std::string only;  // keep the rows whose name contains it
  bool wants(const char* row) const { return std::string(row).find(only) != std::string::npos; }
};

// Side-by-side timing: the contenders take turns, round after round, so
// the machine's noise falls on all of them alike; each gets its median.
// A turn is `per_turn` timed runs, after an untimed one where `settle` is
// given; `settle` runs after every turn, untimed.
std::vector<double> race(const std::vector<std::function<void()>>& runs, int rounds, double max_seconds,
                         int per_turn = 1, const std::function<double()>& settle = {}) {
  for (const auto& r : runs) r();  // warm-up
  std::vector<std::vector<double>> samples(runs.size());
  const auto start = Clock::now();
  double settling = 0;  // seconds
  for (int round = 0; round < rounds; ++round) {
    for (size_t i = 0; i < runs.size(); ++i) {
      if (settle) runs[i]();
      for (int k = 0; k < per_turn; ++k) {
        const auto t0 = Clock::now();
        runs[i]();
        samples[i].push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
      }
      if (settle) settling += settle();
    }
    if (round >= 4 && std::chrono::duration<double>(Clock::now() - start).count() - settling > max_seconds) break;
  }
  std::vector<double> medians;
  for (auto& s : samples) medians.push_back(median_of(s));
  return medians;
}

// The race of the default, the tuned config and OpenBLAS. OpenBLAS's
// threads spin (yielding) for 2^28 cycles after a call, about 0.1 s here:
// beside the next contender's threads they would take part of a core from
// it, and the device's pool sleeps after a millisecond. So after each turn
// the pool's threads spin 0.15 s, untimed, while OpenBLAS's park, and every
// turn starts on cores that are busy, not waking from idle.
std::vector<double> race_with_openblas(const std::vector<std::function<void()>>& runs, ThreadPool& pool) {
  static constexpr double kSettle = 0.15;
  auto settle = [&pool] {
    const auto until = Clock::now() + std::chrono::duration<double>(kSettle);
    pool.run(pool.size(), pool.size(), [&](int64_t, int) {
      while (Clock::now() < until) {
      }
    });
    return kSettle;
  };
  return race(runs, 15, 4.0, 3, settle);
}

std::unique_ptr<Kernel> ready(const CpuOp& op, const sdk::Config& c, const std::vector<const float*>& inputs) {
  auto k = op.build(c);
  k->bind(inputs);
  return k;
}

// A simple tuner: random configs the op accepts, then one pass of changing
// each knob of the best to each of its values, every config timed briefly;
// then the five fastest and the default raced against each other,
// interleaved, so a burst of load elsewhere cannot crown a config by luck.
sdk::Config tune(const CpuOp& op, const std::vector<const float*>& inputs, ThreadPool& pool, int budget, int& tried) {
  TimingOptions quick;
  quick.warmup = 1;
  quick.min_repeats = 3;
  quick.max_repeats = 7;
  quick.max_seconds = 0.15;
  quick.stable_within = 0.03;
  auto time_of = [&](const sdk::Config& c) {
    auto k = ready(op, c, inputs);
    return time_kernel([&] { k->run(pool); }, [] {}, quick).median_us;
  };
  const auto& space = op.space();
  std::mt19937_64 rng(2024);
  std::vector<std::pair<double, sdk::Config>> timed;
  auto best = [&]() -> const sdk::Config& {
    return std::min_element(timed.begin(), timed.end(), [](const auto& a, const auto& b) { return a.first < b.first; })->second;
  };
  auto consider = [&](const sdk::Config& c) {
    if (static_cast<int>(timed.size()) >= budget || !op.check(c).empty()) return;
    for (const auto& t : timed)
      if (t.second == c) return;
    timed.emplace_back(time_of(c), c);
  };
  consider(space.default_config);
  for (int tries = 0; static_cast<int>(timed.size()) < budget * 2 / 3 && tries < budget * 100; ++tries) {
    sdk::Config c;
    for (const auto& k : space.knobs) c.push_back(k.values[rng() % k.values.size()]);
    consider(c);
  }
  const sdk::Config centre = best();
  for (size_t k = 0; k < space.knobs.size(); ++k)
    for (auto v : space.knobs[k].values) {
      auto c = centre;
      c[k] = v;
      consider(c);
    }
  tried = static_cast<int>(timed.size());
  std::sort(timed.begin(), timed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  // The default is always a finalist: a tuner keeps the baseline unless something beats it.
  std::vector<sdk::Config> finalists{space.default_config};
  for (size_t i = 0; i < timed.size() && finalists.size() < 6; ++i)
    if (timed[i].second != space.default_config) finalists.push_back(timed[i].second);
  std::vector<std::unique_ptr<Kernel>> kernels;
  std::vector<std::function<void()>> runs;
  for (const auto& c : finalists) kernels.push_back(ready(op, c, inputs));
  for (auto& k : kernels) runs.push_back([&pool, kp = k.get()] { kp->run(pool); });
  const auto t = race(runs, 21, 2.0);
  // Another config replaces the default only when it wins by more than the noise of a race.
  const size_t winner = static_cast<size_t>(std::min_element(t.begin(), t.end()) - t.begin());
  return t[winner] < 0.98 * t[0] ? finalists[winner] : finalists[0];
}

std::vector<float> random_values(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = u(rng);
  return v;
}

sdk::TensorDesc f32(std::vector<int64_t> shape, bool constant = false) {
  sdk::TensorDesc t;
  t.shape = std::move(shape);
  t.constant = constant;
  return t;
}

struct Row {
  std::string name;
  double gflop = 0;
  double def = 0, tuned = 0, blas = 0;  // microseconds
  int tried = 0;
};

void print_header(const char* what, const char* blas) {
  std::printf("\n%-34s %8s %8s %8s %9s %7s %7s %6s  %s\n", what, "default", "tuned", blas, "tuned/def", "t/blas",
              "%peak", "tried", "tuned config");
  std::printf("%-34s %8s %8s %8s\n", "", "GFLOP/s", "GFLOP/s", "GFLOP/s");
}

void print_row(const Row& r, double peak, const std::string& config) {
  auto g = [&](double us) { return r.gflop / us * 1e6; };
  std::printf("%-34s %8.1f %8.1f %8.1f %8.2fx %6.2fx %6.0f%% %6d  %s\n", r.name.c_str(), g(r.def), g(r.tuned), g(r.blas),
              r.def / r.tuned, r.blas / r.tuned, 100 * g(r.tuned) / peak, r.tried, config.c_str());
  std::fflush(stdout);
}

double geomean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += std::log(x);
  return v.empty() ? 0 : std::exp(s / static_cast<double>(v.size()));
}

// "1.23x", or "n/a" where --only left no row.
std::string geomean_text(const std::vector<double>& v) {
  if (v.empty()) return "n/a";
  char text[32];
  std::snprintf(text, sizeof text, "%.2fx", geomean(v));
  return text;
}

// OpenBLAS on exactly the threads the tuned kernels may use, set before
// every call: a tuned kernel running OpenBLAS's sgemm sets it to one (its
// parts run on the device's pool).
void openblas_on(const ThreadPool& pool) { openblas_set_num_threads(pool.size()); }

void bench_gemm(const Args& args, const HostCpu& host, ThreadPool& pool, aoe::bench::BestFmaPeak& peak) {
  struct Shape {
    const char* what;
    int64_t m, n, k;
  };
  const std::vector<Shape> shapes = {
      {"bert-base s128 qkv/out 128x768x768", 128, 768, 768},
      {"bert-base s128 ffn1 128x3072x768", 128, 3072, 768},
      {"bert-base s128 ffn2 128x768x3072", 128, 768, 3072},
      {"bert-base s512 qkv/out 512x768x768", 512, 768, 768},
      {"bert-base s512 ffn1 512x3072x768", 512, 3072, 768},
      {"bert-base s512 ffn2 512x768x3072", 512, 768, 3072},
      {"resnet50 conv2 1x1 3136x64x64", 3136, 64, 64},
      {"resnet50 conv2 3x3 3136x64x576", 3136, 64, 576},
      {"resnet50 conv3 1x1 784x512x128", 784, 512, 128},
      {"resnet50 conv4 3x3 196x256x2304", 196, 256, 2304},
      {"resnet50 conv5 1x1 49x2048x512", 49, 2048, 512},
      {"resnet50 fc 1x1000x2048", 1, 1000, 2048},
      {"square 256", 256, 256, 256},
      {"square 512", 512, 512, 512},
      {"square 1024", 1024, 1024, 1024},
      {"square 2048", 2048, 2048, 2048},
  };
  print_header("GEMM (M x N x K)", "OpenBLAS");
  std::vector<double> over_default, over_blas_large, over_blas_small;
  for (const auto& s : shapes) {
    if (!args.wants(s.what)) continue;
    sdk::OpTask task;
    task.op_type = "MatMul";
    task.inputs = {f32({s.m, s.k}), f32({s.k, s.n})};
    const MatMulOp op(task, host);
    const auto a = random_values(s.m * s.k, 1), b = random_values(s.k * s.n, 2);
    std::vector<float> c(static_cast<size_t>(s.m * s.n));
    const std::vector<const float*> in{a.data(), b.data()};
    Row r{s.what, 2.0 * s.m * s.n * s.k / 1e9};
    const auto best = tune(op, in, pool, args.configs, r.tried);
    auto kd = ready(op, op.space().default_config, in), kt = ready(op, best, in);
    auto blas = [&] {
      openblas_on(pool);
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(s.m), static_cast<int>(s.n),
                  static_cast<int>(s.k), 1.0f, a.data(), static_cast<int>(s.k), b.data(), static_cast<int>(s.n), 0.0f,
                  c.data(), static_cast<int>(s.n));
    };
    const auto t = race_with_openblas({[&] { kd->run(pool); }, [&] { kt->run(pool); }, blas}, pool);
    r.def = t[0], r.tuned = t[1], r.blas = t[2];
    // The tuned kernel must agree with OpenBLAS.
    std::vector<float> got(c.size());
    kt->read_output(0, got.data());
    const auto why = compare(got.data(), c.data(), static_cast<int64_t>(c.size()), Tolerance{});
    print_row(r, peak.refresh(), op.space().describe(best).dump() + (why.empty() ? "" : "  MISMATCH: " + why));
    over_default.push_back(r.def / r.tuned);
    (s.m * s.n * s.k >= int64_t{512} * 512 * 512 && s.m >= 512 && s.n >= 512 ? over_blas_large : over_blas_small)
        .push_back(r.blas / r.tuned);
  }
  if (over_default.empty()) return;  // --only kept none
  std::printf("GEMM geomean: tuned/default %.2fx (median %.2fx); tuned/OpenBLAS %s on large squares and BERT s512, %s on the rest\n",
              geomean(over_default), median_of(over_default), geomean_text(over_blas_large).c_str(),
              geomean_text(over_blas_small).c_str());
}

// im2col into a buffer, then one sgemm per group: the classic baseline.
struct Im2colBlas {
  ConvShape s;
  std::vector<float> col;
  void run(const float* x, const float* w, float* y, const ThreadPool& pool) {
    openblas_on(pool);
    const int64_t cg = s.c / s.group, mg = s.m / s.group, kg = cg * s.kh * s.kw, pixels = s.oh * s.ow;
    col.resize(static_cast<size_t>(kg * pixels));
    for (int64_t n = 0; n < s.n; ++n)
      for (int64_t g = 0; g < s.group; ++g) {
        const float* img = x + (n * s.c + g * cg) * s.h * s.w;
        const float* b = img;
        if (!s.pointwise()) {
          im2col(s, img, col.data());
          b = col.data();
        }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(mg), static_cast<int>(pixels),
                    static_cast<int>(kg), 1.0f, w + g * mg * kg, static_cast<int>(kg), b, static_cast<int>(pixels), 0.0f,
                    y + (n * s.m + g * mg) * pixels, static_cast<int>(pixels));
      }
  }
};

void bench_conv(const Args& args, const HostCpu& host, ThreadPool& pool, aoe::bench::BestFmaPeak& peak) {
  struct Shape {
    const char* what;
    int64_t c, h, m, k, stride, group;
  };
  const std::vector<Shape> shapes = {
      {"resnet50 conv1 7x7/2 3->64 @224", 3, 224, 64, 7, 2, 1},
      {"resnet50 res2 1x1 64->256 @56", 64, 56, 256, 1, 1, 1},
      {"resnet50 res2 3x3 64->64 @56", 64, 56, 64, 3, 1, 1},
      {"resnet50 res3 3x3 128->128 @28", 128, 28, 128, 3, 1, 1},
      {"resnet50 res4 3x3 256->256 @14", 256, 14, 256, 3, 1, 1},
      {"resnet50 res4 1x1 1024->256 @14", 1024, 14, 256, 1, 1, 1},
      {"resnet50 res5 3x3 512->512 @7", 512, 7, 512, 3, 1, 1},
      {"mobilenetv2 conv 3x3/2 3->32 @224", 3, 224, 32, 3, 2, 1},
      {"mobilenetv2 dw 3x3 32 @112", 32, 112, 32, 3, 1, 32},
      {"mobilenetv2 dw 3x3/2 96 @112", 96, 112, 96, 3, 2, 96},
      {"mobilenetv2 dw 3x3 144 @56", 144, 56, 144, 3, 1, 144},
      {"mobilenetv2 pw 1x1 32->16 @112", 32, 112, 16, 1, 1, 1},
      {"mobilenetv2 pw 1x1 144->24 @56", 144, 56, 24, 1, 1, 1},
      {"mobilenetv2 pw 1x1 960->160 @7", 960, 7, 160, 1, 1, 1},
  };
  print_header("Conv2D (batch 1, with bias)", "im2col+BLAS");
  std::vector<double> over_default, over_blas;
  for (const auto& s : shapes) {
    if (!args.wants(s.what)) continue;
    const int64_t pad = s.k / 2;
    sdk::OpTask task;
    task.op_type = "Conv";
    task.inputs = {f32({1, s.c, s.h, s.h}), f32({s.m, s.c / s.group, s.k, s.k}, true), f32({s.m}, true)};
    task.attrs = {{"strides", {s.stride, s.stride}}, {"pads", {pad, pad, pad, pad}}, {"group", s.group}};
    const ConvOp op(task, host);
    const auto& cs = op.shape();
    const auto x = random_values(s.c * s.h * s.h, 1), w = random_values(s.m * s.c / s.group * s.k * s.k, 2),
               bias = random_values(s.m, 3);
    const std::vector<const float*> in{x.data(), w.data(), bias.data()};
    std::vector<float> y(static_cast<size_t>(s.m * cs.oh * cs.ow));
    Row r{s.what, 2.0 * s.m * cs.oh * cs.ow * (s.c / s.group) * s.k * s.k / 1e9};
    const auto best = tune(op, in, pool, args.configs, r.tried);
    auto kd = ready(op, op.space().default_config, in), kt = ready(op, best, in);
    Im2colBlas baseline{cs, {}};
    auto blas = [&] {
      baseline.run(x.data(), w.data(), y.data(), pool);
      for (int64_t m = 0; m < s.m; ++m)
        for (int64_t p = 0; p < cs.oh * cs.ow; ++p) y[static_cast<size_t>(m * cs.oh * cs.ow + p)] += bias[static_cast<size_t>(m)];
    };
    const auto t = race_with_openblas({[&] { kd->run(pool); }, [&] { kt->run(pool); }, blas}, pool);
    r.def = t[0], r.tuned = t[1], r.blas = t[2];
    std::vector<float> got(y.size());
    kt->read_output(0, got.data());
    const auto why = compare(got.data(), y.data(), static_cast<int64_t>(y.size()), Tolerance{});
    print_row(r, peak.refresh(), op.space().describe(best).dump() + (why.empty() ? "" : "  MISMATCH: " + why));
    over_default.push_back(r.def / r.tuned);
    over_blas.push_back(r.blas / r.tuned);
  }
  if (over_default.empty()) return;  // --only kept none
  std::printf("Conv geomean: tuned/default %.2fx (median %.2fx); tuned/(im2col+OpenBLAS) %.2fx\n", geomean(over_default),
              median_of(over_default), geomean(over_blas));
}

}  // namespace
}  // namespace aoe::cpu

int main(int argc, char** argv) {
  using namespace aoe::cpu;
  // OpenBLAS 0.3.21 takes CPUs newer than it knows for a Prescott (SSE3):
  // name the core it should use, which it reads only as it loads, so run again.
  if (!std::getenv("OPENBLAS_CORETYPE") && std::string(openblas_get_config()).find("Prescott") != std::string::npos) {
    const char* core = __builtin_cpu_supports("avx512f") ? "SkylakeX" : __builtin_cpu_supports("avx2") ? "Haswell" : nullptr;
    if (core) {
      setenv("OPENBLAS_CORETYPE", core, 1);
      execv("/proc/self/exe", argv);
    }
  }
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--threads" && i + 1 < argc) args.threads = std::atoi(argv[++i]);
    else if (a == "--configs" && i + 1 < argc) args.configs = std::atoi(argv[++i]);
    else if (a == "--quick") args.configs = 40;
    else if (a == "--gemm-only") args.conv = false;
    else if (a == "--conv-only") args.gemm = false;
    else if (a == "--only" && i + 1 < argc) args.only = argv[++i];
    else {
      std::fprintf(stderr, "usage: %s [--threads N] [--configs N] [--quick] [--gemm-only] [--conv-only] [--only TEXT]\n", argv[0]);
      return 2;
    }
  }
  HostCpu host = detect_host_cpu();
  if (args.threads > 0) host.threads = std::min(args.threads, host.threads);
  const int threads = host.threads;
  ThreadPool pool(threads);
  const Isa isa = host.best_isa();
  aoe::bench::BestFmaPeak peak{threads, isa == Isa::avx512 ? aoe::bench::FmaWidth::avx512 : aoe::bench::FmaWidth::avx2};
  peak.refresh(5);
  std::printf("%s, %d thread(s) (OPENBLAS_NUM_THREADS matched), kernels %s; OpenBLAS %s, core %s\n", host.brand.c_str(),
              threads, isa_name(isa), openblas_get_config(), openblas_get_corename());
  double load[3] = {0, 0, 0};
  getloadavg(load, 3);
  std::printf("peak by FMA loop on %d thread(s): %.1f GFLOP/s; %d configs tried per shape; medians of runs taken in turns\n"
              "(each turn: one untimed run, 3 timed; then 0.15 s of the pool spinning while OpenBLAS's threads park)\n",
              threads, peak.best, args.configs);
  std::printf("load average at the start: %.2f (the machine has %d CPUs; other loads slow every contender alike)\n", load[0],
              host.online_cpus);
  if (args.gemm) bench_gemm(args, host, pool, peak);
  if (args.conv) bench_conv(args, host, pool, peak);
  getloadavg(load, 3);
  std::printf("\n%%peak: of the best FMA-loop peak seen up to that row (%.1f GFLOP/s by the end); load average at the end %.2f\n",
              peak.best, load[0]);
  return 0;
}
