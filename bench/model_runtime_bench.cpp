// Whole-model latency on the host CPU, side by side on the same machine in
// one bench run: aoe untuned (an empty bank), aoe tuned (the bench tunes
// first, with the budget it prints) and ONNX Runtime through the
// onnxruntime-node package where it is installed. Each through its own
// process, so each peak RSS is its own. All three run the same copy of each
// model, whose external weights are seeded noise (see bench_copy).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench_args.h"
#include "host_runner.h"

namespace {

namespace fs = std::filesystem;
using aoe::bench::count;
using aoe::bench::counts;
using aoe::bench::on_path;
using aoe::bench::run_host;
using aoe::bench::split_list;
using nlohmann::json;

constexpr const char* kUsage =
    "usage: model_runtime_bench [--models a,b] [--batches 1,8] [--threads 1,2] [--iterations N] [--budget N]\n"
    "                           [--tune_cache cold|warm] [--rounds N] [--onnxruntime DIR] [--work DIR]\n"
    "  --models       models of the build's models directory, without .onnx (default resnet50,mobilenet_v2,bert_layer)\n"
    "  --batches      batch sizes to run each model at (default 1,8); above 1 every column runs a copy whose\n"
    "                 batch is symbolic, aoe given it through --input_shape\n"
    "  --threads      thread counts to run each model with (default 1,2)\n"
    "  --iterations   timed runs per figure (default 10)\n"
    "  --budget       OPAT evaluations per op for the tuned column (default 64, aoe-host's own)\n"
    "  --tune_cache   the caches the cpu device times candidates with (default cold: in a whole-model\n"
    "                 run the kernels between two runs of a kernel evict its weights)\n"
    "  --rounds       processes per column, in turns; each column keeps its lowest median (default 2)\n"
    "  --onnxruntime  a node_modules folder holding onnxruntime-node (default ./node_modules, or\n"
    "                 AOE_ONNXRUNTIME_NODE); without it the ONNX Runtime column is skipped\n"
    "  --work         scratch directory for the banks and reports (default: a fresh one in $TMPDIR)\n";

struct Options {
  std::vector<std::string> models = {"resnet50", "mobilenet_v2", "bert_layer"};
  std::vector<uint64_t> batches = {1, 8};
  std::vector<uint64_t> threads = {1, 2};
  uint64_t iterations = 10, budget = 64, rounds = 2;
  std::string tune_cache = "cold";
  fs::path onnxruntime, work;
};

Options parse(int argc, char** argv) {
  Options o;
  o.onnxruntime = aoe::bench::default_onnxruntime_dir();
  for (aoe::bench::Args args(argc, argv); args.next();) {
    const std::string& arg = args.option();
    if (arg == "--models") o.models = split_list(args.value());
    else if (arg == "--batches") o.batches = counts(args.value(), arg);
    else if (arg == "--threads") o.threads = counts(args.value(), arg);
    else if (arg == "--iterations") o.iterations = count(args.value(), arg);
    else if (arg == "--budget") o.budget = count(args.value(), arg);
    else if (arg == "--tune_cache") o.tune_cache = args.value();
    else if (arg == "--rounds") o.rounds = std::max<uint64_t>(1, count(args.value(), arg));
    else if (arg == "--onnxruntime") o.onnxruntime = args.value();
    else if (arg == "--work") o.work = args.value();
    else throw std::invalid_argument("unknown option " + arg + "\n" + kUsage);
  }
  if (o.tune_cache != "cold" && o.tune_cache != "warm")
    throw std::invalid_argument("--tune_cache is cold or warm, not " + o.tune_cache + "\n" + kUsage);
  if (o.work.empty()) o.work = fs::temp_directory_path() / ("model_runtime_bench_" + std::to_string(::getpid()));
  return o;
}

// Latency over the timed runs (min, median, 90th percentile) and peak RSS.
struct Figure {
  double min_ms = 0, median_ms = 0, p90_ms = 0;
  double peak_mib = 0;
};

// The model every column runs, and the --input_shape aoe is given (empty at batch 1).
struct BenchModel {
  fs::path path;
  std::string input_shape;
};

onnx::ModelProto read_model(const fs::path& path) {
  onnx::ModelProto model;
  std::ifstream in(path, std::ios::binary);
  if (!model.ParseFromIstream(&in)) throw std::runtime_error("cannot parse " + path.string());
  return model;
}

// The copy of `model` in `dir` that every column runs. The generated models keep big
// weights in a sparse file of zeros; ONNX Runtime maps such a file and never
// counts its pages resident while aoe reads it into memory, so peak RSS would
// not compare. The copy's external weights are seeded noise, as a trained
// model's are; inline weights are already noise. Above batch 1 the copy's
// inputs and outputs lead with a symbolic batch, as a model exported with a
// dynamic batch axis does; ONNX Runtime is fed that batch, aoe told it.
BenchModel bench_copy(const std::string& name, const fs::path& dir, uint64_t batch) {
  const fs::path source = fs::path(AOE_BENCH_MODELS_DIR) / (name + ".onnx");
  const fs::path weights = fs::path(source).replace_extension(".weights");
  fs::create_directories(dir);
  BenchModel copy{dir / (name + "_b" + std::to_string(batch) + ".onnx"), ""};
  onnx::ModelProto model = read_model(source);
  if (batch > 1) {
    std::string shapes;
    for (auto& in : *model.mutable_graph()->mutable_input()) {
      auto* dims = in.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim();
      if (dims->empty()) throw std::runtime_error(source.string() + ": input '" + in.name() + "' has no batch dim");
      shapes += (shapes.empty() ? "" : ";") + in.name() + ":" + std::to_string(batch);
      for (int d = 1; d < dims->size(); ++d) shapes += "," + std::to_string(dims->Get(d).dim_value());
      dims->Mutable(0)->set_dim_param("batch");
    }
    for (auto& out : *model.mutable_graph()->mutable_output())
      out.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("batch");
    copy.input_shape = shapes;
  }
  std::ofstream model_out(copy.path, std::ios::binary | std::ios::trunc);
  if (!model.SerializeToOstream(&model_out) || !model_out.flush())
    throw std::runtime_error("cannot write " + copy.path.string());
  if (!fs::exists(weights) || fs::exists(dir / weights.filename())) return copy;
  std::ofstream out(dir / weights.filename(), std::ios::binary | std::ios::trunc);
  std::mt19937 rng(20261126);
  std::uniform_real_distribution<float> noise(-0.05f, 0.05f);
  std::vector<float> block(1 << 16);
  for (uintmax_t left = fs::file_size(weights); left > 0;) {
    for (float& v : block) v = noise(rng);
    const auto bytes = static_cast<std::streamsize>(std::min<uintmax_t>(left, block.size() * sizeof(float)));
    out.write(reinterpret_cast<const char*>(block.data()), bytes);
    left -= static_cast<uintmax_t>(bytes);
  }
  if (!out.flush()) throw std::runtime_error("cannot write " + (dir / weights.filename()).string());
  return copy;
}

json read_json(const fs::path& file) {
  std::ifstream in(file);
  return json::parse(in);
}

// aoe-host run; the report's median latency and peak RSS. With `tune`, the
// ops the bank misses are tuned first (--tune_on_miss), the device timing
// them with the caches --tune_cache says.
std::optional<Figure> aoe_run(const Options& o, const BenchModel& model, uint64_t threads, const fs::path& dir,
                              const fs::path& bank, bool tune = false) {
  // The device, and so the tuning, has the threads the run has.
  json device = {{"threads", threads}};
  if (tune) device["cache"] = o.tune_cache;
  std::vector<std::string> args = {AOE_BENCH_HOST, "run", "--device", "cpu", "--model", model.path.string(), "--threads",
                                   std::to_string(threads), "--iterations", std::to_string(o.iterations),
                                   "--device_options", device.dump(), "--run_report", (dir / "report.json").string()};
  if (!model.input_shape.empty()) args.insert(args.end(), {"--input_shape", model.input_shape});
  if (tune) args.insert(args.end(), {"--tune_on_miss", "--budget", std::to_string(o.budget)});
  const auto run = run_host(args, dir, bank);
  if (run.exit_code != 0) {
    std::fprintf(stderr, "%s: aoe-host run exited %d (see %s)\n", model.path.stem().c_str(), run.exit_code,
                 dir.c_str());
    return std::nullopt;
  }
  const json r = read_json(dir / "report.json");
  const json& ms = r["latency_ms"];
  return Figure{ms["min"].get<double>(), ms["median"].get<double>(), ms["p90"].get<double>(),
                r["memory"]["peak_rss_bytes"].get<double>() / 1048576.0};
}

std::optional<Figure> ort_run(const Options& o, const BenchModel& model, const json& inputs, uint64_t threads,
                              const fs::path& dir) {
  json shapes = json::object();
  for (const auto& in : inputs) shapes[in["name"].get<std::string>()] = in["shape"];
  const auto run = run_host({on_path("node").string(), AOE_BENCH_ORT_SCRIPT, model.path.string(), shapes.dump(),
                             std::to_string(o.iterations), std::to_string(threads)},
                            dir, dir / "unused_bank");
  if (run.exit_code != 0) {
    std::fprintf(stderr, "%s: ONNX Runtime exited %d (see %s)\n", model.path.stem().c_str(), run.exit_code,
                 dir.c_str());
    return std::nullopt;
  }
  std::ifstream out(dir / "stdout.txt");
  std::string line, last;
  while (std::getline(out, line))
    if (!line.empty()) last = line;
  const json r = json::parse(last);
  return Figure{r["min"].get<double>(), r["median"].get<double>(), r["p90"].get<double>(),
                r["peak_rss_bytes"].get<double>() / 1048576.0};
}

void keep_faster(std::optional<Figure>& kept, const std::optional<Figure>& next) {
  if (next && (!kept || next->median_ms < kept->median_ms)) kept = next;
}

std::string cell(const std::optional<Figure>& f) {
  if (!f) return "-";
  char text[96];
  std::snprintf(text, sizeof text, "%.2f ms (%.2f-%.2f) %.0f MiB", f->median_ms, f->min_ms, f->p90_ms, f->peak_mib);
  return text;
}

std::string ratio(const std::optional<Figure>& a, const std::optional<Figure>& b) {
  if (!a || !b || b->median_ms <= 0) return "   -  ";
  char text[32];
  std::snprintf(text, sizeof text, "%5.2fx", a->median_ms / b->median_ms);
  return text;
}

// One row of the table: tune, then the three columns in turns.
void print_row(const Options& o, bool have_ort, const std::string& name, const BenchModel& model, uint64_t batch,
               uint64_t threads) {
  const fs::path base = o.work / (name + "_b" + std::to_string(batch) + "_t" + std::to_string(threads));
  // Tuned in one process, timed in the next, all hits: the tuning's memory is not the run's.
  const auto tuning = aoe_run(o, model, threads, base / "tuning", base / "bank", true);
  // The columns take turns, round after round, so a spell of load on a shared
  // machine falls on each alike; each keeps its round of the lowest median.
  std::optional<Figure> untuned, tuned, ort;
  json inputs;  // the shapes aoe ran, read once from the first untuned run that succeeded
  for (uint64_t round = 1; round <= o.rounds; ++round) {
    const std::string r = std::to_string(round);
    const auto plain = aoe_run(o, model, threads, base / ("untuned_" + r), base / "empty_bank");
    if (plain && inputs.is_null()) inputs = read_json(base / ("untuned_" + r) / "report.json")["inputs"];
    keep_faster(untuned, plain);
    if (tuning) keep_faster(tuned, aoe_run(o, model, threads, base / ("tuned_" + r), base / "bank"));
    if (have_ort && !inputs.is_null()) keep_faster(ort, ort_run(o, model, inputs, threads, base / ("ort_" + r)));
  }
  std::printf("%-14s %5llu %7llu  %-32s %-32s %-32s %8s %8s\n", name.c_str(), static_cast<unsigned long long>(batch),
              static_cast<unsigned long long>(threads), cell(untuned).c_str(), cell(tuned).c_str(), cell(ort).c_str(),
              ratio(untuned, ort).c_str(), ratio(tuned, ort).c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    const bool have_ort = aoe::bench::onnxruntime_ready(o.onnxruntime);
    std::printf("aoe tuned: --tune_on_miss with OPAT, --budget %llu per op, caches %s while tuning, its own bank per\n"
                "model, batch and thread count\n",
                static_cast<unsigned long long>(o.budget), o.tune_cache.c_str());
    std::printf("each column runs the same copy of the model, its external weights seeded noise, under %s\n",
                (o.work / "models").c_str());
    std::printf("median (min-p90) of %llu runs after one untimed, of the round (of %llu, the columns in turns) with\n"
                "the lowest median; peak RSS of that process\n\n",
                static_cast<unsigned long long>(o.iterations), static_cast<unsigned long long>(o.rounds));
    std::printf("%-14s %5s %7s  %-32s %-32s %-32s %8s %8s\n", "model", "batch", "threads", "aoe untuned",
                "aoe tuned", "ONNX Runtime", "untuned/", "tuned/");
    std::printf("%-14s %5s %7s  %-32s %-32s %-32s %8s %8s\n", "", "", "", "", "", "", "ORT", "ORT");
    for (const auto& name : o.models)
      for (uint64_t batch : o.batches) {
        const BenchModel model = bench_copy(name, o.work / "models", batch);
        for (uint64_t threads : o.threads) print_row(o, have_ort, name, model, batch, threads);
      }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "model_runtime_bench: %s\n", e.what());
    return 2;
  }
}
