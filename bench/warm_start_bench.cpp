// OPAT's warm start, measured: a bank is filled by tuning some shapes of each
// op type, then new, nearby shapes are tuned at small budgets from copies of
// it, with and without warm start, side by side; an exhaustive walk of the
// new shapes gives the optimum both are held to.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_args.h"
#include "host_runner.h"

namespace {

namespace fs = std::filesystem;
using aoe::bench::count;
using aoe::bench::Run;
using aoe::bench::run_host;
using aoe::bench::split_list;
using nlohmann::json;

constexpr uint64_t kExhaustiveBudget = 2000000;
constexpr const char* kUsage =
    "usage: warm_start_bench [--budgets 8,16,32] [--seeds N] [--searcher S] [--bank_searcher S] [--bank_budget N]\n"
    "                        [--device D] [--work DIR] [--keep]\n"
    "  --budgets        evaluations per op task of the new shapes (default 8,16,32)\n"
    "  --seeds          search seeds per budget and side, averaged over (default 3)\n"
    "  --searcher       searcher of the new shapes' runs (default: the host's choice per op)\n"
    "  --bank_searcher  searcher that fills the bank (default exhaustive: the banked shapes' optimum)\n"
    "  --bank_budget    evaluations per op task when filling the bank (default 2000000)\n"
    "  --device         device target (default ascend910)\n"
    "  --work           scratch directory (default: a fresh one in $TMPDIR)\n"
    "  --keep           keep the scratch directory (it is kept anyway when a run fails)\n"
    "Fills a bank with 15 MatMul, Conv and Softmax shapes, then tunes 12 nearby shapes from a fresh copy of it\n"
    "per run, with --warm_start true and false; the optimum is --searcher exhaustive --budget 2000000.\n";

struct Options {
  std::vector<uint64_t> budgets = {8, 16, 32};
  uint64_t seeds = 3;
  std::string searcher;
  // The bank holds the best configs of its shapes, as a bank tuned at length does.
  uint64_t bank_budget = 2000000;
  std::string bank_searcher = "exhaustive";
  std::string device = "ascend910";
  fs::path work;
  bool keep = false;
};

Options parse(int argc, char** argv) {
  Options o;
  for (aoe::bench::Args args(argc, argv); args.next();) {
    const std::string& arg = args.option();
    const auto value = [&] { return args.value(); };
    if (arg == "--budgets") {
      o.budgets.clear();
      for (const auto& b : split_list(value())) o.budgets.push_back(count(b, arg));
    } else if (arg == "--seeds") o.seeds = count(value(), arg);
    else if (arg == "--searcher") o.searcher = value();
    else if (arg == "--bank_budget") o.bank_budget = count(value(), arg);
    else if (arg == "--bank_searcher") o.bank_searcher = value();
    else if (arg == "--device") o.device = value();
    else if (arg == "--work") o.work = value();
    else if (arg == "--keep") o.keep = true;
    else if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else throw std::invalid_argument("unknown option '" + arg + "'");
  }
  if (o.budgets.empty()) throw std::invalid_argument("--budgets names no budget");
  for (const auto b : o.budgets)
    if (b == 0) throw std::invalid_argument("--budgets must be at least 1");
  if (o.seeds == 0) throw std::invalid_argument("--seeds must be at least 1");
  return o;
}

// ---- the ops, in AOE single-op JSON ------------------------------------------------------

json tensor(std::vector<int64_t> shape, bool constant = false) {
  json t = {{"shape", std::move(shape)}, {"type", "float16"}};
  if (constant) t["const"] = true;
  return t;
}

json matmul(int64_t m, int64_t k, int64_t n) {
  return {{"op", "MatMul"},
          {"name", "matmul_" + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n)},
          {"input_desc", {tensor({m, k}), tensor({k, n}, true)}},
          {"output_desc", {tensor({m, n})}}};
}

// 3x3, stride 1, padded to keep the size: a ResNet body conv.
json conv(int64_t batch, int64_t channels, int64_t size) {
  return {{"op", "Conv"},
          {"name", "conv_" + std::to_string(batch) + "x" + std::to_string(channels) + "x" + std::to_string(size)},
          {"input_desc", {tensor({batch, channels, size, size}), tensor({channels, channels, 3, 3}, true)}},
          {"output_desc", {tensor({batch, channels, size, size})}},
          {"attr", {{{"name", "kernel_shape"}, {"value", {3, 3}}}, {{"name", "pads"}, {"value", {1, 1, 1, 1}}}}}};
}

json softmax(int64_t heads, int64_t seq) {
  return {{"op", "Softmax"},
          {"name", "softmax_" + std::to_string(heads) + "x" + std::to_string(seq)},
          {"input_desc", {tensor({heads, seq, seq})}},
          {"output_desc", {tensor({heads, seq, seq})}},
          {"attr", {{{"name", "axis"}, {"value", -1}}}}};
}

// What the bank learnt earlier: BERT-sized GEMMs, ResNet convs, attention softmaxes.
json banked_ops() {
  json ops = json::array();
  for (const int64_t m : {64, 256, 1024})
    for (const auto& [k, n] : {std::pair<int64_t, int64_t>{768, 768}, {768, 3072}, {3072, 768}})
      ops.push_back(matmul(m, k, n));
  for (const auto& [c, size] : {std::pair<int64_t, int64_t>{64, 56}, {128, 28}, {256, 14}, {512, 7}})
    ops.push_back(conv(1, c, size));
  for (const int64_t seq : {128, 512}) ops.push_back(softmax(12, seq));
  return ops;
}

// New shapes, each near some banked one: other sequence lengths and batch sizes.
json new_ops() {
  json ops = json::array();
  for (const int64_t m : {128, 512})
    for (const auto& [k, n] : {std::pair<int64_t, int64_t>{768, 768}, {768, 3072}, {3072, 768}})
      ops.push_back(matmul(m, k, n));
  for (const auto& [c, size] : {std::pair<int64_t, int64_t>{64, 56}, {128, 28}, {256, 14}, {512, 7}})
    ops.push_back(conv(4, c, size));
  for (const int64_t seq : {256, 384}) ops.push_back(softmax(12, seq));
  return ops;
}

// ---- reading a run -----------------------------------------------------------------------

struct Task {
  std::string name;
  double after_us = 0;
  uint64_t seeds = 0;
  double best_seed_us = 0;
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The run's tuned tasks by signature hash; throws, naming the run, when it left no result.
std::map<std::string, Task> tasks_of(const Run& run) {
  fs::path file;
  for (const auto& e : fs::directory_iterator(run.dir))
    if (e.path().filename().string().rfind("aoe_result_opat_", 0) == 0) file = e.path();
  if (run.exit_code != 0 || file.empty())
    throw std::runtime_error("aoe-host exited " + std::to_string(run.exit_code) + " in " + run.dir.string() + ": " +
                             read_text(run.dir / "stderr.txt"));
  const json result = aoe::test::result_sections(json::parse(read_text(file)));
  std::map<std::string, Task> out;
  for (const auto& op : result.at("OPAT").at("opat_tuned_operators")) {
    const json warm = op.value("warm_start", json::object());
    out[op.value("signature_hash", "")] = {op.value("op_name", ""), op.value("performance_after_tune(us)", 0.0),
                                           warm.value("seeds", uint64_t{0}), warm.value("best_seed_us", 0.0)};
  }
  return out;
}

// ---- one side of the comparison ----------------------------------------------------------

struct Side {
  double log_ratio_sum = 0;  // of after_us / optimum
  double log_seed_ratio_sum = 0;
  size_t tasks = 0, at_optimum = 0, seeded_tasks = 0;
  uint64_t seeds = 0;

  void add(const Task& t, double optimum_us) {
    const double ratio = t.after_us / optimum_us;
    log_ratio_sum += std::log(ratio);
    ++tasks;
    at_optimum += ratio <= 1 + 1e-9;
    seeds += t.seeds;
    if (t.best_seed_us > 0) {
      ++seeded_tasks;
      log_seed_ratio_sum += std::log(t.best_seed_us / optimum_us);
    }
  }
  double geomean() const { return tasks ? std::exp(log_ratio_sum / static_cast<double>(tasks)) : 0; }
  double seed_geomean() const {
    return seeded_tasks ? std::exp(log_seed_ratio_sum / static_cast<double>(seeded_tasks)) : 0;
  }
};


class Bench {
 public:
  explicit Bench(Options opts) : o_(std::move(opts)) {}

  void run() {
    write_ops("banked_ops.json", banked_ops());
    write_ops("new_ops.json", new_ops());
    std::fprintf(stderr, "filling the bank (budget %llu)...\n", static_cast<unsigned long long>(o_.bank_budget));
    tasks_of(host("banked_ops.json", o_.bank_budget, 0, true, "fill", o_.work / "bank", o_.bank_searcher));
    std::fprintf(stderr, "the optimum of the new shapes (exhaustive)...\n");
    const auto optimum = tasks_of(host("new_ops.json", kExhaustiveBudget, 0, false, "optimum", o_.work / "optimum_bank",
                                       "exhaustive"));
    std::printf("%zu new shapes near %zu banked ones (MatMul, Conv, Softmax) on %s, searcher %s, %llu seeds\n",
                new_ops().size(), banked_ops().size(), o_.device.c_str(),
                o_.searcher.empty() ? "(host default)" : o_.searcher.c_str(), static_cast<unsigned long long>(o_.seeds));
    std::printf("  %6s  %-10s %9s %9s %8s  %12s\n", "budget", "warm start", "found/opt", "at opt", "seeds/op",
                "best seed/opt");
    for (const auto budget : o_.budgets) {
      for (const bool warm : {false, true}) {
        const Side side = measure(budget, warm, optimum);
        char seed_text[16] = "-";
        if (side.seeded_tasks) std::snprintf(seed_text, sizeof seed_text, "%.4f", side.seed_geomean());
        std::printf("  %6llu  %-10s %9.4f %9s %8.2f  %12s\n", static_cast<unsigned long long>(budget),
                    warm ? "on" : "off", side.geomean(),
                    (std::to_string(side.at_optimum) + "/" + std::to_string(side.tasks)).c_str(),
                    static_cast<double>(side.seeds) / static_cast<double>(std::max<size_t>(side.tasks, 1)),
                    seed_text);
        std::fflush(stdout);
      }
    }
    std::printf("  found/opt: geometric mean over shapes and seeds of after_us / the exhaustive optimum (1 is optimal)\n"
                "  best seed/opt: the same for the best warm-start seed alone, over shapes that had seeds\n");
  }

 private:
  void write_ops(const std::string& name, const json& ops) const { std::ofstream(o_.work / name) << ops.dump(2); }

  Run host(const std::string& ops, uint64_t budget, uint64_t seed, bool warm, const std::string& label,
           const fs::path& bank, const std::string& searcher = {}) const {
    std::vector<std::string> args = {AOE_BENCH_HOST, "--plugin", "opat", "--device", o_.device, "--singleop",
                                     (o_.work / ops).string(), "--budget", std::to_string(budget), "--seed",
                                     std::to_string(seed), "--warm_start", warm ? "true" : "false"};
    const std::string chosen = searcher.empty() ? o_.searcher : searcher;
    if (!chosen.empty()) args.insert(args.end(), {"--searcher", chosen});
    return run_host(args, o_.work / "runs" / label, bank);
  }

  // Every seed's run starts from its own copy of the filled bank: a run
  // banks the new shapes, which would be exact hits for the next.
  Side measure(uint64_t budget, bool warm, const std::map<std::string, Task>& optimum) const {
    Side side;
    for (uint64_t seed = 1; seed <= o_.seeds; ++seed) {
      const std::string label =
          "b" + std::to_string(budget) + "_s" + std::to_string(seed) + (warm ? "_warm" : "_cold");
      const fs::path bank = o_.work / "banks" / label;
      fs::remove_all(bank);
      fs::create_directories(bank.parent_path());
      fs::copy(o_.work / "bank", bank, fs::copy_options::recursive);
      std::fprintf(stderr, "budget %llu, seed %llu, warm start %s...\n", static_cast<unsigned long long>(budget),
                   static_cast<unsigned long long>(seed), warm ? "on" : "off");
      for (const auto& [hash, task] : tasks_of(host("new_ops.json", budget, seed, warm, label, bank))) {
        const auto best = optimum.find(hash);
        if (best != optimum.end() && best->second.after_us > 0) side.add(task, best->second.after_us);
      }
    }
    return side;
  }

  Options o_;
};

}  // namespace

int main(int argc, char** argv) {
  try {
    Options opts = parse(argc, argv);
    const bool own_scratch = opts.work.empty();
    if (own_scratch) opts.work = aoe::bench::make_scratch("warm_start_bench");
    fs::create_directories(opts.work);
    std::printf("aoe-host %s\nscratch %s\n", AOE_BENCH_HOST, opts.work.c_str());
    std::fflush(stdout);
    Bench(opts).run();
    if (own_scratch && !opts.keep) fs::remove_all(opts.work);
    else std::printf("runs kept in %s\n", opts.work.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "warm_start_bench: %s\n", e.what());
    return 1;
  }
}
