// Scores every searcher plugin as Willemsen, van Nieuwpoort and van Werkhoven
// do in "A methodology for comparing optimization algorithms for
// auto-tuning" (FGCS 2024, the autotuning_methodology project): against
// random search without replacement and the optimum, over the time random
// search needs to come close to the optimum, on exhaustively known spaces —
// the three recorded Kernel Tuner spaces, replayed with their recorded
// costs, and eight simulator spaces.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "aoe/abi/aoe.h"
#include "aoe/sdk/host.h"
#include "aoe/sdk/op_task.h"
#include "aoe/sdk/searcher_client.h"
#include "replay_device.h"
#include "searcher_plugins.h"
#include "sim_device.h"
#include "soc_files.h"

namespace {

using aoe::bench::SearcherPlugin;
using aoe::bench::load_searchers;

namespace fs = std::filesystem;
using aoe::sdk::Config;
using aoe::sdk::Measurement;
using aoe::sdk::ResultStatus;
using aoe::sdk::TuningSpace;

constexpr double kInf = std::numeric_limits<double>::infinity();

// The recorded GPU spaces: AOE_KERNEL_TUNER_DATA from the environment, else
// as CMake was given it; empty when neither names a folder.
fs::path default_data_dir() {
  if (const char* env = std::getenv("AOE_KERNEL_TUNER_DATA"); env && *env) return env;
  return AOE_KERNEL_TUNER_DATA;
}

struct Settings {
  fs::path plugin_dir = AOE_BENCH_PLUGIN_DIR;
  fs::path data_dir = default_data_dir();
  std::vector<std::string> searchers;  // empty: all
  std::string spaces = "all";          // all, replay or sim
  uint64_t runs = 25;
  uint64_t seed = 1;
  size_t grid = 50;
  double cutoff = 0.95;  // the budget ends where random search is expected this close to the optimum
  size_t batch = 8;      // proposals per round, as the tuner's TUNING_PARALLEL_NUM
};

// ---------------------------------------------------------------- spaces

// One candidate's result and what obtaining it cost (0 when check refused it).
struct Outcome {
  Measurement result;
  double cost = 0;
};

// A space whose every config is known: the searchers explore it through
// check and run, the baseline is computed from `values`.
struct Space {
  std::string name;
  std::string cost_unit;  // "s" of the recorded session, or "evals"
  TuningSpace space;
  std::function<Measurement(const Config&)> check;
  std::function<Outcome(const Config&)> run;  // build and measure one config check() passed
  // Every config check() passes, as a tuner would run it: its time (us), or
  // +inf when it failed to build or run, and its cost.
  std::vector<double> values;
  std::vector<double> costs;
};

Space replay_space(const std::string& name, const fs::path& cachefile, const fs::path& kernel) {
  aoe::replay::ReplayOptions options;
  options.cachefile = cachefile;
  options.kernel = kernel;
  auto device = std::make_shared<aoe::replay::ReplayDevice>(options);
  aoe::sdk::OpTask op;
  op.op_type = device->recorded().cachefile().kernel_name;
  std::shared_ptr<aoe::replay::ReplayTask> task = device->prepare_replay(op);
  Space s;
  s.name = name;
  s.cost_unit = "s";
  s.space = task->space();
  s.check = [task](const Config& c) { return task->check(c); };
  s.run = [task](const Config& c) {
    const double cost = task->cost_s(c);
    auto built = task->build(c);
    if (!built.candidate) return Outcome{built.failure, cost};
    return Outcome{task->measure({built.candidate.get()}, {})[0], cost};
  };
  const auto& recorded = task->recorded();
  for (const auto& r : recorded.cachefile().records) {
    const auto config = recorded.config_of(r);
    if (!config || !recorded.check(*config).ok()) continue;
    s.values.push_back(r.outcome == aoe::replay::Outcome::timed ? r.time_ms * 1000 : kInf);
    s.costs.push_back(r.cost_ms() / 1000);
  }
  return s;
}

// Each measured config costs one unit: the simulator has no compile time to replay.
Space sim_space(const aoe::sim::SimDevice& device, const aoe::sdk::OpTask& task) {
  std::shared_ptr<aoe::sim::OpModel> model = device.model(task);
  Space s;
  s.name = task.name;
  s.cost_unit = "evals";
  s.space = model->space();
  s.check = [model](const Config& c) { return model->check(c); };
  s.run = [model](const Config& c) { return Outcome{Measurement::timed(model->time_us(c)), 1}; };
  aoe::sdk::for_each_config(s.space, [&](const Config& c) {
    if (!model->check(c).ok()) return;
    s.values.push_back(model->time_us(c));
    s.costs.push_back(1);
  });
  return s;
}

// The simulator tasks, as bench/sim_spaces_bench.cpp defines them: three
// convs, two MatMuls and three vector ops.
aoe::sdk::TensorDesc tensor(std::vector<int64_t> shape, bool constant = false) {
  aoe::sdk::TensorDesc t;
  t.shape = std::move(shape);
  t.dtype = aoe::sdk::DType::f16;
  t.constant = constant;
  return t;
}

aoe::sdk::OpTask op(std::string name, std::string type, std::vector<aoe::sdk::TensorDesc> inputs,
                    nlohmann::json attrs = nlohmann::json::object(), std::vector<std::string> fused = {}) {
  aoe::sdk::OpTask t;
  t.name = std::move(name);
  t.op_type = std::move(type);
  t.inputs = std::move(inputs);
  t.attrs = std::move(attrs);
  t.fused_ops = std::move(fused);
  return t;
}

aoe::sdk::OpTask conv(std::string name, int64_t c, int64_t hw, int64_t cout, int64_t k, int64_t stride, int64_t group,
                      std::vector<std::string> fused) {
  const int64_t pad = k / 2;
  return op(std::move(name), "Conv",
            {tensor({1, c, hw, hw}), tensor({cout, c / group, k, k}, true), tensor({cout}, true)},
            {{"kernel_shape", {k, k}}, {"strides", {stride, stride}}, {"pads", {pad, pad, pad, pad}},
             {"dilations", {1, 1}}, {"group", group}},
            std::move(fused));
}

std::vector<aoe::sdk::OpTask> sim_tasks() {
  return {
      conv("sim resnet50 res2 3x3 64 +relu", 64, 56, 64, 3, 1, 1, {"Relu"}),
      conv("sim resnet50 res5 3x3 512 +relu", 512, 7, 512, 3, 1, 1, {"Relu"}),
      conv("sim mobilenetv2 dw 3x3/2 144@56", 144, 56, 144, 3, 2, 144, {"Clip"}),
      op("sim bert qkv 128x768x2304 +bias", "MatMul", {tensor({1, 128, 768}), tensor({768, 2304}, true), tensor({2304}, true)},
         nlohmann::json::object(), {"Add"}),
      op("sim bert ffn out 128x3072x768 +b+res", "MatMul",
         {tensor({1, 128, 3072}), tensor({3072, 768}, true), tensor({768}, true), tensor({1, 128, 768})},
         nlohmann::json::object(), {"Add", "Add"}),
      op("sim bert softmax 12x128x128", "Softmax", {tensor({1, 12, 128, 128})}, {{"axis", -1}}),
      op("sim bert reducemean 128x768", "ReduceMean", {tensor({1, 128, 768})}, {{"axes", {-1}}}),
      op("sim bert transpose heads 128x12x64", "Transpose", {tensor({1, 128, 12, 64})}, {{"perm", {0, 2, 1, 3}}}),
  };
}

std::vector<Space> load_spaces(const Settings& settings) {
  std::vector<Space> out;
  const bool replay = settings.spaces == "all" || settings.spaces == "replay";
  if (replay && settings.data_dir.empty())
    std::printf("searcher_scores: the recorded GPU spaces are skipped: set AOE_KERNEL_TUNER_DATA or --data to the\n"
                "folder of Kernel Tuner's benchmark_hub cachefiles (convolution_milo_A100.json.gz and the others)\n");
  if (replay && !settings.data_dir.empty()) {
    const fs::path& d = settings.data_dir;
    out.push_back(replay_space("replay convolution A100", d / "convolution_milo_A100.json.gz",
                               d / "convolution_milo.kernel.json"));
    out.push_back(replay_space("replay convolution A4000", d / "convolution_milo_A4000.json.gz",
                               d / "convolution_milo.kernel.json"));
    out.push_back(replay_space("replay dedispersion A4000", d / "dedispersion_milo_A4000.json.gz",
                               d / "dedispersion_milo.kernel.json"));
  }
  if (settings.spaces == "all" || settings.spaces == "sim") {
    // The source tree's SoC files, after any the user names.
    std::string path = AOE_SIM_SOC_DIR;
    if (const char* env = std::getenv("AOE_SIM_SOC_PATH"); env && *env) path = std::string(env) + ":" + path;
    setenv("AOE_SIM_SOC_PATH", path.c_str(), 1);
    const aoe::sim::SimDevice device(aoe::sim::load_soc("ascend910"), aoe::sim::SimOptions{});
    for (const auto& task : sim_tasks()) out.push_back(sim_space(device, task));
  }
  return out;
}

// ---------------------------------------------------------------- the baseline

// Random search without replacement over the configs a tuner runs, computed
// exactly: after m draws from N, the best is worse than the i-th best with
// probability C(N - i, m) / C(N, m).
class RandomBaseline {
 public:
  RandomBaseline(const Space& space, double cutoff) {
    sorted_ = space.values;
    std::sort(sorted_.begin(), sorted_.end());
    valid_ = static_cast<size_t>(std::count_if(sorted_.begin(), sorted_.end(), [](double v) { return v < kInf; }));
    if (valid_ == 0) throw std::runtime_error(space.name + ": no config runs");
    optimum_ = sorted_[0];
    median_ = valid_ % 2 ? sorted_[valid_ / 2] : (sorted_[valid_ / 2 - 1] + sorted_[valid_ / 2]) / 2;
    unmeasured_ = std::accumulate(sorted_.begin(), sorted_.begin() + static_cast<std::ptrdiff_t>(valid_), 0.0) /
                  static_cast<double>(valid_);
    mean_cost_ = std::accumulate(space.costs.begin(), space.costs.end(), 0.0) / static_cast<double>(space.costs.size());
    target_ = optimum_ + (median_ - optimum_) * (1 - cutoff);
    // The expected best only falls with more draws: bisect for the first draw count that meets the target.
    uint64_t lo = 1, hi = sorted_.size();
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo) / 2;
      if (expected_best(mid) <= target_) hi = mid;
      else lo = mid + 1;
    }
    draws_to_target_ = lo;
  }

  // What a searcher is credited with before it has measured anything: the
  // expected time of a config drawn at random, as random search after 0 draws.
  double unmeasured() const { return unmeasured_; }
  double optimum() const { return optimum_; }
  double median() const { return median_; }
  double target() const { return target_; }
  double mean_cost() const { return mean_cost_; }
  uint64_t draws_to_target() const { return draws_to_target_; }
  // The time budget: what random search needs, in expectation, to reach the target.
  double budget() const { return static_cast<double>(draws_to_target_) * mean_cost_; }

  // Expected best of the draws completed by `time`, at the mean cost per
  // draw: a searcher's result counts from when it is measured, and so does
  // random search's.
  double at_time(double time) const {
    return expected_best(static_cast<uint64_t>(std::floor(time / mean_cost_ * (1 + 1e-12))));
  }

  // E[best of m draws]; a draw of only failures counts as unmeasured().
  double expected_best(uint64_t m) const {
    const size_t n = sorted_.size();
    if (m == 0) return unmeasured_;
    if (m >= n) return optimum_;
    // E = x_1 + sum_i (x_{i+1} - x_i) S_i + (unmeasured - x_valid) S_valid, S_i = P(best is worse than x_i).
    double survive = 1, expected = sorted_[0];
    for (size_t i = 1; i <= valid_; ++i) {
      const double left = static_cast<double>(n - i);  // configs worse than the i-th
      survive *= left < static_cast<double>(m) ? 0 : (left - static_cast<double>(m) + 1) / (left + 1);
      if (survive == 0) break;
      const double next = i < valid_ ? sorted_[i] : unmeasured_;
      expected += (next - sorted_[i - 1]) * survive;
    }
    return expected;
  }

 private:
  std::vector<double> sorted_;  // ascending; failures (+inf) last
  size_t valid_ = 0;
  double optimum_ = 0, median_ = 0, unmeasured_ = 0, mean_cost_ = 1, target_ = 0;
  uint64_t draws_to_target_ = 1;
};

// ---------------------------------------------------------------- runs

struct Run {
  double score = 0;
  std::optional<uint64_t> to_5, to_1;  // measured evaluations to within 5% / 1% of the optimum
};

// One search as the tuner runs it: batches of proposals, configs the device
// refuses observed as invalid at no cost and outside the budget, the rest
// built and measured one after another on the clock. It ends once the clock
// passes the time budget, or the searcher stops.
// A time of the score's grid and random search's expected best there.
struct GridPoint {
  double time;
  double random;
};

std::vector<GridPoint> score_grid(const RandomBaseline& baseline, size_t points) {
  std::vector<GridPoint> out;
  for (size_t k = 1; k <= points; ++k) {
    const double t = baseline.budget() * static_cast<double>(k) / static_cast<double>(points);
    out.push_back({t, baseline.at_time(t)});
  }
  return out;
}

Run run_once(const SearcherPlugin& plugin, const Space& space, const RandomBaseline& baseline,
             const std::vector<GridPoint>& grid, uint64_t seed, const Settings& settings) {
  const double budget_time = baseline.budget();
  // Twice the draws random search makes in the time budget, so the time, not the count, ends a run.
  const uint64_t budget = 2 * baseline.draws_to_target() + settings.batch;
  const uint64_t max_refused = 50 * budget;
  auto searcher = plugin.create();
  searcher->start(space.space, {seed, budget});
  std::vector<std::pair<double, double>> improvements;  // (clock, new best)
  double clock = 0, best = kInf;
  uint64_t measured = 0, refused = 0;
  Run run;
  while (clock < budget_time && measured < budget && refused <= max_refused) {
    const auto batch = searcher->propose(std::min<uint64_t>(settings.batch, budget - measured));
    if (batch.empty()) break;
    std::vector<Config> runnable;
    for (const auto& config : batch) {
      const Measurement verdict = space.space.in_domain(config)
                                      ? space.check(config)
                                      : Measurement::failed(ResultStatus::invalid, "outside the tuning space");
      if (verdict.ok()) {
        runnable.push_back(config);
      } else {
        ++refused;
        searcher->observe(config, verdict);
      }
    }
    std::vector<Measurement> results;
    for (const auto& config : runnable) {
      Outcome o = space.run(config);
      clock += o.cost;
      ++measured;
      if (o.result.ok() && o.result.time_us < best) {
        best = o.result.time_us;
        improvements.emplace_back(clock, best);
      }
      if (clock <= budget_time) {
        if (!run.to_5 && best <= baseline.optimum() * 1.05) run.to_5 = measured;
        if (!run.to_1 && best <= baseline.optimum() * 1.01) run.to_1 = measured;
      }
      results.push_back(std::move(o.result));
    }
    for (size_t i = 0; i < runnable.size(); ++i) searcher->observe(runnable[i], results[i]);
  }
  // P(t) = (R(t) - F(t)) / (R(t) - f_opt) on the grid.
  double sum = 0;
  size_t points = 0, next = 0;
  double found = baseline.unmeasured();
  for (const auto& [t, random] : grid) {
    while (next < improvements.size() && improvements[next].first <= t) found = improvements[next++].second;
    const double span = random - baseline.optimum();
    if (span <= 1e-12 * baseline.optimum()) continue;  // random search is sure to be optimal there
    sum += (random - found) / span;
    ++points;
  }
  run.score = points ? sum / static_cast<double>(points) : 0;
  return run;
}

struct Summary {
  double mean = 0, sd = 0;
  std::string to_5, to_1;
};

std::string reached(const std::vector<Run>& runs, std::optional<uint64_t> Run::*field) {
  double sum = 0;
  size_t hits = 0;
  for (const auto& r : runs)
    if (r.*field) sum += static_cast<double>(*(r.*field)), ++hits;
  if (hits == 0) return "-";
  char text[48];
  if (hits == runs.size())
    std::snprintf(text, sizeof text, "%.0f", sum / static_cast<double>(hits));
  else
    std::snprintf(text, sizeof text, "%.0f (%zu/%zu)", sum / static_cast<double>(hits), hits, runs.size());
  return text;
}

Summary summarise(const std::vector<Run>& runs) {
  Summary s;
  for (const auto& r : runs) s.mean += r.score;
  s.mean /= static_cast<double>(runs.size());
  for (const auto& r : runs) s.sd += (r.score - s.mean) * (r.score - s.mean);
  s.sd = runs.size() > 1 ? std::sqrt(s.sd / static_cast<double>(runs.size() - 1)) : 0;
  s.to_5 = reached(runs, &Run::to_5);
  s.to_1 = reached(runs, &Run::to_1);
  return s;
}

// ---------------------------------------------------------------- main

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

int usage(const char* argv0, int code) {
  std::fprintf(code ? stderr : stdout,
               "usage: %s [--runs N] [--searchers a,b] [--plugin-dir DIR] [--spaces all|replay|sim]\n"
               "          [--seed N] [--grid N] [--data DIR]\n"
               "Scores every searcher plugin of DIR (default %s) on the recorded Kernel Tuner spaces\n"
               "of --data (default %s) and eight simulator spaces: 0 is random search, 1 the optimum.\n",
               argv0, AOE_BENCH_PLUGIN_DIR, default_data_dir().empty() ? "AOE_KERNEL_TUNER_DATA, unset" : default_data_dir().c_str());
  return code;
}

void print_space(const Space& space, const RandomBaseline& b) {
  const bool seconds = space.cost_unit == "s";
  std::printf("\n%s: %.0f configs, %zu run, optimum %.4g us, median %.4g us, target %.4g us\n", space.name.c_str(),
              space.space.size(), space.values.size(), b.optimum(), b.median(), b.target());
  if (seconds)
    std::printf("  budget %.0f s of recorded tuning time (random search: %llu evaluations at %.2f s each)\n",
                b.budget(), static_cast<unsigned long long>(b.draws_to_target()), b.mean_cost());
  else
    std::printf("  budget %llu evaluations\n", static_cast<unsigned long long>(b.draws_to_target()));
  std::printf("  %-14s %7s %6s %16s %16s\n", "searcher", "score", "sd", "evals to 5%", "evals to 1%");
}

}  // namespace

int main(int argc, char** argv) {
  Settings settings;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") return usage(argv[0], 0);
    if (i + 1 >= argc) return usage(argv[0], 2);
    const std::string value = argv[++i];
    if (arg == "--runs") settings.runs = std::strtoull(value.c_str(), nullptr, 10);
    else if (arg == "--searchers") settings.searchers = split(value);
    else if (arg == "--plugin-dir") settings.plugin_dir = value;
    else if (arg == "--spaces") settings.spaces = value;
    else if (arg == "--seed") settings.seed = std::strtoull(value.c_str(), nullptr, 10);
    else if (arg == "--grid") settings.grid = std::strtoull(value.c_str(), nullptr, 10);
    else if (arg == "--data") settings.data_dir = value;
    else return usage(argv[0], 2);
  }
  if (settings.runs == 0 || settings.grid == 0 ||
      (settings.spaces != "all" && settings.spaces != "replay" && settings.spaces != "sim"))
    return usage(argv[0], 2);

  try {
    auto searchers = load_searchers(settings.plugin_dir);
    if (!settings.searchers.empty()) {
      std::vector<SearcherPlugin> chosen;
      for (const auto& name : settings.searchers) {
        const auto it = std::find_if(searchers.begin(), searchers.end(), [&](const auto& s) { return s.name == name; });
        if (it == searchers.end()) {
          std::fprintf(stderr, "searcher_scores: no searcher '%s' in %s\n", name.c_str(), settings.plugin_dir.c_str());
          return 2;
        }
        chosen.push_back(*it);
      }
      searchers = chosen;
    }
    if (searchers.empty()) {
      std::fprintf(stderr, "searcher_scores: no searcher plugin in %s\n", settings.plugin_dir.c_str());
      return 1;
    }
    const auto spaces = load_spaces(settings);
    std::printf("searcher_scores: %zu searchers, %zu spaces, %llu runs each (seeds %llu..%llu), batches of %zu\n",
                searchers.size(), spaces.size(), static_cast<unsigned long long>(settings.runs),
                static_cast<unsigned long long>(settings.seed),
                static_cast<unsigned long long>(settings.seed + settings.runs - 1), settings.batch);
    std::printf("score: mean over %zu times t in (0, budget] of (R(t) - F(t)) / (R(t) - optimum); R is random search\n"
                "without replacement, computed exactly; the budget is the time it needs to be expected within\n"
                "%.0f%% of the way from the median to the optimum\n",
                settings.grid, settings.cutoff * 100);

    std::map<std::string, std::vector<double>> per_searcher;
    for (const auto& space : spaces) {
      const RandomBaseline baseline(space, settings.cutoff);
      const auto grid = score_grid(baseline, settings.grid);
      print_space(space, baseline);
      for (const auto& searcher : searchers) {
        std::vector<Run> runs;
        for (uint64_t r = 0; r < settings.runs; ++r)
          runs.push_back(run_once(searcher, space, baseline, grid, settings.seed + r, settings));
        const Summary s = summarise(runs);
        std::printf("  %-14s %7.3f %6.3f %16s %16s\n", searcher.name.c_str(), s.mean, s.sd, s.to_5.c_str(),
                    s.to_1.c_str());
        std::fflush(stdout);
        per_searcher[searcher.name].push_back(s.mean);
      }
    }
    std::printf("\nmean score over the %zu spaces\n", spaces.size());
    for (const auto& searcher : searchers) {
      const auto& scores = per_searcher[searcher.name];
      std::printf("  %-14s %7.3f\n", searcher.name.c_str(),
                  std::accumulate(scores.begin(), scores.end(), 0.0) / static_cast<double>(scores.size()));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "searcher_scores: %s\n", e.what());
    return 1;
  }
  return 0;
}
