// Conformance against data nobody here wrote: ONNX's backend node tests
// (Debian's libonnx-testdata). Every single-node fp32 test of an op family
// the cpu device runs goes through the ONNX frontend into an op task, and
// its kernel runs on the test's inputs with the default config and others;
// each output must match the test's expected one. And every test, expanded
// graphs included, runs as `aoe-host run` runs a model: frontend, graph
// normaliser and the device's model executor.
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "aoe/sdk/error.h"
#include "cpu_op.h"
#include "evaluate.h"
#include "frontend/onnx_frontend.h"
#include "frontend/value_attributes.h"
#include "host_cpu.h"
#include "model_run.h"
#include "thread_pool.h"

namespace aoe::cpu {
namespace {

namespace fs = std::filesystem;

// ONNX's own backend tests compare with rtol 1e-3, atol 1e-7; the device's
// own check, tighter in rtol, is used here.
const Tolerance kTolerance{};
constexpr size_t kOtherConfigs = 4;

fs::path data_dir() {
  if (const char* env = std::getenv("AOE_ONNX_NODE_TESTS")) return env;
  return AOE_ONNX_NODE_TESTS_DIR;
}

onnx::TensorProto read_tensor(const fs::path& path) {
  onnx::TensorProto t;
  std::ifstream in(path, std::ios::binary);
  if (!in || !t.ParseFromIstream(&in)) throw std::runtime_error("cannot read " + path.string());
  return t;
}

std::vector<float> floats_of(const onnx::TensorProto& t) {
  int64_t n = 1;
  for (auto d : t.dims()) {
    if (d < 0 || (d > 0 && n > (int64_t{1} << 28) / d)) throw std::runtime_error("a tensor of implausible dims");
    n *= d;
  }
  std::vector<float> out(static_cast<size_t>(n));
  if (!t.raw_data().empty()) {
    if (t.raw_data().size() != out.size() * sizeof(float)) throw std::runtime_error("raw data of the wrong size");
    std::memcpy(out.data(), t.raw_data().data(), t.raw_data().size());
  } else {
    if (t.float_data_size() != n) throw std::runtime_error("float data of the wrong size");
    std::copy(t.float_data().begin(), t.float_data().end(), out.begin());
  }
  return out;
}

std::vector<int64_t> ints_of(const onnx::TensorProto& t) {
  int64_t n = 1;
  for (auto d : t.dims()) n *= d;
  std::vector<int64_t> out(static_cast<size_t>(n));
  if (!t.raw_data().empty()) std::memcpy(out.data(), t.raw_data().data(), out.size() * sizeof(int64_t));
  else std::copy(t.int64_data().begin(), t.int64_data().end(), out.begin());
  return out;
}

// A bool, int32 or int64 tensor's values; nothing for another type.
std::optional<std::vector<int64_t>> integers_of(const onnx::TensorProto& t) {
  if (t.data_type() == onnx::TensorProto::INT64) return ints_of(t);
  if (t.data_type() != onnx::TensorProto::BOOL && t.data_type() != onnx::TensorProto::INT32) return std::nullopt;
  if (t.raw_data().empty()) return std::vector<int64_t>(t.int32_data().begin(), t.int32_data().end());
  std::vector<int64_t> out;
  const std::string& raw = t.raw_data();
  if (t.data_type() == onnx::TensorProto::BOOL) {
    for (char c : raw) out.push_back(c != 0);
  } else {
    for (size_t i = 0; i + 4 <= raw.size(); i += 4) {
      int32_t v;
      std::memcpy(&v, raw.data() + i, sizeof v);
      out.push_back(v);
    }
  }
  return out;
}

// The node's type and inputs as names, "" where an optional one is left out.
struct RawNode {
  std::string op_type;
  std::vector<std::string> inputs;
  int nodes = 0;
  onnx::ModelProto model;
};
RawNode raw_node(const fs::path& model) {
  onnx::ModelProto m;
  std::ifstream in(model, std::ios::binary);
  if (!in || !m.ParseFromIstream(&in)) throw std::runtime_error("cannot read " + model.string());
  RawNode r;
  r.model = m;
  r.nodes = m.graph().node_size();
  if (r.nodes != 1) return r;
  const auto& n = m.graph().node(0);
  r.op_type = n.op_type();
  r.inputs = {n.input().begin(), n.input().end()};
  return r;
}

// ---- random outputs ---------------------------------------------------------------------

// A test of an op whose outputs are random draws recorded its own
// generator's draws, which no other generator reproduces: its outputs are
// checked by the law the draws follow instead. A law takes the inputs in
// the node's (or graph's) order and the outputs, and says why they break
// it, or "" where they keep to it.
using RandomLaw = std::string (*)(const std::vector<std::vector<float>>& inputs,
                                  const std::vector<std::vector<float>>& outputs);

// Where a count of draws, each kept with probability p[i], lies more than
// five standard deviations (and one draw) from its mean: why; else "".
std::string binomial_count(int64_t kept, const std::vector<double>& p) {
  double mean = 0, variance = 0;
  for (const double q : p) mean += q, variance += q * (1 - q);
  if (std::abs(static_cast<double>(kept) - mean) <= 5 * std::sqrt(variance) + 1) return "";
  return std::to_string(kept) + " of " + std::to_string(p.size()) + " draws kept, where the law expects " +
         std::to_string(mean) + " +- " + std::to_string(std::sqrt(variance));
}

// Bernoulli (and its expansion, RandomUniformLike < p): 0 or 1 each, 1 with probability p.
std::string bernoulli_law(const std::vector<std::vector<float>>& in, const std::vector<std::vector<float>>& out) {
  const auto& p = in.at(0);
  const auto& y = out.at(0);
  if (y.size() != p.size()) return "output has " + std::to_string(y.size()) + " values, its input " + std::to_string(p.size());
  int64_t ones = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    if (y[i] != 0.0f && y[i] != 1.0f) return "element " + std::to_string(i) + " is " + std::to_string(y[i]) + ", not 0 or 1";
    if ((p[i] <= 0 && y[i] == 1.0f) || (p[i] >= 1 && y[i] == 0.0f))
      return "element " + std::to_string(i) + " is " + std::to_string(y[i]) + " at probability " + std::to_string(p[i]);
    ones += y[i] == 1.0f;
  }
  return binomial_count(ones, std::vector<double>(p.begin(), p.end()));
}

// Dropout in training (x, ratio, training_mode): each element 0 or x / (1 - ratio), kept
// with probability 1 - ratio; the mask, where given, true where it is kept.
std::string dropout_law(const std::vector<std::vector<float>>& in, const std::vector<std::vector<float>>& out) {
  const auto& x = in.at(0);
  const double ratio = in.size() > 1 ? in[1].at(0) : 0.5;
  const auto& y = out.at(0);
  int64_t kept = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double scaled = x[i] / (1 - ratio);
    const bool keep = out.size() > 1 ? out[1].at(i) != 0.0f : y[i] != 0.0f;
    if (out.size() > 1 && out[1][i] != 0.0f && out[1][i] != 1.0f) return "mask element " + std::to_string(i) + " is not 0 or 1";
    const double want = keep ? scaled : 0.0;
    if (std::abs(y.at(i) - want) > 1e-5 * (1 + std::abs(want)))
      return "element " + std::to_string(i) + " is " + std::to_string(y[i]) + ", neither 0 nor x / (1 - ratio) = " +
             std::to_string(scaled);
    kept += keep;
  }
  return binomial_count(kept, std::vector<double>(x.size(), 1 - ratio));
}

// The law of a test whose outputs are random, by its name; null for another test.
RandomLaw random_law(const std::string& test) {
  if (test.rfind("test_bernoulli", 0) == 0) return bernoulli_law;
  // test_training_dropout_zero_ratio* keep every element: their outputs are known.
  if (test.rfind("test_training_dropout", 0) == 0 && test.find("zero_ratio") == std::string::npos) return dropout_law;
  return nullptr;
}

struct Tally {
  int run = 0, passed = 0;
  std::map<std::string, int> run_by_op;
  std::map<std::string, std::vector<std::string>> skipped;  // reason -> tests
  std::vector<std::string> skipped_supported;               // of an op the device runs: test and reason
  std::vector<std::string> failures;
};

// Each test's folder, in name order.
std::vector<fs::path> test_dirs(const fs::path& root) {
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(root))
    if (e.is_directory()) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

// Op families the device claims, so a test of one of them is run or skipped for a stated reason.
bool family_supported(const std::string& op) {
  const auto ops = supported_op_types();
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

// ONNX's reference spans align_corners over input x scale, unrounded; ONNX
// Runtime and PyTorch over the output's length, as aoe does.
constexpr const char* kAlignCornersOfUnroundedLength =
    "align_corners over a length of input x scale, unrounded (2.4, 3.2), as ONNX's reference computes it; ONNX Runtime "
    "and PyTorch span the output's own length (2, 3)";
// Tests whose expected outputs were computed otherwise than their own model
// says, or than ONNX Runtime computes it: skipped with the reason, since a
// kernel right by the spec, or by ONNX Runtime, fails them.
const std::map<std::string, std::string> kDataNotOfTheModel = {
    {"test_adam_multiple",
     "outputs computed with an Adam epsilon of 1e-2 that the model's node does not carry (onnx/onnx#7749)"},
    {"test_resize_downsample_scales_linear_align_corners", kAlignCornersOfUnroundedLength},
    {"test_resize_downsample_scales_cubic_align_corners", kAlignCornersOfUnroundedLength}};

void run_one(const fs::path& dir, const HostCpu& host, ThreadPool& pool, Tally& tally) {
  const std::string name = dir.filename().string();
  if (const auto it = kDataNotOfTheModel.find(name); it != kDataNotOfTheModel.end())
    return tally.skipped[it->second].push_back(name);
  const fs::path set = dir / "test_data_set_0";
  if (!fs::exists(dir / "model.onnx") || !fs::exists(set)) return tally.skipped["no model or data set"].push_back(name);
  const RawNode raw = raw_node(dir / "model.onnx");
  const auto& names = raw.inputs;
  auto skip = [&](const std::string& why) {
    tally.skipped[why].push_back(name);
    if (family_supported(raw.op_type)) tally.skipped_supported.push_back(name + " (" + why + ")");
  };
  if (raw.nodes != 1) return skip("a graph of several nodes (an expanded test)");
  if (!family_supported(raw.op_type)) return skip("no cpu kernel for the op");
  sdk::Graph graph;
  try {
    graph = host::load_onnx(dir / "model.onnx");
  } catch (const std::exception& e) {
    tally.skipped_supported.push_back(name + " (the ONNX frontend: " + e.what() + ")");
    tally.skipped["the ONNX frontend does not read it"].push_back(name);
    return;
  }
  if (graph.nodes.size() != 1) return skip("a graph of several nodes (an expanded test)");
  const sdk::Node& node = graph.nodes[0];

  // The op task as the tuner makes it, with the node's constant-valued
  // integer and bound inputs folded into attributes (their values are data).
  sdk::OpTask task;
  task.name = name;
  task.op_type = node.op_type;
  task.attrs = node.attrs;
  std::vector<std::vector<float>> inputs;
  for (size_t i = 0, file = 0; i < names.size(); ++i) {
    if (names[i].empty()) continue;
    const auto proto = read_tensor(set / ("input_" + std::to_string(file++) + ".pb"));
    const sdk::TensorDesc desc = graph.tensor(names[i]);
    if (proto.data_type() == onnx::TensorProto::INT64 && node.op_type.rfind("Reduce", 0) == 0 && i == 1) {
      task.attrs["axes"] = ints_of(proto);
      task.inputs.push_back(desc);
      inputs.emplace_back(static_cast<size_t>(std::max<int64_t>(1, desc.elements())), 0.0f);
      continue;
    }
    // Slice's bounds and Pad's widths, as the frontend folds them where the
    // model holds them as constants.
    static const char* const kSliceKeys[] = {"", "starts", "ends", "axes", "steps"};
    const bool slice_bound = node.op_type == "Slice" && i >= 1 && i <= 4;
    if (node.op_type == "Pad" && i == 3) return skip("Pad over an axes subset (opset 18)");
    if (proto.data_type() == onnx::TensorProto::INT64 && (slice_bound || (node.op_type == "Pad" && i == 1))) {
      task.attrs[slice_bound ? kSliceKeys[i] : "pads"] = ints_of(proto);
      task.inputs.push_back(desc);
      inputs.emplace_back(static_cast<size_t>(std::max<int64_t>(1, desc.elements())), 0.0f);
      continue;
    }
    // Integer and bool values the frontend folds into an attribute where the model holds them as constants.
    if (const char* attr = host::integer_value_attribute(node.op_type, i)) {
      if (const auto ids = integers_of(proto)) {
        task.attrs[attr] = *ids;
        task.inputs.push_back(desc);
        inputs.emplace_back(static_cast<size_t>(std::max<int64_t>(1, desc.elements())), 0.0f);
        continue;
      }
    }
    // Gather's indices at run time: the device's buffers hold them as floats.
    if (proto.data_type() == onnx::TensorProto::INT64 && node.op_type == "Gather" && i == 1) {
      const auto ids = ints_of(proto);
      task.inputs.push_back(desc);
      inputs.emplace_back(ids.begin(), ids.end());
      continue;
    }
    // Split's sizes are its outputs' extents; Resize's sizes its output's.
    const bool sizes = proto.data_type() == onnx::TensorProto::INT64 &&
                       ((node.op_type == "Split" && i == 1) || (node.op_type == "Resize" && i == 3));
    if (sizes) {
      task.inputs.push_back(desc);
      inputs.emplace_back(static_cast<size_t>(std::max<int64_t>(1, desc.elements())), 0.0f);
      continue;
    }
    if (proto.data_type() != onnx::TensorProto::FLOAT) return skip("a tensor that is not float32");
    auto values = floats_of(proto);
    if (node.op_type == "Resize" && i == 2 && !values.empty()) task.attrs["scales"] = values;
    if (node.op_type == "Clip" && i > 0) task.attrs[i == 1 ? "min" : "max"] = values.at(0);
    if (node.op_type == "Pad" && i == 2) task.attrs["value"] = values.at(0);
    task.inputs.push_back(desc);
    inputs.push_back(std::move(values));
  }
  for (const auto& out : node.outputs)
    if (!out.empty()) task.outputs.push_back(graph.tensor(out));
  for (const auto& t : task.outputs)
    if (t.dtype != sdk::DType::f32) return skip("a tensor that is not float32");

  std::unique_ptr<CpuOp> op;
  try {
    op = make_op(task, host);
  } catch (const sdk::Error& e) {
    if (e.code() == sdk::StatusCode::unsupported) return skip(std::string("unsupported: ") + e.what());
    tally.failures.push_back(name + ": refused: " + e.what());
    ++tally.run;
    return;
  }
  std::vector<std::vector<float>> expected;
  for (size_t i = 0; i < op->output_shapes().size(); ++i)
    expected.push_back(floats_of(read_tensor(set / ("output_" + std::to_string(i) + ".pb"))));

  // The default, then configs drawn with a fixed seed.
  std::vector<sdk::Config> configs{op->space().default_config};
  std::mt19937_64 rng(11);
  for (size_t tries = 0; configs.size() < 1 + kOtherConfigs && tries < 500; ++tries) {
    sdk::Config c;
    for (const auto& k : op->space().knobs) c.push_back(k.values[rng() % k.values.size()]);
    if (op->check(c).empty() && std::find(configs.begin(), configs.end(), c) == configs.end()) configs.push_back(c);
  }
  std::vector<const float*> in;
  for (const auto& v : inputs) in.push_back(v.data());
  ++tally.run;
  ++tally.run_by_op[node.op_type];
  const RandomLaw law = random_law(name);
  for (const auto& c : configs) {
    const auto got = run_once(*op, c, in, pool);
    if (law) {
      if (const auto why = law(inputs, got); !why.empty())
        return tally.failures.push_back(name + " with " + op->space().describe(c).dump() + ": " + why);
      continue;
    }
    for (size_t i = 0; i < got.size(); ++i) {
      if (got[i].size() != expected[i].size()) {
        tally.failures.push_back(name + ": output " + std::to_string(i) + " has " + std::to_string(got[i].size()) +
                                 " values, expected " + std::to_string(expected[i].size()));
        return;
      }
      const auto why = compare(got[i].data(), expected[i].data(), static_cast<int64_t>(got[i].size()), kTolerance);
      if (!why.empty()) {
        tally.failures.push_back(name + " with " + op->space().describe(c).dump() + ": output " + std::to_string(i) +
                                 ": " + why);
        return;
      }
    }
  }
  ++tally.passed;
}

TEST(OnnxNodeTests, EverySupportedFp32NodeTestPasses) {
  const fs::path root = data_dir();
  if (!fs::is_directory(root))
    GTEST_SKIP() << "ONNX node tests not found at " << root << ": install libonnx-testdata (tools/install-deps.sh)";
  const std::vector<fs::path> dirs = test_dirs(root);
  const HostCpu host = detect_host_cpu();
  ThreadPool pool(host.threads);
  // The frontend warns about every multi-node test it cannot fold; those are skipped anyway.
  spdlog::set_level(spdlog::level::err);
  Tally tally;
  for (const auto& dir : dirs) run_one(dir, host, pool, tally);

  int skipped = 0;
  for (const auto& [why, tests] : tally.skipped) skipped += static_cast<int>(tests.size());
  std::cout << "ONNX node tests in " << root.string() << ": " << dirs.size() << " found, " << tally.run << " run, "
            << tally.passed << " passed, " << tally.failures.size() << " failed, " << skipped << " skipped\n";
  std::cout << "  run by op:";
  for (const auto& [op, n] : tally.run_by_op) std::cout << " " << op << " " << n;
  std::cout << "\n";
  for (const auto& [why, tests] : tally.skipped) {
    std::cout << "  skipped " << tests.size() << ": " << why;
    std::cout << " (" << tests.front();
    for (size_t i = 1; i < std::min<size_t>(tests.size(), 4); ++i) std::cout << ", " << tests[i];
    std::cout << (tests.size() > 4 ? ", ...)" : ")") << "\n";
  }
  std::cout << "  skipped though the device runs the op:\n";
  for (const auto& s : tally.skipped_supported) std::cout << "    " << s << "\n";
  for (const auto& f : tally.failures) ADD_FAILURE() << f;
  EXPECT_GT(tally.run, 100) << "fewer node tests ran than the families the device covers have";
  // Families whose node tests need the harness to fold an input (Resize's
  // scales, Split's sizes, Slice's bounds, Pad's widths, the integer inputs
  // the frontend folds): each must still be checked by some test.
  for (const char* op : {"ConvTranspose", "BatchNormalization", "Concat", "Split", "Resize", "Sigmoid", "HardSwish",
                         "HardSigmoid", "Clip", "ReduceMean", "ReduceSum", "LayerNormalization", "Transpose", "Slice", "Pad",
                         "Gather", "GatherElements", "ScatterElements", "GatherND", "ScatterND", "OneHot", "Compress",
                         "Where", "Tile", "Expand", "ReverseSequence", "NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"})
    EXPECT_GT(tally.run_by_op[op], 0) << "no ONNX node test of " << op << " ran";
}


// ---- every test as a model ---------------------------------------------------------------

struct ModelTally {
  int run = 0, passed = 0, fed = 0;  // fed: passed with integer or bool inputs fed as the model runs
  int random = 0;                    // passed by the law of their random draws
  std::map<std::string, std::vector<std::string>> skipped;  // reason -> tests
  std::vector<std::string> failures;
};

// "subgraph 'x', node 'y' (Op): why" -> "why", so like refusals group together.
std::string reason_of(const std::string& message) {
  std::string why = message;
  if (const auto at = why.rfind("): "); at != std::string::npos) why = why.substr(at + 3);
  if (const auto at = why.find("op '"); at != std::string::npos && why.find("no kernel") != std::string::npos)
    return "no cpu kernel for op " + why.substr(at + 3);
  return why.size() > 110 ? why.substr(0, 110) + "..." : why;
}

// A 16-bit float tensor's words, raw or one to each int32.
std::vector<uint16_t> words_of(const onnx::TensorProto& t) {
  std::vector<uint16_t> bits;
  if (!t.raw_data().empty()) {
    bits.resize(t.raw_data().size() / 2);
    std::memcpy(bits.data(), t.raw_data().data(), bits.size() * 2);
  } else {
    bits.assign(t.int32_data().begin(), t.int32_data().end());
  }
  return bits;
}

// Whether a tensor of the model's dtype `declared` holds bfloat16: ONNX's
// older test data stores it as UINT16 words.
bool holds_bfloat16(const onnx::TensorProto& t, int declared) {
  using T = onnx::TensorProto;
  return t.data_type() == T::BFLOAT16 || (declared == T::BFLOAT16 && t.data_type() == T::UINT16);
}

// A tensor's values as the device holds them: float32 as they are, integers
// and bools as whole-number floats; nothing for another dtype, or for an
// integer float32 cannot hold exactly. `declared`: the model's dtype of it.
std::optional<std::vector<float>> held_values(const onnx::TensorProto& t, int declared) {
  using T = onnx::TensorProto;
  if (t.data_type() == T::FLOAT) return floats_of(t);
  if (holds_bfloat16(t, declared)) {  // a float32's high 16 bits, widened as the device holds bfloat16
    std::vector<float> out;
    for (const uint16_t h : words_of(t)) {
      const uint32_t bits = static_cast<uint32_t>(h) << 16;
      float f = 0;
      std::memcpy(&f, &bits, sizeof f);
      out.push_back(f);
    }
    return out;
  }
  if (t.data_type() == T::FLOAT16) {  // widened to float32, as the device holds float16
    std::vector<float> out;
    for (const uint16_t h : words_of(t)) {
      const int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
      const double magnitude = exponent == 0    ? std::ldexp(mantissa, -24)
                               : exponent == 31 ? (mantissa ? NAN : INFINITY)
                                                : std::ldexp(mantissa + 1024, exponent - 25);
      out.push_back(static_cast<float>((h & 0x8000) ? -magnitude : magnitude));
    }
    return out;
  }
  if (t.data_type() == T::DOUBLE) {  // rounded to float32, as the device holds float64
    int64_t n = 1;
    for (auto d : t.dims()) n *= d;
    std::vector<double> v(static_cast<size_t>(n));
    if (!t.raw_data().empty()) {
      if (t.raw_data().size() != v.size() * sizeof(double)) throw std::runtime_error("raw data of the wrong size");
      std::memcpy(v.data(), t.raw_data().data(), t.raw_data().size());
    } else {
      if (t.double_data_size() != n) throw std::runtime_error("double data of the wrong size");
      std::copy(t.double_data().begin(), t.double_data().end(), v.begin());
    }
    return std::vector<float>(v.begin(), v.end());
  }
  int64_t n = 1;
  for (auto d : t.dims()) n *= d;
  const std::string& raw = t.raw_data();
  std::vector<double> v;
  const auto from_raw = [&]<typename E>(E) {
    if (raw.size() != static_cast<size_t>(n) * sizeof(E)) throw std::runtime_error("raw data of the wrong size");
    for (size_t i = 0; i < raw.size(); i += sizeof(E)) {
      E e;
      std::memcpy(&e, raw.data() + i, sizeof e);
      v.push_back(static_cast<double>(e));
    }
  };
  switch (t.data_type()) {
    case T::INT64:
      if (raw.empty()) v.assign(t.int64_data().begin(), t.int64_data().end());
      else from_raw(int64_t{});
      break;
    case T::UINT64:
    case T::UINT32:
      if (raw.empty()) v.assign(t.uint64_data().begin(), t.uint64_data().end());
      else if (t.data_type() == T::UINT64) from_raw(uint64_t{});
      else from_raw(uint32_t{});
      break;
    case T::INT32:
    case T::INT16:
    case T::INT8:
    case T::UINT16:
    case T::UINT8:
    case T::BOOL:
      if (raw.empty()) v.assign(t.int32_data().begin(), t.int32_data().end());
      else if (t.data_type() == T::INT32) from_raw(int32_t{});
      else if (t.data_type() == T::INT16) from_raw(int16_t{});
      else if (t.data_type() == T::UINT16) from_raw(uint16_t{});
      else if (t.data_type() == T::INT8) from_raw(int8_t{});
      else from_raw(uint8_t{});
      break;
    default: return std::nullopt;
  }
  if (static_cast<int64_t>(v.size()) != n) throw std::runtime_error("integer data of the wrong size");
  std::vector<float> out;
  for (const double x : v) {
    if (std::abs(x) > 16777216.0) return std::nullopt;
    out.push_back(static_cast<float>(x));
  }
  return out;
}

std::string dtype_name(int type) { return onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(type)); }

// The test's model as a user's, its inputs fed as the device holds them;
// or, `integers_constant`, its integer and bool inputs (indices, axes,
// shapes) made the constants an exported model holds, where the graph
// needs their values to know its shapes.
void run_as_model(const fs::path& dir, const std::shared_ptr<const HostCpu>& host, ModelTally& tally,
                  bool integers_constant) {
  const std::string name = dir.filename().string();
  const fs::path set = dir / "test_data_set_0";
  const auto skip = [&](const std::string& why) { tally.skipped[why].push_back(name); };
  if (!fs::exists(dir / "model.onnx") || !fs::exists(set)) return skip("no model or data set");
  onnx::ModelProto model = raw_node(dir / "model.onnx").model;
  auto& g = *model.mutable_graph();
  std::vector<std::pair<std::string, std::vector<float>>> fed;
  bool integers_fed = false;
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> kept;
  for (const auto* list : {&g.input(), &g.output()})
    for (const auto& v : *list)
      if (!v.type().has_tensor_type()) return skip("a sequence, map or optional value");
  // Old exporters list the weights among the inputs; the data set feeds the others, in order.
  std::set<std::string> weights_listed;
  for (const auto& init : g.initializer()) weights_listed.insert(init.name());
  for (int i = 0, fed_index = 0; i < g.input_size(); ++i) {
    if (weights_listed.count(g.input(i).name())) {
      *kept.Add() = g.input(i);
      continue;
    }
    const fs::path file = set / ("input_" + std::to_string(fed_index++) + ".pb");
    if (!fs::exists(file)) return skip("an input without data (an optional one)");
    auto t = read_tensor(file);
    const int declared = g.input(i).type().tensor_type().elem_type();
    if (t.data_type() != declared && !holds_bfloat16(t, declared))
      return skip("input data of another dtype than the model's input (" + dtype_name(t.data_type()) + " for " +
                  dtype_name(declared) + ")");
    auto values = held_values(t, declared);
    if (!values && t.data_type() != onnx::TensorProto::FLOAT &&
        (t.data_type() == onnx::TensorProto::INT64 || t.data_type() == onnx::TensorProto::UINT64 ||
         t.data_type() == onnx::TensorProto::UINT32 || t.data_type() == onnx::TensorProto::INT32) &&
        !integers_constant)
      return skip("an integer input beyond 2^24, which float32 holds inexactly");
    if (!values && !integers_constant) return skip("an input of dtype " + dtype_name(t.data_type()));
    const bool floats = t.data_type() == onnx::TensorProto::FLOAT || holds_bfloat16(t, declared);
    if (floats || !integers_constant) {
      integers_fed = integers_fed || !floats;
      fed.emplace_back(g.input(i).name(), std::move(*values));
      *kept.Add() = g.input(i);
    } else {
      t.set_name(g.input(i).name());
      *g.add_initializer() = std::move(t);
    }
  }
  g.mutable_input()->Swap(&kept);
  std::vector<std::vector<float>> expected;
  for (int i = 0; i < g.output_size(); ++i) {
    const auto t = read_tensor(set / ("output_" + std::to_string(i) + ".pb"));
    auto values = held_values(t, g.output(i).type().tensor_type().elem_type());
    if (!values) return skip("an output of dtype " + dtype_name(t.data_type()));
    expected.push_back(std::move(*values));
  }
  host::ModelWeights weights;
  sdk::GraphRun run;
  try {
    run.graph = host::load_onnx_model(model, dir / "model.onnx", {}, &weights);
  } catch (const std::exception& e) {
    // Without the file's name, so like refusals group together.
    std::string why = e.what();
    const std::string file = " '" + (dir / "model.onnx").string() + "'";
    if (const auto at = why.find(file); at != std::string::npos) why.erase(at, file.size());
    return skip("the ONNX frontend: " + reason_of(why));
  }
  run.iterations = 1;
  run.warmup = 0;
  run.threads = 1;
  std::vector<sdk::TensorView> in, out;
  for (auto& [n, v] : fed) in.push_back({n, v.data(), v.size()});
  for (auto& [n, v] : weights)
    if (run.graph.tensors.count(n) && run.graph.tensor(n).constant) in.push_back({n, v.data(), v.size()});
  std::vector<std::vector<float>> got;
  for (const auto& e : expected) got.emplace_back(e.size());
  for (size_t i = 0; i < got.size(); ++i) out.push_back({run.graph.outputs[i], got[i].data(), got[i].size()});
  try {
    (void)run_model(run, in, out, host, kTolerance);
  } catch (const sdk::Error& e) {
    return skip(reason_of(e.what()));
  }
  ++tally.run;
  if (const RandomLaw law = random_law(name)) {
    std::vector<std::vector<float>> inputs;
    for (const auto& [n, v] : fed) inputs.push_back(v);
    if (const auto why = law(inputs, got); !why.empty()) return tally.failures.push_back(name + ": " + why);
    ++tally.passed, ++tally.random;
    return;
  }
  for (size_t i = 0; i < got.size(); ++i) {
    const auto why = compare(got[i].data(), expected[i].data(), static_cast<int64_t>(got[i].size()), kTolerance);
    if (!why.empty()) return tally.failures.push_back(name + ": output " + std::to_string(i) + ": " + why);
  }
  ++tally.passed;
  if (integers_fed) ++tally.fed;
}

// Fed as the device holds it, else with its integer inputs constant.
void run_test_as_model(const fs::path& dir, const std::shared_ptr<const HostCpu>& host, ModelTally& tally) {
  if (const auto it = kDataNotOfTheModel.find(dir.filename().string()); it != kDataNotOfTheModel.end())
    return tally.skipped[it->second].push_back(it->first);
  ModelTally fed;
  run_as_model(dir, host, fed, false);
  if (fed.run > 0 || fed.skipped.count("a sequence, map or optional value") || fed.skipped.count("no model or data set")) {
    tally.run += fed.run, tally.passed += fed.passed, tally.fed += fed.fed, tally.random += fed.random;
    tally.failures.insert(tally.failures.end(), fed.failures.begin(), fed.failures.end());
    for (auto& [why, tests] : fed.skipped) tally.skipped[why].insert(tally.skipped[why].end(), tests.begin(), tests.end());
    return;
  }
  run_as_model(dir, host, tally, true);
}

// Every test under the directories, run as models; the tally printed under `label`, each
// skip's reason with its first test (AOE_NODE_TEST_TRACE=1: every one).
ModelTally run_as_models(const std::vector<fs::path>& dirs, const std::string& label) {
  const auto host = std::make_shared<const HostCpu>(detect_host_cpu());
  spdlog::set_level(spdlog::level::err);
  ModelTally tally;
  for (const auto& dir : dirs) {
    try {
      if (std::getenv("AOE_NODE_TEST_TRACE")) std::cerr << dir.filename().string() << "\n";
      run_test_as_model(dir, host, tally);
    } catch (const std::exception& e) {  // its data, not aoe: "float data of the wrong size"
      tally.skipped[std::string("test data: ") + e.what()].push_back(dir.filename().string());
    }
  }
  int skipped = 0;
  for (const auto& [why, tests] : tally.skipped) skipped += static_cast<int>(tests.size());
  std::cout << label << ": " << dirs.size() << " found, " << tally.run << " run, " << tally.passed << " passed ("
            << tally.fed << " with integer or bool inputs fed, " << tally.random << " by the law of their random draws), "
            << tally.failures.size() << " failed, " << skipped << " skipped\n";
  std::vector<std::pair<size_t, std::string>> by_count;
  for (const auto& [why, tests] : tally.skipped) by_count.emplace_back(tests.size(), why);
  std::sort(by_count.rbegin(), by_count.rend());
  for (const auto& [n, why] : by_count) {
    const auto& tests = tally.skipped.at(why);
    std::cout << "  skipped " << n << ": " << why << " (" << tests.front() << (n > 1 ? ", ...)" : ")") << "\n";
    if (std::getenv("AOE_NODE_TEST_TRACE")) for (const auto& t : tests) std::cout << "      " << t << "\n";
  }
  for (const auto& f : tally.failures) ADD_FAILURE() << f;
  return tally;
}

TEST(OnnxNodeTests, EveryTestRunsAsAModel) {
  const fs::path root = data_dir();
  if (!fs::is_directory(root))
    GTEST_SKIP() << "ONNX node tests not found at " << root << ": install libonnx-testdata (tools/install-deps.sh)";
  const ModelTally tally = run_as_models(test_dirs(root), "ONNX node tests as models");
  // The coverage reached: a change that loses a test fails here.
  EXPECT_GE(tally.passed, 889) << "fewer node tests pass as models than before";
  EXPECT_GE(tally.random, 10) << "fewer node tests of random draws pass by their law";
  EXPECT_GE(tally.fed, 238) << "fewer node tests pass with their integer and bool inputs fed";
}

// The package's real exports beside the node tests: PyTorch's nn modules
// (pytorch-converted) and tensor operators (pytorch-operator), exported by an
// early PyTorch with the weights listed among the inputs, and small graphs
// (simple), each with its inputs and outputs.
TEST(OnnxNodeTests, PyTorchsExportsRunAsModels) {
  const fs::path data = data_dir().parent_path();
  std::vector<fs::path> dirs;
  for (const char* set : {"pytorch-converted", "pytorch-operator", "simple"})
    if (fs::is_directory(data / set))
      for (const auto& dir : test_dirs(data / set)) dirs.push_back(dir);
  if (dirs.empty()) GTEST_SKIP() << "ONNX's PyTorch exports not found under " << data << ": install libonnx-testdata";
  const ModelTally tally = run_as_models(dirs, "ONNX's PyTorch exports and simple models as models");
  EXPECT_GE(tally.passed, 131) << "fewer of PyTorch's exports pass than before";
}

}  // namespace
}  // namespace aoe::cpu
