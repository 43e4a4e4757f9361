// Whole-model latency, side by side on the same machine in one bench run,
// each column through its own process, all on the same copy of each model
// (its external weights seeded noise, see bench_copy). On the host CPU
// (--device cpu): aoe untuned (an empty bank), aoe tuned (the bench tunes
// first, with the budget it prints) and ONNX Runtime through the
// onnxruntime-node package where it is installed, with each peak RSS, and
// the time the model's FMAs take at the threads' measured FMA peak. On a
// GPU (--device cuda): aoe untuned and tuned, PyTorch eager and
// torch.compile running the same graph op by op (torch_run.py) and ONNX
// Runtime's CUDA provider (ort_cuda_run.py) where the machine's python3 has
// them, fp32 with TF32 off on every side (--tf32: on on every side), with
// each peak of GPU memory.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench_args.h"
#include "fma_peak.h"
#include "graph_export.h"
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
    "usage: model_runtime_bench [--device cpu|cuda] [--models a,b] [--batches 1,8] [--threads 1,2] [--iterations N]\n"
    "                           [--budget N] [--tune_cache cold|warm] [--rounds N] [--onnxruntime DIR] [--work DIR]\n"
    "                           [--tf32] [--python PATH]\n"
    "  --device       cpu (default), or cuda: the GPU columns (aoe, PyTorch eager, torch.compile, ONNX Runtime CUDA)\n"
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
    "  --work         scratch directory for the banks and reports (default: a fresh one in $TMPDIR)\n"
    "  --tf32         cuda: TF32 on every side (aoe's allow_tf32, torch's allow_tf32, ORT's use_tf32); default off\n"
    "  --python       cuda: the python3 with torch and onnxruntime (default python3 on PATH); without them\n"
    "                 their columns are skipped\n";

struct Options {
  std::string device = "cpu";
  bool tf32 = false;
  fs::path python;
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
    if (arg == "--device") o.device = args.value();
    else if (arg == "--tf32") o.tf32 = true;
    else if (arg == "--python") o.python = args.value();
    else if (arg == "--models") o.models = split_list(args.value());
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
  if (o.device != "cpu" && o.device != "cuda") throw std::invalid_argument("--device is cpu or cuda, not " + o.device + "\n" + kUsage);
  if (o.tf32 && o.device != "cuda") throw std::invalid_argument("--tf32 is for --device cuda\n" + std::string(kUsage));
  if (o.python.empty()) o.python = on_path("python3");
  if (o.tune_cache != "cold" && o.tune_cache != "warm")
    throw std::invalid_argument("--tune_cache is cold or warm, not " + o.tune_cache + "\n" + kUsage);
  if (o.work.empty()) o.work = fs::temp_directory_path() / ("model_runtime_bench_" + std::to_string(::getpid()));
  return o;
}

// What the build says where a program, the models or a script is, unless
// the environment says otherwise (a GPU machine's unpacked bundle:
// tools/gpu-check.sh sets AOE_BENCH_HOST, AOE_BENCH_MODELS_DIR and AOE_BENCH_SCRIPTS_DIR).
fs::path located(const char* env, const fs::path& built) {
  const char* given = std::getenv(env);
  return given && *given ? fs::path(given) : built;
}
fs::path host_binary() { return located("AOE_BENCH_HOST", AOE_BENCH_HOST); }
fs::path models_dir() { return located("AOE_BENCH_MODELS_DIR", AOE_BENCH_MODELS_DIR); }
fs::path script(const fs::path& built) {
  const char* dir = std::getenv("AOE_BENCH_SCRIPTS_DIR");
  return dir && *dir ? fs::path(dir) / built.filename() : built;
}

// Latency over the timed runs (min, median, 90th percentile) and peak memory
// (RSS on the CPU, allocated GPU memory on a GPU; < 0: not known); an aoe
// run's report also gives its FMA work (0: not counted).
struct Figure {
  double min_ms = 0, median_ms = 0, p90_ms = 0;
  double peak_mib = 0;
  double gflop = 0;
};

// The model every column runs, and the --input_shape aoe is given (empty at
// batch 1); on cuda, also its graph as the PyTorch columns read it.
struct BenchModel {
  fs::path path;
  std::string input_shape;
  fs::path graph_json, graph_bin;
};

onnx::ModelProto read_model(const fs::path& path) {
  onnx::ModelProto model;
  std::ifstream in(path, std::ios::binary);
  if (!model.ParseFromIstream(&in)) throw std::runtime_error("cannot parse " + path.string());
  return model;
}

// As many bytes as `weights` holds, of seeded noise, into `file`.
void write_noise(const fs::path& weights, const fs::path& file) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  std::mt19937 rng(20261126);
  std::uniform_real_distribution<float> noise(-0.05f, 0.05f);
  std::vector<float> block(1 << 16);
  for (uintmax_t left = fs::file_size(weights); left > 0;) {
    for (float& v : block) v = noise(rng);
    const auto bytes = static_cast<std::streamsize>(std::min<uintmax_t>(left, block.size() * sizeof(float)));
    out.write(reinterpret_cast<const char*>(block.data()), bytes);
    left -= static_cast<uintmax_t>(bytes);
  }
  if (!out.flush()) throw std::runtime_error("cannot write " + file.string());
}

// The copy of `model` in `dir` that every column runs. The generated models keep big
// weights in a sparse file of zeros; ONNX Runtime maps such a file and never
// counts its pages resident while aoe reads it into memory, so peak RSS would
// not compare. The copy's external weights are seeded noise, as a trained
// model's are; inline weights are already noise. Above batch 1 the copy's
// inputs and outputs lead with a symbolic batch, as a model exported with a
// dynamic batch axis does; ONNX Runtime is fed that batch, aoe told it.
BenchModel bench_copy(const std::string& name, const fs::path& dir, uint64_t batch) {
  const fs::path source = models_dir() / (name + ".onnx");
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
  write_noise(weights, dir / weights.filename());
  return copy;
}

// The graph the PyTorch columns run, exported from the copy (its weights the copy's noise).
void export_for_torch(BenchModel& model, uint64_t batch) {
  model.graph_json = fs::path(model.path).replace_extension(".graph.json");
  model.graph_bin = fs::path(model.path).replace_extension(".graph.bin");
  aoe::bench::export_graph(read_model(model.path), model.path, {{"batch", static_cast<int64_t>(batch)}}, model.graph_json,
                           model.graph_bin);
}


json read_json(const fs::path& file) {
  std::ifstream in(file);
  return json::parse(in);
}

// aoe-host run; the report's median latency and peak RSS. With `tune`, the
// ops the bank misses are tuned first (--tune_on_miss), the device timing
// them with the caches --tune_cache says.
// On cuda, `threads` is not used and the figure's memory is the GPU
// memory the run allocates (its arena and weights).
std::optional<Figure> aoe_run(const Options& o, const BenchModel& model, uint64_t threads, const fs::path& dir,
                              const fs::path& bank, bool tune = false) {
  const bool cuda = o.device == "cuda";
  // The device, and so the tuning, has the threads the run has.
  json device = cuda ? json{{"allow_tf32", o.tf32}} : json{{"threads", threads}};
  if (tune && !cuda) device["cache"] = o.tune_cache;
  std::vector<std::string> args = {host_binary().string(), "run", "--device", o.device, "--model", model.path.string(),
                                   "--iterations", std::to_string(o.iterations), "--device_options", device.dump(),
                                   "--run_report", (dir / "report.json").string()};
  if (!cuda) args.insert(args.end(), {"--threads", std::to_string(threads)});
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
  const double bytes = cuda ? r["memory"]["tensor_bytes"].get<double>() : r["memory"]["peak_rss_bytes"].get<double>();
  return Figure{ms["min"].get<double>(), ms["median"].get<double>(), ms["p90"].get<double>(), bytes / 1048576.0,
                r.value("gflop", 0.0)};
}

// The last line a process printed, as JSON: the scripts' figures.
json last_line(const fs::path& dir) {
  std::ifstream out(dir / "stdout.txt");
  std::string line, last;
  while (std::getline(out, line))
    if (!line.empty()) last = line;
  return json::parse(last);
}

// A python script's figure (torch_run.py, ort_cuda_run.py); none, saying why, where it fails.
std::optional<Figure> python_run(const Options& o, const std::string& column, std::vector<std::string> args,
                                 const fs::path& dir) {
  args.insert(args.begin(), o.python.string());
  const auto run = run_host(args, dir, dir / "unused_bank");
  if (run.exit_code != 0) {
    std::fprintf(stderr, "%s exited %d (see %s)\n", column.c_str(), run.exit_code, dir.c_str());
    return std::nullopt;
  }
  const json r = last_line(dir);
  return Figure{r["min"].get<double>(), r["median"].get<double>(), r["p90"].get<double>(),
                r.value("peak_gpu_bytes", -1048576.0) / 1048576.0};
}

std::optional<Figure> torch_run(const Options& o, const BenchModel& model, const std::string& mode, const fs::path& dir) {
  return python_run(o, "PyTorch " + mode,
                    {script(AOE_BENCH_TORCH_SCRIPT).string(), model.graph_json.string(), model.graph_bin.string(), std::to_string(o.iterations),
                     mode, "cuda", o.tf32 ? "1" : "0"},
                    dir);
}

std::optional<Figure> ort_cuda_run(const Options& o, const BenchModel& model, const json& inputs, const fs::path& dir) {
  json shapes = json::object();
  for (const auto& in : inputs) shapes[in["name"].get<std::string>()] = in["shape"];
  return python_run(o, "ONNX Runtime CUDA",
                    {script(AOE_BENCH_ORT_CUDA_SCRIPT).string(), model.path.string(), shapes.dump(), std::to_string(o.iterations),
                     o.tf32 ? "1" : "0"},
                    dir);
}

std::optional<Figure> ort_run(const Options& o, const BenchModel& model, const json& inputs, uint64_t threads,
                              const fs::path& dir) {
  json shapes = json::object();
  for (const auto& in : inputs) shapes[in["name"].get<std::string>()] = in["shape"];
  const auto run = run_host({on_path("node").string(), script(AOE_BENCH_ORT_SCRIPT).string(), model.path.string(), shapes.dump(),
                             std::to_string(o.iterations), std::to_string(threads)},
                            dir, dir / "unused_bank");
  if (run.exit_code != 0) {
    std::fprintf(stderr, "%s: ONNX Runtime exited %d (see %s)\n", model.path.stem().c_str(), run.exit_code,
                 dir.c_str());
    return std::nullopt;
  }
  const json r = last_line(dir);
  return Figure{r["min"].get<double>(), r["median"].get<double>(), r["p90"].get<double>(),
                r["peak_rss_bytes"].get<double>() / 1048576.0};
}

void keep_faster(std::optional<Figure>& kept, const std::optional<Figure>& next) {
  if (next && (!kept || next->median_ms < kept->median_ms)) kept = next;
}

std::string cell(const std::optional<Figure>& f) {
  if (!f) return "-";
  char text[96];
  if (f->peak_mib < 0)
    std::snprintf(text, sizeof text, "%.2f ms (%.2f-%.2f)", f->median_ms, f->min_ms, f->p90_ms);
  else
    std::snprintf(text, sizeof text, "%.2f ms (%.2f-%.2f) %.0f MiB", f->median_ms, f->min_ms, f->p90_ms, f->peak_mib);
  return text;
}

std::string ratio(const std::optional<Figure>& a, const std::optional<Figure>& b) {
  if (!a || !b || b->median_ms <= 0) return "   -  ";
  char text[32];
  std::snprintf(text, sizeof text, "%5.2fx", a->median_ms / b->median_ms);
  return text;
}

// The time a run's conv and product FMAs (step_flops.h), computed directly,
// take at the FMA peak of its threads: no direct kernel is faster (a
// Winograd conv computes fewer); none where either is not known.
std::optional<Figure> fma_time(const std::optional<Figure>& run, double peak_gflops) {
  if (!run || run->gflop <= 0 || peak_gflops <= 0) return std::nullopt;
  const double ms = run->gflop / peak_gflops * 1e3;
  return Figure{ms, ms, ms, -1, run->gflop};
}

std::string fma_cell(const std::optional<Figure>& fma) {
  if (!fma) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.2f ms", fma->median_ms);
  return text;
}

// One row of the table: tune, then the three columns in turns; then the
// FMA time at the best FMA peak of the row's threads seen by then.
void print_row(const Options& o, bool have_ort, const std::string& name, const BenchModel& model, uint64_t batch,
               uint64_t threads, aoe::bench::BestFmaPeak& peak) {
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
  const auto fma = fma_time(tuned ? tuned : untuned, peak.refresh());
  std::printf("%-14s %5llu %7llu  %-32s %-32s %-32s %8s %8s  %-10s %8s %8s\n", name.c_str(),
              static_cast<unsigned long long>(batch), static_cast<unsigned long long>(threads), cell(untuned).c_str(),
              cell(tuned).c_str(), cell(ort).c_str(), ratio(untuned, ort).c_str(), ratio(tuned, ort).c_str(),
              fma_cell(fma).c_str(), ratio(tuned, fma).c_str(), ratio(ort, fma).c_str());
  std::fflush(stdout);
}

// Which GPU columns this machine's python3 can fill.
struct GpuColumns {
  bool torch = false, onnxruntime = false;
};

GpuColumns probe_python(const Options& o, const fs::path& dir) {
  const auto works = [&](const std::string& name, const std::string& code) {
    const auto r = run_host({o.python.string(), "-c", code}, dir / name, dir / "unused_bank");
    if (r.exit_code != 0) std::printf("%s column skipped: %s cannot %s\n", name.c_str(), o.python.c_str(), code.c_str());
    return r.exit_code == 0;
  };
  return {works("PyTorch", "import torch; assert torch.cuda.is_available()"), works("ONNX Runtime", "import onnxruntime")};
}

// One row of the GPU table: tune, then the columns in turns.
void print_gpu_row(const Options& o, const GpuColumns& have, const std::string& name, const BenchModel& model,
                   uint64_t batch) {
  const fs::path base = o.work / (name + "_b" + std::to_string(batch));
  const auto tuning = aoe_run(o, model, 0, base / "tuning", base / "bank", true);
  std::optional<Figure> untuned, tuned, eager, compiled, ort;
  json inputs;
  for (uint64_t round = 1; round <= o.rounds; ++round) {
    const std::string r = std::to_string(round);
    const auto plain = aoe_run(o, model, 0, base / ("untuned_" + r), base / "empty_bank");
    if (plain && inputs.is_null()) inputs = read_json(base / ("untuned_" + r) / "report.json")["inputs"];
    keep_faster(untuned, plain);
    if (tuning) keep_faster(tuned, aoe_run(o, model, 0, base / ("tuned_" + r), base / "bank"));
    if (have.torch) {
      keep_faster(eager, torch_run(o, model, "eager", base / ("eager_" + r)));
      keep_faster(compiled, torch_run(o, model, "compile", base / ("compile_" + r)));
    }
    if (have.onnxruntime && !inputs.is_null()) keep_faster(ort, ort_cuda_run(o, model, inputs, base / ("ort_" + r)));
  }
  std::printf("%-14s %5llu  %-28s %-28s %-28s %-28s %-22s %8s %8s\n", name.c_str(), static_cast<unsigned long long>(batch),
              cell(untuned).c_str(), cell(tuned).c_str(), cell(eager).c_str(), cell(compiled).c_str(), cell(ort).c_str(),
              ratio(tuned, eager).c_str(), ratio(tuned, compiled).c_str());
  std::fflush(stdout);
}

int gpu_table(const Options& o) {
  const GpuColumns have = probe_python(o, o.work / "probe");
  std::printf("%s on every side; aoe tuned: --tune_on_miss with OPAT, --budget %llu per op, its own bank per model and batch\n",
              o.tf32 ? "TF32 on" : "fp32, TF32 off", static_cast<unsigned long long>(o.budget));
  std::printf("PyTorch runs each model's graph op by op (bench/torch_run.py), eager and torch.compile'd; ONNX Runtime\n"
              "its CUDA provider; inputs uniform in [-1, 1); median (min-p90) ms of %llu runs after warm-up, of the\n"
              "round (of %llu, the columns in turns) with the lowest median; GPU MiB: aoe's arena and weights,\n"
              "PyTorch's peak allocated\n\n",
              static_cast<unsigned long long>(o.iterations), static_cast<unsigned long long>(o.rounds));
  std::printf("%-14s %5s  %-28s %-28s %-28s %-28s %-22s %8s %8s\n", "model", "batch", "aoe untuned", "aoe tuned",
              "PyTorch eager", "torch.compile", "ONNX Runtime CUDA", "tuned/", "tuned/");
  std::printf("%-14s %5s  %-28s %-28s %-28s %-28s %-22s %8s %8s\n", "", "", "", "", "", "", "", "eager", "compile");
  for (const auto& name : o.models)
    for (uint64_t batch : o.batches) {
      BenchModel model = bench_copy(name, o.work / "models", batch);
      export_for_torch(model, batch);
      print_gpu_row(o, have, name, model, batch);
    }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    if (o.device == "cuda") return gpu_table(o);
    const bool have_ort = aoe::bench::onnxruntime_ready(o.onnxruntime);
    std::printf("aoe tuned: --tune_on_miss with OPAT, --budget %llu per op, caches %s while tuning, its own bank per\n"
                "model, batch and thread count\n",
                static_cast<unsigned long long>(o.budget), o.tune_cache.c_str());
    std::printf("each column runs the same copy of the model, its external weights seeded noise, under %s\n",
                (o.work / "models").c_str());
    std::printf("median (min-p90) of %llu runs after one untimed, of the round (of %llu, the columns in turns) with\n"
                "the lowest median; peak RSS of that process\n",
                static_cast<unsigned long long>(o.iterations), static_cast<unsigned long long>(o.rounds));
    // On the threads each row has: measured first, then again after each row's columns.
    std::map<uint64_t, aoe::bench::BestFmaPeak> peak;
    for (uint64_t threads : o.threads) {
      peak[threads] = {static_cast<int>(threads), aoe::bench::widest_fma()};
      peak[threads].refresh(5);
    }
    std::printf("FMA time: the model's conv and product multiply-adds (the aoe run's report, `gflop`) at the FMA\n"
                "peak of its threads, the best an FMA loop (bench/fma_peak.h) has measured by that row; no kernel\n"
                "computing them directly is faster (a Winograd conv computes fewer)\n\n");
    std::printf("%-14s %5s %7s  %-32s %-32s %-32s %8s %8s  %-10s %8s %8s\n", "model", "batch", "threads",
                "aoe untuned", "aoe tuned", "ONNX Runtime", "untuned/", "tuned/", "FMA time", "tuned/", "ORT/");
    std::printf("%-14s %5s %7s  %-32s %-32s %-32s %8s %8s  %-10s %8s %8s\n", "", "", "", "", "", "", "ORT", "ORT", "",
                "FMA", "FMA");
    for (const auto& name : o.models)
      for (uint64_t batch : o.batches) {
        const BenchModel model = bench_copy(name, o.work / "models", batch);
        for (uint64_t threads : o.threads) print_row(o, have_ort, name, model, batch, threads, peak[threads]);
      }
    std::printf("\nFMA peak, the best measured:");
    for (const auto& [threads, p] : peak)
      std::printf(" %llu thread(s) %.1f GFLOP/s;", static_cast<unsigned long long>(threads), p.best);
    std::printf("\n");
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "model_runtime_bench: %s\n", e.what());
    return 2;
  }
}
