// A user's model run by aoe (`aoe-host run --device cpu`) and by ONNX Runtime
// (the onnxruntime-node package, where installed) on the same inputs, same
// threads, same number of timed runs: per output the largest absolute and
// relative difference and whether every element is within allclose (integer
// and bool outputs too, as the whole numbers aoe gives them), and both
// latencies side by side. Exits 1 when aoe fails or an output differs beyond
// the tolerance, 0 otherwise (ONNX Runtime absent: aoe's side alone, said so).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "aoe/sdk/graph.h"
#include "bench_args.h"
#include "frontend/onnx_frontend.h"
#include "host_runner.h"
#include "npz_file.h"

namespace {

namespace fs = std::filesystem;
using aoe::bench::count;
using nlohmann::json;

constexpr const char* kUsage =
    "usage: ort_compare MODEL.onnx [--input_shape S] [--threads N] [--iterations N] [--rtol R] [--atol A]\n"
    "                   [--seed N] [--inputs FILE.npz] [--bank DIR] [--onnxruntime DIR] [--work DIR]\n"
    "  --input_shape  the model's dynamic dims, as aoe-host takes them; ONNX Runtime is fed the same inputs\n"
    "  --threads      threads of both runtimes (default 1)\n"
    "  --iterations   timed runs of each, after one untimed (default 10)\n"
    "  --rtol --atol  allclose: |aoe - ort| <= atol + rtol * |ort| (default 1e-4 and 1e-4, for fp32)\n"
    "  --seed         float inputs are uniform in [-1, 1), integer and bool ones in {0, 1} (default 1)\n"
    "  --inputs       inputs of the user's own, as aoe-host run --inputs reads them (np.savez: float32, int32,\n"
    "                 int64 or bool arrays by input name); an input the file lacks is drawn from the seed\n"
    "  --bank         the operator bank aoe runs with (default: an empty one, every kernel at its default)\n"
    "  --onnxruntime  a node_modules folder holding onnxruntime-node (default ./node_modules, or\n"
    "                 AOE_ONNXRUNTIME_NODE); without it only aoe's side runs\n"
    "  --work         scratch directory for inputs, outputs and reports (default: a fresh one in $TMPDIR)\n";

struct Options {
  fs::path model, bank, onnxruntime, work, inputs;
  std::string input_shape;
  uint64_t threads = 1, iterations = 10, seed = 1;
  double rtol = 1e-4, atol = 1e-4;
};

double real(const std::string& text, const std::string& option) {
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && v >= 0) return v;
  } catch (const std::exception&) {
  }
  throw std::invalid_argument(option + " takes a number >= 0, not '" + text + "'");
}

Options parse(int argc, char** argv) {
  Options o;
  o.onnxruntime = aoe::bench::default_onnxruntime_dir();
  for (aoe::bench::Args args(argc, argv); args.next();) {
    const std::string& arg = args.option();
    if (arg == "--input_shape") o.input_shape = args.value();
    else if (arg == "--threads") o.threads = std::max<uint64_t>(1, count(args.value(), arg));
    else if (arg == "--iterations") o.iterations = std::max<uint64_t>(1, count(args.value(), arg));
    else if (arg == "--seed") o.seed = count(args.value(), arg);
    else if (arg == "--rtol") o.rtol = real(args.value(), arg);
    else if (arg == "--atol") o.atol = real(args.value(), arg);
    else if (arg == "--inputs") o.inputs = args.value();
    else if (arg == "--bank") o.bank = args.value();
    else if (arg == "--onnxruntime") o.onnxruntime = args.value();
    else if (arg == "--work") o.work = args.value();
    else if (!arg.empty() && arg[0] != '-' && o.model.empty()) o.model = arg;
    else throw std::invalid_argument("unknown option " + arg + "\n" + kUsage);
  }
  if (o.model.empty()) throw std::invalid_argument(std::string("no model\n") + kUsage);
  if (o.work.empty()) o.work = aoe::bench::make_scratch("ort_compare");
  if (o.bank.empty()) o.bank = o.work / "bank";
  // Each runtime runs in a folder of its own under --work: every path it is handed is absolute.
  o.model = fs::absolute(o.model);
  o.work = fs::absolute(o.work);
  o.bank = fs::absolute(o.bank);
  if (!o.inputs.empty()) o.inputs = fs::absolute(o.inputs);
  return o;
}

struct Input {
  std::string name;
  std::vector<int64_t> dims;
  std::string dtype;          // as ONNX Runtime is fed it: float32, int64, int32 or bool
  std::vector<float> values;  // integers and bools as whole floats, as aoe's .npz inputs carry them
  bool whole() const { return dtype != "float32"; }
};

// The dtype ONNX Runtime is fed an input of `t` as; empty for one ort_compare does not feed.
std::string fed_dtype(aoe::sdk::DType t) {
  switch (t) {
    case aoe::sdk::DType::f32: return "float32";
    case aoe::sdk::DType::i64: return "int64";
    case aoe::sdk::DType::i32: return "int32";
    case aoe::sdk::DType::boolean: return "bool";
    default: return "";
  }
}

// The model's inputs with the dims aoe resolves, drawn from the seed.
std::vector<Input> draw_inputs(const Options& o, const aoe::sdk::Graph& graph) {
  std::mt19937_64 rng(o.seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<Input> inputs;
  for (const auto& name : graph.inputs) {
    const auto& t = graph.tensor(name);
    Input in{name, t.shape, fed_dtype(t.dtype), {}};
    if (in.dtype.empty())
      throw std::invalid_argument("input '" + name + "' is " + aoe::sdk::to_string(t.dtype) +
                                  ": ort_compare feeds float32, int64, int32 and bool inputs");
    in.values.resize(static_cast<size_t>(t.elements()));
    for (auto& v : in.values) v = in.whole() ? static_cast<float>(rng() % 2) : uniform(rng);
    inputs.push_back(std::move(in));
  }
  return inputs;
}

std::string dims_text(const std::vector<int64_t>& dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) text += (i ? "," : "") + std::to_string(dims[i]);
  return text + "]";
}

std::string number_text(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

// The user's arrays in place of the drawn ones (an input the file lacks keeps
// its draw, so its values are those the seed gives without the file); returns
// the names taken. The file must name only model inputs, at the dims aoe
// resolved, integer inputs with whole numbers and bool ones with 0 and 1, as ONNX Runtime is fed them.
std::vector<std::string> take_user_inputs(std::vector<Input>& inputs, const fs::path& file) {
  std::vector<std::string> taken;
  for (auto& [name, array] : aoe::host::read_npz(file)) {
    auto in = std::find_if(inputs.begin(), inputs.end(), [&](const Input& i) { return i.name == name; });
    if (in == inputs.end()) {
      std::string names;
      for (const auto& i : inputs) names += (names.empty() ? "" : ", ") + i.name;
      throw std::invalid_argument(file.string() + ": '" + name + "' is no input of the model (its inputs: " + names + ")");
    }
    if (array.shape != in->dims)
      throw std::invalid_argument(file.string() + ": '" + name + "' is " + dims_text(array.shape) + ", the model takes " +
                                  dims_text(in->dims) + " (dynamic dims: set them with --input_shape)");
    for (float v : array.data)
      if (in->whole() && (!std::isfinite(v) || v != std::trunc(v) || (in->dtype == "bool" && v != 0 && v != 1)))
        throw std::invalid_argument(file.string() + ": '" + name + "' is " + (in->dtype == "bool" ? "a " : "an ") + in->dtype +
                                    " input, but holds " + number_text(v));
    in->values = std::move(array.data);
    taken.push_back(name);
  }
  return taken;
}

// The inputs as ONNX Runtime reads them: raw little-endian files and their list.
fs::path write_ort_inputs(const std::vector<Input>& inputs, const fs::path& dir) {
  fs::create_directories(dir);
  json list = json::array();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto& in = inputs[i];
    const fs::path file = dir / ("input_" + std::to_string(i) + ".bin");
    std::ofstream out(file, std::ios::binary);
    const auto write = [&](const auto& values) {
      out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(values[0])));
    };
    if (in.dtype == "int64") write(std::vector<int64_t>(in.values.begin(), in.values.end()));
    else if (in.dtype == "int32") write(std::vector<int32_t>(in.values.begin(), in.values.end()));
    else if (in.dtype == "bool") write(std::vector<uint8_t>(in.values.begin(), in.values.end()));
    else write(in.values);
    list.push_back({{"name", in.name}, {"dims", in.dims}, {"dtype", in.dtype}, {"file", file}});
  }
  const fs::path index = dir / "inputs.json";
  std::ofstream(index) << list.dump();
  return index;
}

std::vector<float> read_floats(const fs::path& file) {
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  std::vector<float> values(static_cast<size_t>(in.tellg()) / sizeof(float));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(float)));
  return values;
}

json last_json_line(const fs::path& file) {
  std::ifstream out(file);
  std::string line, last;
  while (std::getline(out, line))
    if (!line.empty()) last = line;
  return json::parse(last);
}

struct Difference {
  double max_abs = 0, max_rel = 0;
  int64_t outside = 0;  // elements beyond atol + rtol * |ort|
};

Difference compare(const std::vector<float>& got, const std::vector<float>& want, double rtol, double atol) {
  Difference d;
  for (size_t i = 0; i < got.size(); ++i) {
    const double a = got[i], b = want[i], diff = std::fabs(a - b);
    const bool both_nan = std::isnan(a) && std::isnan(b);
    if (both_nan || a == b) continue;
    d.max_abs = std::max(d.max_abs, std::isnan(diff) ? INFINITY : diff);
    if (b != 0) d.max_rel = std::max(d.max_rel, diff / std::fabs(b));
    if (!(diff <= atol + rtol * std::fabs(b))) ++d.outside;
  }
  return d;
}

int run(const Options& o) {
  const aoe::sdk::Graph graph = aoe::host::load_onnx(o.model, aoe::host::parse_input_shape(o.input_shape));
  auto inputs = draw_inputs(o, graph);
  std::string from = "inputs from seed " + std::to_string(o.seed);
  if (!o.inputs.empty()) {
    std::string names;
    for (const auto& name : take_user_inputs(inputs, o.inputs)) names += (names.empty() ? "" : ", ") + name;
    from = (names.empty() ? "no input" : names) + " from " + o.inputs.filename().string() + ", the rest from seed " +
           std::to_string(o.seed);
  }
  std::vector<std::pair<std::string, aoe::host::FloatArray>> arrays;
  for (const auto& in : inputs) arrays.push_back({in.name, {in.dims, in.values}});
  fs::create_directories(o.work);
  aoe::host::write_npz(o.work / "inputs.npz", arrays);

  const fs::path aoe_dir = o.work / "aoe";
  std::vector<std::string> args = {AOE_BENCH_HOST, "run", "--device", "cpu", "--model", o.model.string(), "--threads",
                                   std::to_string(o.threads), "--iterations", std::to_string(o.iterations), "--inputs",
                                   (o.work / "inputs.npz").string(), "--outputs", (o.work / "aoe_outputs.npz").string(),
                                   "--run_report", (o.work / "aoe_run.json").string()};
  if (!o.input_shape.empty()) args.insert(args.end(), {"--input_shape", o.input_shape});
  const auto aoe_run = aoe::bench::run_host(args, aoe_dir, o.bank);
  std::printf("ort_compare: %s, %llu thread(s), %llu timed runs each after one untimed, %s\n",
              o.model.filename().c_str(), static_cast<unsigned long long>(o.threads),
              static_cast<unsigned long long>(o.iterations), from.c_str());
  if (aoe_run.exit_code != 0) {
    std::printf("aoe: aoe-host run exited %d (see %s)\n", aoe_run.exit_code, aoe_dir.c_str());
    return 1;
  }
  const json report = json::parse(std::ifstream(o.work / "aoe_run.json"));
  const auto got = aoe::host::read_npz(o.work / "aoe_outputs.npz");
  const json& aoe_ms = report["latency_ms"];

  if (!aoe::bench::onnxruntime_ready(o.onnxruntime)) {
    std::printf("aoe: %.3f ms median (min %.3f, p90 %.3f); outputs in %s\n", aoe_ms["median"].get<double>(),
                aoe_ms["min"].get<double>(), aoe_ms["p90"].get<double>(), (o.work / "aoe_outputs.npz").c_str());
    return 0;
  }
  const fs::path ort_dir = o.work / "ort";
  const fs::path index = write_ort_inputs(inputs, o.work / "ort_inputs");
  const auto ort_run = aoe::bench::run_host({aoe::bench::on_path("node").string(), AOE_BENCH_ORT_OUTPUTS_SCRIPT, o.model.string(),
                                             index.string(), ort_dir.string(), std::to_string(o.iterations),
                                             std::to_string(o.threads)},
                                            ort_dir, o.work / "unused_bank");
  if (ort_run.exit_code != 0) {
    std::printf("ONNX Runtime: exited %d (see %s)\n", ort_run.exit_code, ort_dir.c_str());
    return 1;
  }
  const json ort = last_json_line(ort_dir / "stdout.txt");

  std::printf("%-28s %-18s %12s %12s  %s\n", "output", "shape", "max |diff|", "max rel",
              ("allclose (rtol " + std::to_string(o.rtol).substr(0, 6) + ", atol " + std::to_string(o.atol).substr(0, 6) +
               ")").c_str());
  bool all_close = true;
  for (const auto& out : ort["outputs"]) {
    const std::string name = out["name"];
    const auto dims = out["dims"].get<std::vector<int64_t>>();
    const auto mine = got.find(name);
    const std::string dtype = out["dtype"];
    if (!out.contains("file") || mine == got.end()) {
      std::printf("%-28s %-18s %12s %12s  not compared: %s\n", name.c_str(), dims_text(dims).c_str(), "-", "-",
                  mine == got.end() ? "aoe wrote no such output" : ("ONNX Runtime gives " + dtype).c_str());
      all_close = all_close && mine != got.end();
      continue;
    }
    const auto want = read_floats(out["file"].get<std::string>());
    if (mine->second.data.size() != want.size() || mine->second.shape != dims) {
      std::printf("%-28s %-18s shape differs: aoe %s\n", name.c_str(), dims_text(dims).c_str(),
                  dims_text(mine->second.shape).c_str());
      all_close = false;
      continue;
    }
    const Difference d = compare(mine->second.data, want, o.rtol, o.atol);
    all_close = all_close && d.outside == 0;
    const std::string as = dtype == "float32" ? "" : " (" + dtype + ")";
    std::printf("%-28s %-18s %12.3g %12.3g  %s\n", name.c_str(), dims_text(dims).c_str(), d.max_abs, d.max_rel,
                ((d.outside ? std::to_string(d.outside) + " of " + std::to_string(want.size()) + " elements outside" : "yes") +
                 as).c_str());
  }
  const double aoe_median = aoe_ms["median"].get<double>(), ort_median = ort["median"].get<double>();
  std::printf("latency, median (min-p90) ms: aoe %.3f (%.3f-%.3f), ONNX Runtime %s %.3f (%.3f-%.3f); aoe/ORT %.2fx\n",
              aoe_median, aoe_ms["min"].get<double>(), aoe_ms["p90"].get<double>(),
              ort["version"].get<std::string>().c_str(), ort_median, ort["min"].get<double>(),
              ort["p90"].get<double>(), ort_median > 0 ? aoe_median / ort_median : 0.0);
  std::printf("aoe ran %d of %d kernels with a banked config (bank %s)\n", report.value("tuned_kernel_count", 0),
              report.value("kernel_count", 0), o.bank.c_str());
  return all_close ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ort_compare: %s\n", e.what());
    return 2;
  }
}
