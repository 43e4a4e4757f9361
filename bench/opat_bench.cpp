// Runs the real aoe-host on whole models with each searcher, then once with the
// exhaustive searcher, and prints per model how close each searcher came to the
// optimum in its budget, what it cost, and what it gained the model.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_args.h"
#include "host_runner.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using aoe::bench::Run;
using aoe::bench::count;
using aoe::bench::run_host;
using aoe::bench::split_list;

// Large enough that the exhaustive searcher walks every space the simulator offers.
constexpr uint64_t kExhaustiveBudget = 2000000;
constexpr const char* kUsage =
    "usage: opat_bench [--models a,b] [--budget N] [--device D] [--work DIR] [--keep]\n"
    "  --models   models of the build's models directory, without .onnx (default resnet50,bert_base,mobilenet_v2)\n"
    "  --budget   evaluations per op task for each searcher (default 64)\n"
    "  --device   device target (default ascend910)\n"
    "  --work     scratch directory for the runs' banks and result files (default: a fresh one in $TMPDIR)\n"
    "  --keep     keep the scratch directory (it is kept anyway when a run fails)\n"
    "Runs aoe-host once per searcher (ga, rl, random, and the host's default),\n"
    "each with a fresh bank, then with --searcher exhaustive --budget 2000000 as the reference optimum.\n";

struct Options {
  std::vector<std::string> models = {"resnet50", "bert_base", "mobilenet_v2"};
  uint64_t budget = 64;
  std::string device = "ascend910";
  fs::path work;
  bool keep = false;
};

Options parse(int argc, char** argv) {
  Options o;
  for (aoe::bench::Args args(argc, argv); args.next();) {
    const std::string& arg = args.option();
    const auto value = [&] { return args.value(); };
    if (arg == "--models") o.models = split_list(value());
    else if (arg == "--budget") o.budget = count(value(), arg);
    else if (arg == "--device") o.device = value();
    else if (arg == "--work") o.work = value();
    else if (arg == "--keep") o.keep = true;
    else if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else throw std::invalid_argument("unknown option '" + arg + "'");
  }
  if (o.models.empty()) throw std::invalid_argument("--models names no model");
  if (o.budget == 0) throw std::invalid_argument("--budget must be at least 1");
  return o;
}

// ---- reading a run ---------------------------------------------------------------------

struct Task {
  std::string name;  // the first fused op's anchor node
  double after_us = 0;
  uint64_t evaluations = 0;
  std::string stop_reason;
  json config;
};

struct Outcome {
  Run run;
  std::optional<json> result;          // the result file, when the run left one
  std::map<std::string, Task> tasks;   // by signature hash: the tuned unique tasks
  uint64_t fused_ops = 0, unique_tasks = 0;
  size_t failed = 0, unsupported = 0;
  uint64_t evaluations = 0;
  double baseline_ms = 0, result_ms = 0, tuning_s = 0;
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string last_line(const fs::path& path) {
  std::string text = read_text(path);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text.substr(text.find_last_of('\n') + 1) + " (" + path.string() + ")";
}

// The console's "N nodes fused into M ops" and "K op tasks to tune": the result file
// lists only unique tasks, and unsupported ones without their instances.
uint64_t logged_count(const std::string& log, const std::string& before, const std::string& after) {
  for (size_t at = log.find(after); at != std::string::npos; at = log.find(after, at + 1)) {
    size_t begin = at;
    while (begin > 0 && std::isdigit(static_cast<unsigned char>(log[begin - 1]))) --begin;
    if (begin == at || begin < before.size() || log.compare(begin - before.size(), before.size(), before) != 0)
      continue;
    return std::stoull(log.substr(begin, at - begin));
  }
  return 0;
}

std::optional<fs::path> result_file(const fs::path& dir) {
  std::optional<fs::path> found;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const auto name = entry.path().filename().string();
    if (name.starts_with("aoe_result_opat_") && name.ends_with(".json") && (!found || entry.path() > *found))
      found = entry.path();
  }
  return found;
}

Outcome read_outcome(const Run& run) {
  Outcome o;
  o.run = run;
  const std::string log = read_text(run.dir / "stdout.txt") + read_text(run.dir / "stderr.txt");
  o.fused_ops = logged_count(log, " fused into ", " ops");
  o.unique_tasks = logged_count(log, "] ", " op tasks to tune");
  const auto path = result_file(run.dir);
  if (!path) return o;
  o.result = aoe::test::result_sections(json::parse(read_text(*path)));
  const json& opat = o.result->at("OPAT");
  o.baseline_ms = opat.value("model_baseline_performance(ms)", 0.0);
  o.result_ms = opat.value("model_result_performance(ms)", 0.0);
  o.tuning_s = o.result->at("basic").value("tuning_time(s)", 0.0);
  o.failed = opat.value("tuning_failed_operators", json::array()).size();
  o.unsupported = opat.value("unsupported_operators", json::array()).size();
  for (const auto& op : opat.at("opat_tuned_operators")) {
    const std::string name = op.value("op_name", "");
    Task t{.name = name.substr(0, name.find('+')),
           .after_us = op.value("performance_after_tune(us)", 0.0),
           .evaluations = op.value("evaluations", uint64_t{0}),
           .stop_reason = op.value("stop_reason", ""),
           .config = op.value("config", json::object())};
    o.evaluations += t.evaluations;
    o.tasks[op.value("signature_hash", name)] = std::move(t);
  }
  return o;
}

// ---- the table -------------------------------------------------------------------------

struct VsOptimum {
  size_t compared = 0, at_optimum = 0;
  double geomean = 0, worst = 0;
  std::string worst_task;
};

// A task is at the optimum when it runs as fast as the exhaustive walk's best; the
// simulator is deterministic unless asked for noise, so equal means equal.
VsOptimum versus(const Outcome& run, const Outcome& reference) {
  VsOptimum v;
  double log_sum = 0;
  for (const auto& [hash, task] : run.tasks) {
    const auto it = reference.tasks.find(hash);
    if (it == reference.tasks.end() || it->second.after_us <= 0) continue;
    const double ratio = task.after_us / it->second.after_us;
    ++v.compared;
    log_sum += std::log(ratio);
    if (ratio <= 1 + 1e-9 || task.config == it->second.config) ++v.at_optimum;
    if (ratio > v.worst) {
      v.worst = ratio;
      v.worst_task = task.name;
    }
  }
  if (v.compared) v.geomean = std::exp(log_sum / static_cast<double>(v.compared));
  return v;
}

void print_row(const std::string& label, const Outcome& o, const Outcome* reference) {
  if (!o.result) {
    std::printf("  %-16s exit %d, no result file: %s\n", label.c_str(), o.run.exit_code,
                last_line(o.run.dir / "stderr.txt").c_str());
    return;
  }
  const double gain = o.baseline_ms > 0 ? (o.baseline_ms - o.result_ms) / o.baseline_ms * 100 : 0;
  std::printf("  %-16s %6llu %6llu %6zu %10llu %8.1f %8.1f %7.2f", label.c_str(),
              static_cast<unsigned long long>(o.fused_ops), static_cast<unsigned long long>(o.unique_tasks),
              o.tasks.size(), static_cast<unsigned long long>(o.evaluations), o.run.wall_s, o.tuning_s, gain);
  if (reference && reference->result) {
    const auto v = versus(o, *reference);
    std::printf("  %9.4f %7.4f %8s  %s", v.geomean, v.worst,
                (std::to_string(v.at_optimum) + "/" + std::to_string(v.compared)).c_str(),
                v.worst > 1 + 1e-9 ? v.worst_task.c_str() : "-");
  }
  if (o.run.exit_code != 0) std::printf("  (exit %d)", o.run.exit_code);
  std::printf("\n");
}

void print_table(const std::string& model, const Options& opts, const std::vector<std::pair<std::string, Outcome>>& rows,
                 const Outcome& reference) {
  std::printf("\n%s on %s, budget %llu per task\n", model.c_str(), opts.device.c_str(),
              static_cast<unsigned long long>(opts.budget));
  std::printf("  %-16s %6s %6s %6s %10s %8s %8s %7s  %9s %7s %8s  %s\n", "searcher", "fused", "unique", "tuned",
              "evals", "wall s", "tune s", "gain %", "found/opt", "worst", "at opt", "worst task");
  for (const auto& [label, outcome] : rows) print_row(label, outcome, &reference);
  print_row("exhaustive", reference, nullptr);
  if (!reference.result) return;
  size_t capped = 0;
  for (const auto& [hash, task] : reference.tasks) capped += task.stop_reason == "budget";
  std::printf("  fused: fused ops; unique: op tasks by signature; tuned: unique tasks with a result "
              "(%zu failed, %zu unsupported in the reference run)\n",
              reference.failed, reference.unsupported);
  std::printf("  gain: model time before -> after; found/opt: geometric mean over tuned tasks of "
              "after_us / exhaustive after_us; worst: the largest\n");
  if (capped)
    std::printf("  note: the exhaustive run stopped at its budget on %zu tasks: their optimum is the best of %llu\n",
                capped, static_cast<unsigned long long>(kExhaustiveBudget));
}


}  // namespace

int main(int argc, char** argv) {
  try {
    Options opts = parse(argc, argv);
    const fs::path models_dir = AOE_BENCH_MODELS_DIR;
    aoe::bench::require_models(models_dir, opts.models);
    const bool own_scratch = opts.work.empty();
    if (own_scratch) opts.work = aoe::bench::make_scratch("opat_bench");
    std::printf("aoe-host %s\nscratch %s\n", AOE_BENCH_HOST, opts.work.c_str());
    std::fflush(stdout);

    bool all_ran = true;
    const std::vector<std::pair<std::string, std::string>> searchers = {
        {"default", ""}, {"ga", "ga"}, {"rl", "rl"}, {"random", "random"}};
    for (const auto& model : opts.models) {
      const auto host_args = [&](uint64_t budget, const std::string& searcher) {
        std::vector<std::string> args = {AOE_BENCH_HOST, "--plugin", "opat", "--device", opts.device,
                                         "--model", (models_dir / (model + ".onnx")).string(),
                                         "--budget", std::to_string(budget)};
        if (!searcher.empty()) args.insert(args.end(), {"--searcher", searcher});
        return args;
      };
      std::vector<std::pair<std::string, Outcome>> rows;
      for (const auto& [label, searcher] : searchers) {
        const auto dir = opts.work / model / (searcher.empty() ? "default" : searcher);
        std::fprintf(stderr, "%s: %s...\n", model.c_str(), label.c_str());
        rows.emplace_back(label, read_outcome(run_host(host_args(opts.budget, searcher), dir, dir / "bank")));
        all_ran = all_ran && rows.back().second.run.exit_code == 0;
      }
      std::fprintf(stderr, "%s: exhaustive...\n", model.c_str());
      const Outcome reference =
          read_outcome(run_host(host_args(kExhaustiveBudget, "exhaustive"), opts.work / model / "exhaustive",
                                   opts.work / model / "exhaustive" / "bank"));
      all_ran = all_ran && reference.run.exit_code == 0;
      print_table(model, opts, rows, reference);
      std::fflush(stdout);
    }
    if (own_scratch && all_ran && !opts.keep) fs::remove_all(opts.work);
    else std::printf("\nruns kept in %s\n", opts.work.c_str());
    return all_ran ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "opat_bench: %s\n%s", e.what(), kUsage);
    return 2;
  }
}
