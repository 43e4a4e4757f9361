// What a large knowledge bank costs: an OPAT run of a model whose ops are all
// banked, on banks holding 1k, 10k and 100k more operator entries (synthetic,
// op types and shapes spread as a team's bank of many models), beside the
// same run with the model's entries alone; and `bank merge` of two banks of
// each size. Through the built aoe-host, in scratch directories.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "aoe/sdk/op_task.h"
#include "bank_keys.h"
#include "bench_args.h"
#include "host_runner.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using aoe::bench::count;
using aoe::bench::run_host;
using aoe::bench::split_list;

constexpr const char* kUsage =
    "usage: bank_scale_bench [--sizes 1000,10000,100000] [--repeats N] [--model M] [--device D] [--budget N]\n"
    "                        [--work DIR] [--keep]\n"
    "  --sizes    synthetic operator entries added to the model's own (default 1000,10000,100000)\n"
    "  --repeats  timed all-hit runs per bank, after one untimed run (default 5)\n"
    "  --model    a model of the build's models directory, without .onnx (default resnet50)\n"
    "  --device   device target (default ascend910)\n"
    "  --budget   evaluations per op task (default 16)\n"
    "  --work     scratch directory (default: a fresh one in $TMPDIR)\n"
    "  --keep     keep the scratch directory\n"
    "Tunes the model once into a bank, then per size: copies it, adds the synthetic entries, runs\n"
    "the model again (untimed: the bank's index is built), then --repeats timed runs, each beside a\n"
    "run on the model's entries alone (the baseline). Then times `aoe-host bank merge` of two banks\n"
    "of the size (half of their keys shared).\n";

struct Options {
  std::vector<size_t> sizes = {1000, 10000, 100000};
  size_t repeats = 5;
  std::string model = "resnet50";
  std::string device = "ascend910";
  uint64_t budget = 16;
  fs::path work;
  bool keep = false;
};

Options parse(int argc, char** argv) {
  Options o;
  for (aoe::bench::Args args(argc, argv); args.next();) {
    const std::string& arg = args.option();
    const auto value = [&] { return args.value(); };
    if (arg == "--sizes") {
      o.sizes.clear();
      for (const auto& s : split_list(value())) o.sizes.push_back(count(s, arg));
    } else if (arg == "--repeats") o.repeats = count(value(), arg);
    else if (arg == "--model") o.model = value();
    else if (arg == "--device") o.device = value();
    else if (arg == "--budget") o.budget = count(value(), arg);
    else if (arg == "--work") o.work = value();
    else if (arg == "--keep") o.keep = true;
    else if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else throw std::invalid_argument("unknown option '" + arg + "'");
  }
  if (o.repeats == 0) throw std::invalid_argument("--repeats must be at least 1");
  return o;
}

json read_json(const fs::path& file) {
  std::ifstream in(file);
  return json::parse(in);
}

std::vector<fs::path> entry_files(const fs::path& dir) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& f : fs::directory_iterator(dir))
    if (f.path().extension() == ".json") out.push_back(f.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Op types of a team's bank, by share: many models' convs and MatMuls, their
// elementwise tails, norms, pooling, layout ops.
const std::vector<std::pair<std::string, double>> kTeamMix = {
    {"Conv", 16},       {"MatMul", 14},   {"BatchMatMul", 6}, {"Gemm", 3},        {"Add", 6},
    {"Mul", 5},         {"Relu", 3},      {"Softmax", 3},     {"LayerNormalization", 3},
    {"Gelu", 3},        {"Transpose", 3}, {"Cast", 3},        {"ReduceSum", 2},   {"ReduceMean", 2},
    {"MaxPool", 2},     {"AveragePool", 2}, {"GlobalAveragePool", 1}, {"Sigmoid", 2}, {"Concat", 2},
    {"Sub", 1},         {"Div", 1},       {"Pow", 1},         {"Sqrt", 1},        {"Tanh", 1},
    {"Slice", 1},       {"Gather", 2},    {"Where", 1},       {"Erf", 1},         {"Split", 1},
    {"Pad", 1},         {"Resize", 1},    {"ConvTranspose", 1}, {"Clip", 1},      {"HardSwish", 1},
    {"InstanceNormalization", 1}, {"BatchNormalization", 1}, {"Expand", 1}, {"TopK", 1}};

// Synthetic entries from the model's real ones: a template per op type (the
// model's own entry where it has one), shapes spread around the template's.
class Synthesizer {
 public:
  Synthesizer(const std::vector<json>& real, uint64_t seed) : rng_(seed) {
    for (const auto& e : real) {
      const std::string type = e["key"].value("op_type", "");
      if (!type.empty() && !templates_.count(type)) templates_[type] = e;
      taken_.insert(e["key"].value("hash", ""));
    }
    if (real.empty()) throw std::runtime_error("the model's run banked nothing to build entries from");
    generic_ = real.front();
    for (const auto& [type, weight] : kTeamMix) weights_.push_back(weight);
  }

  json next() {
    std::discrete_distribution<size_t> pick(weights_.begin(), weights_.end());
    const std::string type = kTeamMix[pick(rng_)].first;
    const auto it = templates_.find(type);
    json entry = it != templates_.end() ? it->second : generic_;
    json sig = json::parse(entry["key"]["signature"].get<std::string>());
    sig["op_type"] = type;
    if (it == templates_.end()) sig["fused_ops"] = json::array();
    // Batch and spatial dims spread by powers of two, as other models and batch sizes give.
    std::uniform_int_distribution<int> factor(0, 3);  // halved, kept twice, doubled
    const int batch = 1 << std::uniform_int_distribution<int>(0, 6)(rng_);
    for (const char* side : {"inputs", "outputs"})
      for (auto& t : sig[side]) {
        auto& shape = t["shape"];
        for (size_t d = 0; d < shape.size(); ++d) {
          const int64_t v = shape[d].get<int64_t>();
          if (v <= 0) continue;
          if (d == 0) shape[d] = batch;
          else if (v > 1) {
            const int f = factor(rng_);
            shape[d] = f == 0 ? v / 2 : f == 3 ? v * 2 : v;
          }
        }
      }
    const std::string signature = sig.dump();
    const std::string hash = aoe::sdk::fnv1a_hex(signature);
    if (!taken_.insert(hash).second) return next();
    auto& key = entry["key"];
    key["op_type"] = type;
    key["signature"] = signature;
    key["hash"] = hash;
    key["family"] = aoe::modes::op_family(sig);
    key["dims"] = aoe::modes::op_dims(sig);
    entry["op_type"] = type;
    const double before = std::uniform_real_distribution<double>(5, 500)(rng_);
    entry["before_us"] = before;
    entry["after_us"] = before * std::uniform_real_distribution<double>(0.5, 0.98)(rng_);
    entry["provenance"]["model"] = "team_model_" + std::to_string(std::uniform_int_distribution<int>(1, 60)(rng_));
    return entry;
  }

  static std::string file_name(const json& entry) {
    return entry["key"]["hash"].get<std::string>() + ".s" + entry["key"]["space_version"].get<std::string>() + ".json";
  }

 private:
  std::mt19937_64 rng_;
  std::map<std::string, json> templates_;
  json generic_;
  std::vector<double> weights_;
  std::set<std::string> taken_;
};

// Written as a team's folder copied in: plain files, no index.
std::vector<json> add_entries(Synthesizer& synth, const fs::path& soc_dir, size_t n) {
  fs::create_directories(soc_dir);
  std::vector<json> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    json e = synth.next();
    std::ofstream(soc_dir / Synthesizer::file_name(e)) << e.dump(2) << "\n";
    out.push_back(std::move(e));
  }
  return out;
}

// Medians with their spread, of wall-clock and of CPU (user + system) seconds.
struct Spread {
  double median = 0, min = 0, max = 0;
  static Spread of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return {v[v.size() / 2], v.front(), v.back()};
  }
};

struct Figures {
  double first = 0;
  Spread wall, cpu;
};

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

class Bench {
 public:
  explicit Bench(Options o) : o_(std::move(o)) {}

  std::vector<std::string> host_args() const {
    return {AOE_BENCH_HOST, "--plugin", "opat", "--device", o_.device, "--model",
            (fs::path(AOE_BENCH_MODELS_DIR) / (o_.model + ".onnx")).string(), "--budget", std::to_string(o_.budget)};
  }

  aoe::bench::Run run(const fs::path& bank, const std::string& label) {
    auto r = run_host(host_args(), o_.work / "runs" / label, bank);
    if (r.exit_code != 0)
      throw std::runtime_error("aoe-host failed (" + std::to_string(r.exit_code) + "), see " +
                               (r.dir / "stderr.txt").string());
    return r;
  }

  // One untimed run of each (the index is built, ops the first run left
  // unbanked are tried again), then the timed ones, the bank's and the
  // baseline's in turn, so a busy machine weighs on both alike.
  std::pair<Figures, Figures> all_hit_runs(const fs::path& bank, const fs::path& base_bank, const std::string& label) {
    Figures f, b;
    f.first = run(bank, label + "_first").wall_s;
    b.first = run(base_bank, label + "_base_first").wall_s;
    std::vector<double> wall, cpu, base_wall, base_cpu;
    for (size_t i = 0; i < o_.repeats; ++i) {
      const auto r = run(bank, label + "_" + std::to_string(i));
      const auto rb = run(base_bank, label + "_base_" + std::to_string(i));
      wall.push_back(r.wall_s), cpu.push_back(r.cpu_s), base_wall.push_back(rb.wall_s), base_cpu.push_back(rb.cpu_s);
    }
    f.wall = Spread::of(wall), f.cpu = Spread::of(cpu), b.wall = Spread::of(base_wall), b.cpu = Spread::of(base_cpu);
    return {f, b};
  }

  int main() {
    if (o_.work.empty()) {
      char tmpl[] = "/tmp/aoe_bank_scale_XXXXXX";
      if (!mkdtemp(tmpl)) throw std::runtime_error("cannot make a scratch directory");
      o_.work = tmpl;
    }
    fs::create_directories(o_.work);
    std::printf("bank_scale_bench: %s on %s, budget %llu, %zu timed runs per bank; scratch %s\n", o_.model.c_str(),
                o_.device.c_str(), static_cast<unsigned long long>(o_.budget), o_.repeats, o_.work.c_str());
    const fs::path seed = o_.work / "seed_bank";
    const auto tuned = run(seed, "seed");
    std::vector<json> real;
    fs::path soc_dir;
    for (const auto& dir : fs::directory_iterator(seed / "op")) soc_dir = dir.path();
    for (const auto& f : entry_files(soc_dir)) real.push_back(read_json(f));
    std::printf("first run: %.2f s, %zu entries banked in %s\n\n", tuned.wall_s, real.size(), soc_dir.c_str());
    std::fflush(stdout);

    const fs::path base_bank = o_.work / "bank_0";
    fs::copy(seed, base_bank, fs::copy_options::recursive);
    std::printf("%9s  %11s  %24s  %24s  %22s  %22s  %13s\n", "entries", "first run s", "wall s: median [min-max]",
                "cpu s: median [min-max]", "wall overhead [min-max]", "cpu overhead [min-max]", "merge s: u / i");
    const auto row = [&](size_t n, const Figures& f, const Figures& base, double cold, double warm) {
      char merge[48] = "-";
      if (cold >= 0) std::snprintf(merge, sizeof merge, "%.2f / %.2f", cold, warm);
      const auto pct = [](double a, double b) { return (a / b - 1) * 100; };
      std::printf("%9zu  %11.2f  %8.3f [%.3f-%.3f]  %8.3f [%.3f-%.3f]  %+7.1f%% [%+.0f%% %+.0f%%]  %+7.1f%% [%+.0f%% %+.0f%%]  %13s\n",
                  n + real.size(), f.first, f.wall.median, f.wall.min, f.wall.max, f.cpu.median, f.cpu.min, f.cpu.max,
                  pct(f.wall.median, base.wall.median), pct(f.wall.min, base.wall.median),
                  pct(f.wall.max, base.wall.median), pct(f.cpu.median, base.cpu.median),
                  pct(f.cpu.min, base.cpu.median), pct(f.cpu.max, base.cpu.median), merge);
      std::fflush(stdout);
    };

    Synthesizer synth(real, 20261125);
    for (const size_t n : o_.sizes) {
      const fs::path bank = o_.work / ("bank_" + std::to_string(n));
      fs::copy(seed, bank, fs::copy_options::recursive);
      const auto a_entries = add_entries(synth, bank / "op" / soc_dir.filename(), n);
      const auto [f, base] = all_hit_runs(bank, base_bank, "n" + std::to_string(n));
      row(0, base, base, -1, -1);

      // B: half of A's keys with other timings, half its own.
      const fs::path other = o_.work / ("other_" + std::to_string(n));
      const fs::path other_soc = other / "op" / soc_dir.filename();
      fs::create_directories(other_soc);
      for (size_t i = 0; i < a_entries.size(); i += 2) {
        json e = a_entries[i];
        e["after_us"] = e["after_us"].get<double>() * (i % 4 ? 0.9 : 1.1);
        std::ofstream(other_soc / Synthesizer::file_name(e)) << e.dump(2) << "\n";
      }
      add_entries(synth, other_soc, n - (n + 1) / 2);
      // Twice: B's first listing reads its files (a bank copied in, never
      // indexed) and writes its index; the second finds both banks indexed.
      double merge_s[2];
      for (int pass = 0; pass < 2; ++pass) {
        const fs::path out = o_.work / ("merged_" + std::to_string(n) + "_" + std::to_string(pass));
        const auto start = std::chrono::steady_clock::now();
        const auto merged =
            run_host({AOE_BENCH_HOST, "bank", "merge", bank.string(), other.string(), "-o", out.string()},
                     o_.work / "runs" / ("merge_" + std::to_string(n)), o_.work / "unused_bank");
        merge_s[pass] = seconds_since(start);
        if (merged.exit_code != 0)
          throw std::runtime_error("bank merge failed, see " + (merged.dir / "stderr.txt").string());
        if (!o_.keep) fs::remove_all(out);
      }
      row(n, f, base, merge_s[0], merge_s[1]);
      if (!o_.keep)
        for (const auto& dir : {bank, other}) fs::remove_all(dir);
    }
    std::printf("\nper size, two rows: the model's %zu entries alone (the baseline), then with the synthetic ones;\n"
                "overhead: the all-hit run's median over the baseline's median, runs of the two taken in turn;\n"
                "cpu: the run's user + system time, which a busy machine's wall clock hides;\n"
                "merge: two banks of the size, half their keys shared, u: the second never indexed, i: both indexed\n",
                real.size());
    if (!o_.keep) fs::remove_all(o_.work);
    return 0;
  }

 private:
  Options o_;
};

}  // namespace

int main(int argc, char** argv) {
  try {
    return Bench(parse(argc, argv)).main();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bank_scale_bench: %s\n", e.what());
    return 1;
  }
}
