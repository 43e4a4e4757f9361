// Model time on each device with no tuning, OPAT alone, SGAT alone, and SGAT
// then OPAT, each pipeline in its own bank, all four timed the same way:
// SGAT's sum over the model's subgraphs, measured on the device as wholes
// with the strategies and operator tilings their banks hold. Each subgraph
// is timed in one batch beside the same subgraph untuned (default strategy,
// default tilings), which the device times in turns with it; a pipeline's
// figure is its model time over the untuned model's from the same batches,
// the median over rounds, times the untuned model's median time. On a
// shared machine a busy spell then slows both sides of every ratio alike.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_args.h"
#include "host_runner.h"

namespace {

namespace fs = std::filesystem;
using aoe::bench::count;
using aoe::bench::run_host;
using aoe::bench::split_list;
using nlohmann::json;

constexpr const char* kUsage =
    "usage: sgat_bench [--models a,b] [--devices d,e] [--budget N] [--cpu_budget N] [--rounds N] [--work DIR]\n"
    "  --models      models of the build's models directory, without .onnx (default resnet50,bert_layer)\n"
    "  --devices     device targets (default ascend910,cpu)\n"
    "  --budget      evaluations per task, for SGAT and OPAT alike, on the simulator (default 48)\n"
    "  --cpu_budget  the same on the cpu, where each evaluation really runs (default 24)\n"
    "  --rounds      timing rounds of the four tuned models (default 5); each keeps its median ratio to untuned\n"
    "  --work        scratch directory for the banks and result files (default: a fresh one in $TMPDIR)\n"
    "Pipelines, each with a fresh bank:\n"
    "  none       an empty bank: the default strategy and default tilings\n"
    "  OPAT       OPAT\n"
    "  SGAT       SGAT\n"
    "  SGAT+OPAT  SGAT, then OPAT (which follows SGAT's strategies) in a copy of SGAT's bank\n"
    "Each is then timed by SGAT --budget 0 in its bank.\n";

struct Options {
  std::vector<std::string> models = {"resnet50", "bert_layer"};
  std::vector<std::string> devices = {"ascend910", "cpu"};
  uint64_t budget = 48, cpu_budget = 24, rounds = 5;
  fs::path work;
};

Options parse(int argc, char** argv) {
  Options o;
  for (aoe::bench::Args args(argc, argv); args.next();) {
    const std::string& arg = args.option();
    const auto value = [&] { return args.value(); };
    if (arg == "--models") o.models = split_list(value());
    else if (arg == "--devices") o.devices = split_list(value());
    else if (arg == "--budget") o.budget = count(value(), arg);
    else if (arg == "--cpu_budget") o.cpu_budget = count(value(), arg);
    else if (arg == "--rounds") o.rounds = std::max<uint64_t>(1, count(value(), arg));
    else if (arg == "--work") o.work = value();
    else if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else throw std::invalid_argument("unknown option '" + arg + "'");
  }
  if (o.models.empty() || o.devices.empty()) throw std::invalid_argument("--models and --devices name at least one");
  return o;
}

// One aoe-host run; its SGAT or OPAT section, or an error naming its log.
json run(const std::string& job_type, const std::string& model, const std::string& device, uint64_t budget,
         const fs::path& dir, const fs::path& bank) {
  const std::vector<std::string> args = {AOE_BENCH_HOST, "--job_type", job_type, "--device", device, "--model",
                                         (fs::path(AOE_BENCH_MODELS_DIR) / (model + ".onnx")).string(),
                                         "--budget", std::to_string(budget)};
  const auto r = run_host(args, dir, bank);
  if (r.exit_code != 0)
    throw std::runtime_error("aoe-host exited " + std::to_string(r.exit_code) + "; see " + (dir / "stderr.txt").string());
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("aoe_result_", 0) == 0) {
      std::ifstream in(e.path());
      const json file = aoe::test::result_sections(json::parse(in));
      return file.at(job_type == "1" ? "SGAT" : "OPAT");
    }
  throw std::runtime_error("no result file in " + dir.string());
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Pipeline {
  const char* name;
  fs::path bank;
  std::vector<double> ratios;  // per round: model time over the untuned model's, timed beside it
};

// Tunes the model into each pipeline's bank: none, OPAT, SGAT, SGAT+OPAT.
std::vector<Pipeline> tune(const std::string& model, const std::string& device, uint64_t budget, const fs::path& w) {
  std::vector<Pipeline> p = {{"none", w / "none"}, {"OPAT", w / "opat"}, {"SGAT", w / "sgat"}, {"SGAT+OPAT", w / "both"}};
  for (const auto& each : p) fs::create_directories(each.bank);  // a bank with no entry yet is still a bank
  run("2", model, device, budget, w / "runs" / "opat", p[1].bank);
  run("1", model, device, budget, w / "runs" / "sgat", p[2].bank);
  fs::copy(p[2].bank, p[3].bank, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  run("2", model, device, budget, w / "runs" / "sgat_then_opat", p[3].bank);
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Options opts = parse(argc, argv);
    if (opts.work.empty()) opts.work = fs::temp_directory_path() / ("aoe_sgat_bench_" + std::to_string(::getpid()));
    std::printf("%-12s %-10s %10s %10s %10s %10s %10s %10s\n", "model", "device", "none ms", "OPAT ms", "SGAT ms",
                "SGAT+OPAT", "OPAT/none", "S+O/OPAT");
    for (const auto& device : opts.devices) {
      const uint64_t budget = device == "cpu" ? opts.cpu_budget : opts.budget;
      for (const auto& model : opts.models) {
        const fs::path w = opts.work / device / model;
        auto pipelines = tune(model, device, budget, w);
        std::vector<double> untuned_ms;
        for (uint64_t round = 0; round < opts.rounds; ++round)
          for (size_t i = 0; i < pipelines.size(); ++i) {
            auto& p = pipelines[(i + round) % pipelines.size()];
            const fs::path dir = w / "runs" / ("time_" + std::string(p.bank.filename()) + "_" + std::to_string(round));
            const json sgat = run("1", model, device, 0, dir, p.bank);
            const double untuned = sgat.at("model_untuned_performance(ms)").get<double>();
            p.ratios.push_back(sgat.at("model_result_performance(ms)").get<double>() / untuned);
            untuned_ms.push_back(untuned);
          }
        const double base = median(untuned_ms);
        std::vector<double> ms;
        for (const auto& p : pipelines) ms.push_back(base * median(p.ratios));
        std::printf("%-12s %-10s %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f\n", model.c_str(), device.c_str(), ms[0],
                    ms[1], ms[2], ms[3], ms[1] / ms[0], ms[3] / ms[1]);
        // The spread behind the last column: each round's SGAT+OPAT over its OPAT.
        std::printf("%-23s S+O/OPAT per round:", "");
        for (uint64_t round = 0; round < opts.rounds; ++round)
          std::printf(" %.3f", pipelines[3].ratios[round] / pipelines[1].ratios[round]);
        std::printf("\n");
        std::fflush(stdout);
      }
    }
    std::printf("(OPAT/none and S+O/OPAT below 1 are gains; scratch: %s)\n", opts.work.string().c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sgat_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
