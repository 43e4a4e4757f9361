// Runs the real aoe-host (OPAT, budget 1: each op's default timed; the random
// searcher, the cheapest to start) on whole
// models and devices, and prints per model and device what share of the
// model time no kernel of that device covers: the ops neither tuned nor
// timed, weighed by the time a device that times every op gives them.
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
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_args.h"
#include "host_runner.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kUsage =
    "usage: coverage_bench [--models a,b] [--devices d,e] [--work DIR]\n"
    "  --models   models of the build's models directory, without .onnx\n"
    "             (default resnet50,mobilenet_v2,bert_base,ocr_det,ocr_cls)\n"
    "  --devices  device targets (default ascend910,cpu)\n"
    "  --work     scratch directory for the runs (default: a fresh one in $TMPDIR, removed after)\n";

struct Options {
  std::vector<std::string> models = {"resnet50", "mobilenet_v2", "bert_base", "ocr_det", "ocr_cls"};
  std::vector<std::string> devices = {"ascend910", "cpu"};
  fs::path work;
};

Options parse(int argc, char** argv) {
  Options o;
  for (aoe::bench::Args args(argc, argv); args.next();) {
    const std::string& arg = args.option();
    if (arg == "--models") o.models = aoe::bench::split_list(args.value());
    else if (arg == "--devices") o.devices = aoe::bench::split_list(args.value());
    else if (arg == "--work") o.work = args.value();
    else if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else throw std::invalid_argument("unknown option '" + arg + "'");
  }
  if (o.models.empty() || o.devices.empty()) throw std::invalid_argument("--models and --devices must name something");
  return o;
}

// One device's view of a model: each node's time (its fused op's time
// shared among the op's nodes) and the nodes nothing timed.
struct Coverage {
  int exit_code = -1;
  std::map<std::string, double> node_us;
  std::set<std::string> untimed;
  std::map<std::string, size_t> untimed_types;
};

std::vector<std::string> nodes_of(const std::string& fused) {
  std::vector<std::string> out;
  size_t from = 0;
  for (size_t plus; (plus = fused.find('+', from)) != std::string::npos; from = plus + 1)
    out.push_back(fused.substr(from, plus - from));
  out.push_back(fused.substr(from));
  return out;
}

std::optional<json> read_result(const fs::path& dir) {
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("aoe_result_", 0) == 0) {
      std::ifstream in(e.path());
      return aoe::test::result_sections(json::parse(in));
    }
  return std::nullopt;
}

Coverage cover(const std::string& model, const std::string& device, const fs::path& models_dir, const fs::path& dir) {
  Coverage c;
  const auto run = aoe::bench::run_host({AOE_BENCH_HOST, "--plugin", "opat", "--device", device, "--model",
                                         (models_dir / (model + ".onnx")).string(), "--budget", "1",
                                         "--searcher", "random"},
                                        dir, dir / "bank");
  c.exit_code = run.exit_code;
  const auto result = read_result(dir);
  if (!result || !result->contains("OPAT")) return c;
  const json& opat = (*result)["OPAT"];
  for (const auto& op : opat.value("opat_tuned_operators", json::array())) {
    if (!op.contains("performance_before_tune(us)")) continue;
    const double us = op["performance_before_tune(us)"].get<double>();
    for (const auto& instance : op["nodes"]) {
      const auto nodes = nodes_of(instance.get<std::string>());
      for (const auto& n : nodes) c.node_us[n] += us / static_cast<double>(nodes.size());
    }
  }
  std::map<std::string, std::string> type_of;
  for (const auto& op : opat.value("unsupported_operators", json::array()))
    type_of[op.value("op_name", "")] = op.value("op_type", "");
  for (const auto& op : opat.value("opat_tuned_operators", json::array()))
    type_of[op.value("op_name", "")] = op.value("op_type", "");
  for (const auto& name : opat.value("untimed_operators", json::array()))
    for (const auto& n : nodes_of(name.get<std::string>())) {
      c.untimed.insert(n);
      ++c.untimed_types[type_of.count(name.get<std::string>()) ? type_of[name.get<std::string>()] : n];
    }
  return c;
}


void print_model(const std::string& model, const Options& opts, const std::map<std::string, Coverage>& by_device) {
  // The reference: the first device that timed every node.
  const Coverage* reference = nullptr;
  std::string reference_name;
  for (const auto& d : opts.devices) {
    const auto& c = by_device.at(d);
    if (c.exit_code == 0 && c.untimed.empty() && !c.node_us.empty()) {
      reference = &c;
      reference_name = d;
      break;
    }
  }
  std::printf("\n%s\n", model.c_str());
  for (const auto& d : opts.devices) {
    const auto& c = by_device.at(d);
    if (c.exit_code != 0) {
      std::printf("  %-10s exit %d\n", d.c_str(), c.exit_code);
      continue;
    }
    double model_ms = 0;
    for (const auto& [n, us] : c.node_us) model_ms += us / 1000;
    std::string share = "unknown (no device times every op)";
    if (reference) {
      double all = 0, missing = 0;
      for (const auto& [n, us] : reference->node_us) {
        all += us;
        if (c.untimed.count(n)) missing += us;
      }
      char text[64];
      std::snprintf(text, sizeof text, "%.2f%%", all > 0 ? 100 * missing / all : 0.0);
      share = text;
    } else if (c.untimed.empty()) {
      share = "0.00%";
    }
    std::string types;
    for (const auto& [t, n] : c.untimed_types) types += (types.empty() ? "" : ", ") + t + " x" + std::to_string(n);
    std::printf("  %-10s model %9.3f ms timed, %4zu nodes untimed, uncovered %s%s%s\n", d.c_str(), model_ms,
                c.untimed.size(), share.c_str(), types.empty() ? "" : ": ", types.c_str());
  }
  if (reference) std::printf("  (uncovered share weighed by %s's times)\n", reference_name.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Options opts = parse(argc, argv);
    const fs::path models_dir = AOE_BENCH_MODELS_DIR;
    aoe::bench::require_models(models_dir, opts.models);
    const bool own_scratch = opts.work.empty();
    if (own_scratch) opts.work = aoe::bench::make_scratch("coverage_bench");
    std::printf("aoe-host %s, OPAT with budget 1 (each op's default config timed)\n", AOE_BENCH_HOST);
    bool all_ran = true;
    for (const auto& model : opts.models) {
      std::map<std::string, Coverage> by_device;
      for (const auto& device : opts.devices) {
        std::fprintf(stderr, "%s on %s...\n", model.c_str(), device.c_str());
        by_device[device] = cover(model, device, models_dir, opts.work / model / device);
        all_ran = all_ran && by_device[device].exit_code == 0;
      }
      print_model(model, opts, by_device);
      std::fflush(stdout);
    }
    if (own_scratch && all_ran) fs::remove_all(opts.work);
    else std::printf("\nruns kept in %s\n", opts.work.c_str());
    return all_ran ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "coverage_bench: %s\n%s", e.what(), kUsage);
    return 2;
  }
}
