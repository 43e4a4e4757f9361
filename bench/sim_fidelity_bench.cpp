// How well the simulator predicts a real chip: each kernel of a measured
// step profile (CANN's profiler rows: op type, block_dim, tensors, AI-core
// time; compact, msprof's op_summary_*.csv or MindSpore's framework_raw as
// they are written: kernel_profile.h) mapped to the simulator's model of it (cann_kernels.h)
// and timed with the default config, the tiling CANN's heuristic would pick.
//
//   sim_fidelity_bench --soc ascend910_30c resnet50.csv bert.csv [--json]
//   sim_fidelity_bench --fit resnet50.csv bert.csv   (fitted on one, scored on the other)
//   sim_fidelity_bench --kernels step.csv            (JSON with every kernel's figures)
//
// Per op type: kernels, share of the measured time, modelled / measured sum,
// median and worst |error| per kernel. Per file: coverage (share of the
// measured time the simulator models), the modelled sum of those kernels
// against their measured sum, the median |error| per kernel, Spearman's rho of
// modelled against measured times, and how often the default config's core
// count equals the profile's block_dim (where a model has that knob).
// Dtype labels from MindSpore's shifted type table (mindspore_dtypes.h) are
// read one type on, unless --labels-as-written.
//
// --fit FILE (repeatable) first fits the SoC's constants its file marks
// inferred or derived ([L], [M]: fixed costs, latencies, the vector unit's
// rate) to FILE's kernels, minimising the mean squared
// log of modelled / measured over the kernels it models, by coordinate
// descent within 1/8x..8x of each file value; it prints each constant that
// moved, then scores the positional files with the fitted chip.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "bench_args.h"
#include "soc_search_path.h"
#include "cann_kernels.h"
#include "kernel_profile.h"
#include "op_model.h"
#include "soc_files.h"

namespace {

using nlohmann::json;

struct Scored {
  const aoe::sim::ProfiledKernel* kernel = nullptr;
  double modelled_us = 0;  // 0: not modelled
  int64_t block_dim = 0;   // the default config's; 0: the model has no such knob
  std::string uncovered;
};

// A kernel with the simulator's tasks for it, built once: they do not
// depend on the SoC's constants.
struct Mapped {
  aoe::sim::ProfiledKernel kernel;
  aoe::sim::ModelledKernel modelled;
};

// A file's kernels, mapped, and what its reader said of the rest.
struct MappedProfile {
  std::vector<Mapped> kernels;
  std::map<std::string, int64_t> skipped, time_columns;
  std::string labels_shifted_by;
};

MappedProfile mapped(const std::string& file, aoe::sim::DtypeLabels labels) {
  auto profile = aoe::sim::read_kernel_profile(file, labels);
  MappedProfile out{{}, profile.skipped, profile.time_columns, profile.labels_shifted_by};
  for (auto& k : profile.kernels) {
    auto m = aoe::sim::modelled_kernel(k);
    out.kernels.push_back({std::move(k), std::move(m)});
  }
  return out;
}

Scored score(const aoe::sim::Soc& soc, const Mapped& m) {
  Scored s;
  s.kernel = &m.kernel;
  if (m.modelled.tasks.empty()) {
    s.uncovered = m.modelled.uncovered;
    return s;
  }
  try {
    double total = 0;
    for (size_t i = 0; i < m.modelled.tasks.size(); ++i) {
      const auto model = aoe::sim::op_model(soc, m.modelled.tasks[i]);
      const auto& space = model->space();
      total += model->time_us(space.default_config);
      if (i > 0) continue;
      for (size_t knob = 0; knob < space.knobs.size(); ++knob)
        if (space.knobs[knob].name == "block_dim") s.block_dim = space.default_config[knob];
    }
    s.modelled_us = total;
  } catch (const std::exception& e) {
    s.uncovered = m.kernel.op_type + ": " + e.what();
  }
  return s;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Ranks from 1, ties sharing their mean rank.
std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    for (size_t t = i; t <= j; ++t) r[order[t]] = 0.5 * static_cast<double>(i + j) + 1;
    i = j + 1;
  }
  return r;
}

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() < 2) return 0;
  const auto ra = ranks(a), rb = ranks(b);
  const double n = static_cast<double>(a.size());
  double ma = 0, mb = 0;
  for (size_t i = 0; i < ra.size(); ++i) ma += ra[i] / n, mb += rb[i] / n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < ra.size(); ++i) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0;
}

double relative_error(const Scored& s) {
  return std::fabs(s.modelled_us - s.kernel->measured_us) / std::max(s.kernel->measured_us, 1e-9);
}

// The figures of a set of scored kernels (a file, or one op type of it).
json figures(const std::vector<Scored>& scored) {
  double measured = 0, covered_measured = 0, modelled = 0, worst = 0;
  std::vector<double> errors, model_times, measured_times;
  size_t with_cores = 0, same_cores = 0;
  for (const auto& s : scored) {
    measured += s.kernel->measured_us;
    if (s.modelled_us <= 0) continue;
    covered_measured += s.kernel->measured_us;
    modelled += s.modelled_us;
    errors.push_back(relative_error(s));
    worst = std::max(worst, errors.back());
    model_times.push_back(s.modelled_us);
    measured_times.push_back(s.kernel->measured_us);
    if (s.block_dim > 0 && s.kernel->block_dim > 0) {  // a profile's 0: not recorded
      ++with_cores;
      same_cores += s.block_dim == s.kernel->block_dim ? 1 : 0;
    }
  }
  return {{"kernels", scored.size()},
          {"modelled_kernels", errors.size()},
          {"measured_us", measured},
          {"coverage", measured > 0 ? covered_measured / measured : 0},
          {"covered_measured_us", covered_measured},
          {"modelled_us", modelled},
          {"modelled_over_measured", covered_measured > 0 ? modelled / covered_measured : 0},
          {"median_abs_error", median(errors)},
          {"worst_abs_error", worst},
          {"spearman_rho", spearman(model_times, measured_times)},
          {"kernels_with_core_knob", with_cores},
          {"block_dim_equal_share", with_cores ? static_cast<double>(same_cores) / with_cores : 0}};
}

// Each kernel as scored: measured and modelled time, profiled and default core count.
json kernel_rows(const std::vector<Scored>& scored) {
  json out = json::array();
  for (const auto& s : scored)
    out.push_back({{"op_name", s.kernel->name},
                   {"op_type", s.kernel->op_type},
                   {"block_dim", s.kernel->block_dim},
                   {"default_block_dim", s.block_dim},
                   {"measured_us", s.kernel->measured_us},
                   {"modelled_us", s.modelled_us}});
  return out;
}

json score_file(const aoe::sim::Soc& soc, const std::string& file, const MappedProfile& profile, bool per_kernel) {
  std::vector<Scored> scored;
  for (const auto& k : profile.kernels) scored.push_back(score(soc, k));
  std::map<std::string, std::vector<Scored>> by_type;
  std::map<std::string, size_t> uncovered;  // reason -> kernels
  for (const auto& s : scored) {
    by_type[s.kernel->op_type].push_back(s);
    if (!s.uncovered.empty()) ++uncovered[s.uncovered];
  }
  json types = json::array();
  for (const auto& [type, list] : by_type) {
    json f = figures(list);
    f["op_type"] = type;
    types.push_back(f);
  }
  const json step = figures(scored);
  const double total = step["measured_us"].get<double>();
  std::sort(types.begin(), types.end(),
            [](const json& a, const json& b) { return a["measured_us"].get<double>() > b["measured_us"].get<double>(); });
  for (auto& t : types) t["share"] = total > 0 ? t["measured_us"].get<double>() / total : 0;
  json reasons = json::array();
  for (const auto& [why, n] : uncovered) reasons.push_back({{"reason", why}, {"kernels", n}});
  json out = {{"file", file},           {"soc", soc.target},
              {"step", step},           {"op_types", types},
              {"uncovered", reasons},   {"skipped_rows", profile.skipped},
              {"time_columns", profile.time_columns},
              {"labels_shifted_by", profile.labels_shifted_by}};
  if (per_kernel) out["kernels"] = kernel_rows(scored);
  return out;
}

// The constants a SoC file marks [L] or [M] that no measurement pins: the
// fixed costs and the vector unit's latencies and rate. The memory rates are
// [M] too, but read from CANN's platform files or measured on a card: a fit
// moving them would hide what the models lack.
struct Constant {
  const char* name;
  double aoe::sim::Soc::*field;
  double at_most = std::numeric_limits<double>::infinity();  // a share stops at 1
};
constexpr Constant kFitted[] = {
    {"launch_us", &aoe::sim::Soc::launch_us},
    {"block_launch_us", &aoe::sim::Soc::block_launch_us},
    {"dma_cycles", &aoe::sim::Soc::dma_cycles},
    {"mte1_cycles", &aoe::sim::Soc::mte1_cycles},
    {"mmad_cycles", &aoe::sim::Soc::mmad_cycles},
    {"vector_latency_cycles", &aoe::sim::Soc::vector_latency_cycles},
    {"transcendental_latency_cycles", &aoe::sim::Soc::transcendental_latency_cycles},
    {"transcendental_elems_per_cycle", &aoe::sim::Soc::transcendental_elems_per_cycle},
    {"index_cycles", &aoe::sim::Soc::index_cycles},
    {"ub_contention", &aoe::sim::Soc::ub_contention, 1},
};

// Mean squared log of modelled / measured over the kernels the SoC models.
double fit_loss(const aoe::sim::Soc& soc, const std::vector<const Mapped*>& kernels) {
  double sum = 0;
  size_t n = 0;
  for (const auto* m : kernels) {
    const Scored s = score(soc, *m);
    if (s.modelled_us <= 0 || m->kernel.measured_us <= 0) continue;
    const double e = std::log(s.modelled_us / m->kernel.measured_us);
    sum += e * e;
    ++n;
  }
  return n ? sum / static_cast<double>(n) : 0;
}

// Coordinate descent in log space: each constant tried at x step and x 1/step
// of its value, the step halving (in log) when no constant improves.
aoe::sim::Soc fit(const aoe::sim::Soc& start, const std::vector<const Mapped*>& kernels) {
  aoe::sim::Soc best = start;
  double best_loss = fit_loss(best, kernels);
  for (double step = 2.0; step > 1.02; step = std::sqrt(step)) {
    for (bool improved = true; improved;) {
      improved = false;
      for (const auto& c : kFitted)
        for (double factor : {step, 1.0 / step}) {
          aoe::sim::Soc trial = best;
          const double v = best.*c.field * factor, from = start.*c.field;
          if (from <= 0 || v > 8 * from || v < from / 8 || v > c.at_most) continue;
          trial.*c.field = v;
          const double loss = fit_loss(trial, kernels);
          if (loss < best_loss - 1e-12) {
            best = trial;
            best_loss = loss;
            improved = true;
          }
        }
    }
  }
  return best;
}

json moved(const aoe::sim::Soc& from, const aoe::sim::Soc& to) {
  json out = json::array();
  for (const auto& c : kFitted)
    if (from.*c.field != to.*c.field) out.push_back({{"constant", c.name}, {"from", from.*c.field}, {"to", to.*c.field}});
  return out;
}

void print(const json& r) {
  const auto& s = r["step"];
  std::printf("\n%s on %s: %zu kernels, %.2f ms measured\n", r["file"].get<std::string>().c_str(),
              r["soc"].get<std::string>().c_str(), s["kernels"].get<size_t>(), s["measured_us"].get<double>() / 1e3);
  if (!r["time_columns"].contains("measured_us")) {  // a profiler's own output: say which time it read
    std::printf("times from");
    for (const auto& [column, rows] : r["time_columns"].items())
      std::printf(" %s (%lld rows)", column.c_str(), static_cast<long long>(rows.get<int64_t>()));
    std::printf("\n");
  }
  if (const auto& by = r["labels_shifted_by"].get<std::string>(); !by.empty())
    std::printf("dtype labels read one type on (float as float16, float16 as float32, ...): '%s', a type no tensor of\n"
                "a MindSpore step has, shows MindSpore's shifted type table (--labels-as-written reads them as written)\n",
                by.c_str());
  for (const auto& [task, rows] : r["skipped_rows"].items())
    std::printf("skipped %lld rows not run on AI cores (%s)\n", static_cast<long long>(rows.get<int64_t>()), task.c_str());
  std::printf("%-46s %6s %7s %8s %9s %9s\n", "op type", "count", "share", "mod/meas", "median|e|", "worst|e|");
  for (const auto& t : r["op_types"]) {
    if (t["modelled_kernels"].get<size_t>() == 0) {
      std::printf("%-46s %6zu %6.2f%% %8s %9s %9s\n", t["op_type"].get<std::string>().c_str(), t["kernels"].get<size_t>(),
                  100 * t["share"].get<double>(), "-", "-", "-");
      continue;
    }
    std::printf("%-46s %6zu %6.2f%% %8.2f %8.1f%% %8.1f%%\n", t["op_type"].get<std::string>().c_str(),
                t["kernels"].get<size_t>(), 100 * t["share"].get<double>(), t["modelled_over_measured"].get<double>(),
                100 * t["median_abs_error"].get<double>(), 100 * t["worst_abs_error"].get<double>());
  }
  std::printf("coverage %.1f%% of the measured time (%zu of %zu kernels)\n", 100 * s["coverage"].get<double>(),
              s["modelled_kernels"].get<size_t>(), s["kernels"].get<size_t>());
  std::printf("modelled %.2f ms against %.2f ms measured for those kernels (%.2fx)\n",
              s["modelled_us"].get<double>() / 1e3, s["covered_measured_us"].get<double>() / 1e3,
              s["modelled_over_measured"].get<double>());
  std::printf("median |error| per kernel %.1f%%, Spearman rho %.3f, default core count = block_dim for %.1f%% of %zu kernels\n",
              100 * s["median_abs_error"].get<double>(), s["spearman_rho"].get<double>(),
              100 * s["block_dim_equal_share"].get<double>(), s["kernels_with_core_knob"].get<size_t>());
  for (const auto& u : r["uncovered"])
    std::printf("  uncovered %zu: %s\n", u["kernels"].get<size_t>(), u["reason"].get<std::string>().c_str());
}

int usage(const char* argv0, int code) {
  std::fprintf(code ? stderr : stdout,
               "usage: %s [--soc <target or file.yaml>] [--fit PROFILE.csv]... [--json] [--kernels] [--labels-as-written]\n"
               "       PROFILE.csv...\n"
               "Scores the simulator (default SoC ascend910_30c) against measured kernel profiles:\n"
               "CSV rows of op_name, op_type, block_dim, inputs, outputs, measured_us, or CANN's\n"
               "profiler output as it writes it (msprof's op_summary_*.csv, torch_npu's\n"
               "kernel_details.csv), or MindSpore's (framework_raw_N.csv, timed by the\n"
               "aicore_intermediate_N_detail.csv beside it); rows not run on AI cores are skipped. --fit first fits\n"
               "the SoC's inferred constants to the named profiles, then scores with the fitted chip.\n"
               "--kernels adds each kernel's measured and modelled time and core counts to the JSON.\n"
               "A profile naming a type no tensor of a MindSpore step has (begin, int, uint, int16; the generic\n"
               "float of MindSpore's own files) holds MindSpore's shifted type labels, read one type on;\n"
               "--labels-as-written reads them as written.\n",
               argv0);
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  std::string soc_name = "ascend910_30c";
  bool as_json = false, per_kernel = false;
  auto labels = aoe::sim::DtypeLabels::detect;
  std::vector<std::string> files, fit_files;
  try {
    aoe::bench::Args args(argc, argv);
    while (args.next()) {
      const auto& o = args.option();
      if (o == "--soc") soc_name = args.value();
      else if (o == "--json") as_json = true;
      else if (o == "--kernels") per_kernel = as_json = true;
      else if (o == "--fit") fit_files.push_back(args.value());
      else if (o == "--labels-as-written") labels = aoe::sim::DtypeLabels::as_written;
      else if (o == "--help" || o == "-h") return usage(argv[0], 0);
      else if (!o.empty() && o[0] == '-') throw std::invalid_argument("unknown option " + o);
      else files.push_back(o);
    }
    if (files.empty()) return usage(argv[0], 2);
    aoe::bench::find_source_tree_socs();
    const auto given = aoe::sim::load_soc(soc_name);
    auto soc = given;
    json report = {{"soc", given.target}, {"files", json::array()}};
    std::map<std::string, MappedProfile> kernels;
    for (const auto& f : fit_files) kernels.emplace(f, mapped(f, labels));
    for (const auto& f : files) kernels.emplace(f, mapped(f, labels));
    if (!fit_files.empty()) {
      std::vector<const Mapped*> fitted_on;
      for (const auto& f : fit_files)
        for (const auto& m : kernels.at(f).kernels) fitted_on.push_back(&m);
      soc = fit(given, fitted_on);
      report["fitted_on"] = fit_files;
      report["moved"] = moved(given, soc);
      report["fit_loss"] = {{"before", fit_loss(given, fitted_on)}, {"after", fit_loss(soc, fitted_on)}};
    }
    for (const auto& f : files) report["files"].push_back(score_file(soc, f, kernels.at(f), per_kernel));
    if (as_json) {
      std::printf("%s\n", report.dump(2).c_str());
      return 0;
    }
    if (report.contains("moved")) {
      std::printf("%s fitted on", given.target.c_str());
      for (const auto& f : fit_files) std::printf(" %s", f.c_str());
      std::printf(" (mean squared log error %.4f -> %.4f):\n", report["fit_loss"]["before"].get<double>(),
                  report["fit_loss"]["after"].get<double>());
      for (const auto& m : report["moved"])
        std::printf("  %-32s %10.4g -> %10.4g\n", m["constant"].get<std::string>().c_str(), m["from"].get<double>(),
                    m["to"].get<double>());
    }
    for (const auto& r : report["files"]) print(r);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sim_fidelity_bench: %s\n", e.what());
    return 1;
  }
}
