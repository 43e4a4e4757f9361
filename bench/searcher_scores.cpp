// Scores every searcher plugin as Willemsen, van Nieuwpoort and van Werkhoven
// do in "A methodology for comparing optimization algorithms for
// auto-tuning" (FGCS 2024, the autotuning_methodology project): against
// random search without replacement and the optimum, over the time random
// search needs to come close to the optimum, on exhaustively known spaces —
// Kernel Tuner recordings replayed with their recorded costs (a development
// set and a validation set) and eight simulator spaces. The searcher's own
// compute time is charged on the clock, as the methodology does.
#include <algorithm>
#include <chrono>
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
#include "aoe/sdk/op_class.h"
#include "aoe/sdk/op_task.h"
#include "aoe/sdk/searcher_client.h"
#include "confidence_interval.h"
#include "random_baseline.h"
#include "replay_device.h"
#include "searcher_plugins.h"
#include "sim_device.h"
#include "soc_files.h"
#include "soc_search_path.h"

namespace {

using aoe::bench::Interval;
using aoe::bench::RandomBaseline;
using aoe::bench::SearcherPlugin;
using aoe::bench::confidence_interval_95;
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
  std::string spaces = "all";          // all, replay (development and validation), development, validation or sim
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
  std::string set;        // development, validation or simulator
  std::string op_class;   // cube or vector, as AOE routes ops to searchers
  std::string cost_unit;  // "s" of the recorded session, or "evals"
  TuningSpace space;
  std::function<Measurement(const Config&)> check;
  std::function<Outcome(const Config&)> run;  // build and measure one config check() passed
  // Every config check() passes, as a tuner would run it: its time (us), or
  // +inf when it failed to build or run, and its cost.
  std::vector<double> values;
  std::vector<double> costs;
  std::optional<size_t> default_index;  // the default config's entry in values: what the searchers measure first
};

// A recording in Kernel Tuner's current layout (with its kernel description)
// or its older one (the cachefile alone).
Space replay_space(const std::string& name, const std::string& set, const std::string& op_class,
                   const fs::path& cachefile, std::optional<fs::path> kernel) {
  aoe::replay::ReplayOptions options;
  options.cachefile = cachefile;
  options.kernel = std::move(kernel);
  auto device = std::make_shared<aoe::replay::ReplayDevice>(options);
  aoe::sdk::OpTask op;
  op.op_type = device->recorded().cachefile().kernel_name;
  std::shared_ptr<aoe::replay::ReplayTask> task = device->prepare_replay(op);
  Space s;
  s.name = name;
  s.set = set;
  s.op_class = op_class;
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
    if (*config == s.space.default_config) s.default_index = s.values.size();
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
  s.set = "simulator";
  s.op_class = aoe::sdk::op_class(task.op_type);
  s.cost_unit = "evals";
  s.space = model->space();
  s.check = [model](const Config& c) { return model->check(c); };
  s.run = [model](const Config& c) { return Outcome{Measurement::timed(model->time_us(c)), 1}; };
  aoe::sdk::for_each_config(s.space, [&](const Config& c) {
    if (!model->check(c).ok()) return;
    if (c == s.space.default_config) s.default_index = s.values.size();
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
  const bool development = settings.spaces == "all" || settings.spaces == "replay" || settings.spaces == "development";
  const bool validation = settings.spaces == "all" || settings.spaces == "replay" || settings.spaces == "validation";
  const fs::path& d = settings.data_dir;
  if ((development || validation) && d.empty())
    std::printf("searcher_scores: the recorded GPU spaces are skipped: set AOE_KERNEL_TUNER_DATA or --data to the\n"
                "folder of Kernel Tuner's benchmark_hub cachefiles (convolution_milo_A100.json.gz and the others)\n");
  if (development && !d.empty()) {
    out.push_back(replay_space("replay convolution A100", "development", "cube", d / "convolution_milo_A100.json.gz",
                               d / "convolution_milo.kernel.json"));
    out.push_back(replay_space("replay convolution A4000", "development", "cube", d / "convolution_milo_A4000.json.gz",
                               d / "convolution_milo.kernel.json"));
    out.push_back(replay_space("replay dedispersion A4000", "development", "vector", d / "dedispersion_milo_A4000.json.gz",
                               d / "dedispersion_milo.kernel.json"));
  }
  // Kernel Tuner's older layout: the cachefile alone. Scored, never tuned on.
  const fs::path v = d / "validation";
  if (validation && !d.empty() && !fs::is_directory(v))
    std::printf("searcher_scores: the validation spaces are skipped: %s is not a folder\n", v.c_str());
  if (validation && !d.empty() && fs::is_directory(v)) {
    out.push_back(replay_space("replay convolution 2080Ti", "validation", "cube", v / "convolution_RTX_2080_Ti.json.gz", {}));
    out.push_back(replay_space("replay gemm 2080Ti", "validation", "cube", v / "gemm_RTX_2080_Ti.json.gz", {}));
    out.push_back(replay_space("replay pnpoly 2080Ti", "validation", "vector", v / "pnpoly_RTX_2080_Ti.json.gz", {}));
  }
  if (settings.spaces == "all" || settings.spaces == "sim") {
    aoe::bench::find_source_tree_socs();
    const aoe::sim::SimDevice device(aoe::sim::load_soc("ascend910"), aoe::sim::SimOptions{});
    for (const auto& task : sim_tasks()) out.push_back(sim_space(device, task));
  }
  return out;
}

// ---------------------------------------------------------------- the baselines

// The two random-search curves a searcher is held to, and the time budget.
struct Baselines {
  RandomBaseline plain;      // random search from its first draw: the methodology's, and what sets the budget
  RandomBaseline from_default;  // random search whose first draw is the default config, as the searchers' is
  double target = 0;         // the time random search is expected to reach at the end of the budget
  uint64_t draws = 0;        // random search's evaluations in the budget
  double budget = 0;         // in the space's cost unit

  Baselines(const Space& space, double cutoff)
      : plain(space.values, space.costs), from_default(space.values, space.costs, first_draw(space)) {
    target = plain.optimum() + (plain.median() - plain.optimum()) * (1 - cutoff);
    draws = plain.draws_to(target);
    budget = static_cast<double>(draws) * plain.mean_cost();
  }

  static size_t first_draw(const Space& space) {
    if (!space.default_index) throw std::runtime_error(space.name + ": the default config does not run");
    return *space.default_index;
  }
};

// A time of the score's grid and both random curves' expected best there.
struct GridPoint {
  double time;
  double random_from_default;
  double random_plain;
};

std::vector<GridPoint> score_grid(const Baselines& b, size_t points) {
  std::vector<GridPoint> out;
  for (size_t k = 1; k <= points; ++k) {
    const double t = b.budget * static_cast<double>(k) / static_cast<double>(points);
    out.push_back({t, b.from_default.at_time(t), b.plain.at_time(t)});
  }
  return out;
}

// ---------------------------------------------------------------- runs

struct Run {
  double fair = 0;        // P against random search that starts from the default
  double head_start = 0;  // P against random search from a random first draw
  std::optional<uint64_t> to_5, to_1;  // measured evaluations to within 5% / 1% of the optimum
  double searcher_s = 0;  // wall time in start, propose and observe
  uint64_t evaluations = 0, proposals = 0;
};

// One search as the tuner runs it: batches of proposals, configs the device
// refuses observed as invalid at no cost and outside the budget, the rest
// built and measured one after another on the clock. Where the space's cost
// is in seconds, the searcher's own time goes on the clock too. A run ends
// once the clock passes the time budget, or the searcher stops.
Run run_once(const SearcherPlugin& plugin, const Space& space, const Baselines& baselines,
             const std::vector<GridPoint>& grid, uint64_t seed, const Settings& settings) {
  using Clock = std::chrono::steady_clock;
  const bool charge_searcher = space.cost_unit == "s";
  const double optimum = baselines.plain.optimum();
  // Twice the draws random search makes in the time budget, so the time, not the count, ends a run.
  const uint64_t budget = 2 * baselines.draws + settings.batch;
  const uint64_t max_refused = 50 * budget;
  Run run;
  double clock = 0, best = kInf;
  // Times a call into the searcher, and charges it.
  const auto timed = [&](auto&& call) {
    const auto begin = Clock::now();
    call();
    const double s = std::chrono::duration<double>(Clock::now() - begin).count();
    run.searcher_s += s;
    if (charge_searcher) clock += s;
  };
  auto searcher = plugin.create();
  timed([&] { searcher->start(space.space, {seed, budget}); });
  std::vector<std::pair<double, double>> improvements;  // (clock, new best)
  uint64_t refused = 0;
  while (clock < baselines.budget && run.evaluations < budget && refused <= max_refused) {
    std::vector<Config> batch;
    timed([&] { batch = searcher->propose(std::min<uint64_t>(settings.batch, budget - run.evaluations)); });
    if (batch.empty()) break;
    run.proposals += batch.size();
    std::vector<Config> runnable;
    for (const auto& config : batch) {
      const Measurement verdict = space.space.in_domain(config)
                                      ? space.check(config)
                                      : Measurement::failed(ResultStatus::invalid, "outside the tuning space");
      if (verdict.ok()) {
        runnable.push_back(config);
      } else {
        ++refused;
        timed([&] { searcher->observe(config, verdict); });
      }
    }
    std::vector<Measurement> results;
    for (const auto& config : runnable) {
      Outcome o = space.run(config);
      clock += o.cost;
      ++run.evaluations;
      if (o.result.ok() && o.result.time_us < best) {
        best = o.result.time_us;
        improvements.emplace_back(clock, best);
      }
      if (clock <= baselines.budget) {
        if (!run.to_5 && best <= optimum * 1.05) run.to_5 = run.evaluations;
        if (!run.to_1 && best <= optimum * 1.01) run.to_1 = run.evaluations;
      }
      results.push_back(std::move(o.result));
    }
    timed([&] {
      for (size_t i = 0; i < runnable.size(); ++i) searcher->observe(runnable[i], results[i]);
    });
  }
  // P(t) = (R(t) - F(t)) / (R(t) - f_opt) on the grid, against each random curve.
  double fair = 0, head_start = 0;
  size_t fair_points = 0, head_start_points = 0, next = 0;
  double found = baselines.plain.unmeasured();
  const auto add = [&](double random, double& sum, size_t& points) {
    const double span = random - optimum;
    if (span <= 1e-12 * optimum) return;  // random search is sure to be optimal there
    sum += (random - found) / span;
    ++points;
  };
  for (const auto& point : grid) {
    while (next < improvements.size() && improvements[next].first <= point.time) found = improvements[next++].second;
    add(point.random_from_default, fair, fair_points);
    add(point.random_plain, head_start, head_start_points);
  }
  run.fair = fair_points ? fair / static_cast<double>(fair_points) : 0;
  run.head_start = head_start_points ? head_start / static_cast<double>(head_start_points) : 0;
  return run;
}

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

// "0.612 [0.580, 0.644]"
std::string with_interval(const Interval& i) {
  char text[64];
  std::snprintf(text, sizeof text, "%6.3f [%6.3f,%6.3f]", i.mean, i.low(), i.high());
  return text;
}

// One searcher's runs over the spaces of one set, run by run (seed by seed).
struct SetTally {
  std::vector<double> fair, head_start;  // per run: the sum over the set's spaces
  size_t spaces = 0;
  double searcher_s = 0;
  uint64_t evaluations = 0, proposals = 0;

  void add(const std::vector<Run>& runs) {
    fair.resize(runs.size(), 0);
    head_start.resize(runs.size(), 0);
    for (size_t r = 0; r < runs.size(); ++r) {
      fair[r] += runs[r].fair;
      head_start[r] += runs[r].head_start;
      searcher_s += runs[r].searcher_s;
      evaluations += runs[r].evaluations;
      proposals += runs[r].proposals;
    }
    ++spaces;
  }
  // Per run, the mean P over the set's spaces.
  std::vector<double> mean_over_spaces(const std::vector<double>& sums) const {
    std::vector<double> out;
    for (double s : sums) out.push_back(s / static_cast<double>(spaces));
    return out;
  }
};

std::vector<double> field_of(const std::vector<Run>& runs, double Run::*field) {
  std::vector<double> out;
  for (const auto& r : runs) out.push_back(r.*field);
  return out;
}

// The searcher's seconds per measured evaluation and its proposals per second: "  1.2e-05     6e+04".
std::string searcher_speed(double seconds, uint64_t evaluations, uint64_t proposals) {
  char text[64];
  std::snprintf(text, sizeof text, "%9.3g %9.3g", evaluations ? seconds / static_cast<double>(evaluations) : 0.0,
                seconds > 0 ? static_cast<double>(proposals) / seconds : 0.0);
  return text;
}

std::string searcher_speed(const std::vector<Run>& runs) {
  double seconds = 0;
  uint64_t evaluations = 0, proposals = 0;
  for (const auto& r : runs) seconds += r.searcher_s, evaluations += r.evaluations, proposals += r.proposals;
  return searcher_speed(seconds, evaluations, proposals);
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
               "usage: %s [--runs N] [--searchers a,b] [--plugin-dir DIR]\n"
               "          [--spaces all|replay|development|validation|sim] [--seed N] [--grid N] [--data DIR]\n"
               "Scores every searcher plugin of DIR (default %s) on the recorded Kernel Tuner spaces\n"
               "of --data (default %s): the development set in it, the validation set in its validation/\n"
               "folder; and on eight simulator spaces: 0 is random search, 1 the optimum.\n",
               argv0, AOE_BENCH_PLUGIN_DIR, default_data_dir().empty() ? "AOE_KERNEL_TUNER_DATA, unset" : default_data_dir().c_str());
  return code;
}

// searcher, fair P, head-start P, s/eval and props/s, evals to 5%, to 1%
const char* const kRowFormat = "  %-12s %-22s %-22s %-19s %14s %14s\n";

void print_space(const Space& space, const Baselines& b) {
  const bool seconds = space.cost_unit == "s";
  const auto failing = std::count(space.values.begin(), space.values.end(), kInf);
  std::printf("\n%s (%s, %s ops): %.0f configs, %zu valid of which %td fail to build or run, optimum %.4g us, median %.4g us,\n"
              "  default %.4g us, target %.4g us\n",
              space.name.c_str(), space.set.c_str(), space.op_class.c_str(), space.space.size(), space.values.size(), failing,
              b.plain.optimum(), b.plain.median(), space.values[*space.default_index], b.target);
  if (seconds)
    std::printf("  budget %.0f s of recorded tuning time and searcher time (random search: %llu evaluations at %.2f s each)\n",
                b.budget, static_cast<unsigned long long>(b.draws), b.plain.mean_cost());
  else
    std::printf("  budget %llu evaluations (searcher time reported, not charged)\n", static_cast<unsigned long long>(b.draws));
  std::printf(kRowFormat, "searcher", "fair P [95% CI]", "head-start P [95% CI]", "   s/eval   props/s",
              "evals to 5%", "evals to 1%");
}

// `group` is a set, or a set's spaces of one op class ("simulator set, cube ops").
void print_group(const std::string& group, const std::vector<SearcherPlugin>& searchers,
                 std::map<std::string, SetTally>& tallies) {
  const size_t spaces = tallies.begin()->second.spaces;
  std::printf("\n%s: mean P over its %zu spaces, 95%% CI over the runs\n", group.c_str(), spaces);
  std::printf("  %-12s %-22s %-22s %s\n", "searcher", "fair P [95% CI]", "head-start P [95% CI]", "   s/eval   props/s");
  for (const auto& searcher : searchers) {
    const SetTally& t = tallies[searcher.name];
    std::printf("  %-12s %-22s %-22s %s\n", searcher.name.c_str(),
                with_interval(confidence_interval_95(t.mean_over_spaces(t.fair))).c_str(),
                with_interval(confidence_interval_95(t.mean_over_spaces(t.head_start))).c_str(),
                searcher_speed(t.searcher_s, t.evaluations, t.proposals).c_str());
  }
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
  const std::vector<std::string> space_choices = {"all", "replay", "development", "validation", "sim"};
  if (settings.runs == 0 || settings.grid == 0 ||
      std::find(space_choices.begin(), space_choices.end(), settings.spaces) == space_choices.end())
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
    std::printf(
        "P: mean over %zu times t in (0, budget] of (R(t) - F(t)) / (R(t) - optimum), F the searcher's best by t.\n"
        "fair P: R is random search without replacement whose first draw is the default config, as the searchers'\n"
        "is; head-start P: R draws its first config at random too. Both R computed exactly. The budget is the time\n"
        "plain random search needs to be expected within %.0f%% of the way from the median to the optimum. Where the\n"
        "cost is seconds, the searcher's wall time in start/propose/observe is on the clock. 95%% CI: mean +- t(0.975,\n"
        "runs-1) sd/sqrt(runs) over the runs. s/eval: searcher seconds per measured evaluation; props/s: proposals\n"
        "per searcher second.\n",
        settings.grid, settings.cutoff * 100);

    // Each set, then each set's spaces by op class: the evidence for a default per class.
    std::vector<std::string> sets, classes;  // in the order they are scored
    std::map<std::string, std::map<std::string, SetTally>> tallies;  // group -> searcher -> its runs
    for (const auto& space : spaces) {
      const Baselines baselines(space, settings.cutoff);
      const auto grid = score_grid(baselines, settings.grid);
      print_space(space, baselines);
      const std::string set = space.set + " set";
      const std::string set_class = set + ", " + space.op_class + " ops";
      if (std::find(sets.begin(), sets.end(), set) == sets.end()) sets.push_back(set);
      if (std::find(classes.begin(), classes.end(), set_class) == classes.end()) classes.push_back(set_class);
      for (const auto& searcher : searchers) {
        std::vector<Run> runs;
        for (uint64_t r = 0; r < settings.runs; ++r)
          runs.push_back(run_once(searcher, space, baselines, grid, settings.seed + r, settings));
        std::printf(kRowFormat, searcher.name.c_str(), with_interval(confidence_interval_95(field_of(runs, &Run::fair))).c_str(),
                    with_interval(confidence_interval_95(field_of(runs, &Run::head_start))).c_str(),
                    searcher_speed(runs).c_str(), reached(runs, &Run::to_5).c_str(), reached(runs, &Run::to_1).c_str());
        std::fflush(stdout);
        tallies[set][searcher.name].add(runs);
        tallies[set_class][searcher.name].add(runs);
      }
    }
    for (const auto& set : sets) print_group(set, searchers, tallies[set]);
    std::sort(classes.begin(), classes.end());
    for (const auto& group : classes) print_group(group, searchers, tallies[group]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "searcher_scores: %s\n", e.what());
    return 1;
  }
  return 0;
}
