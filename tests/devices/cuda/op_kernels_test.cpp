// The op kernels of a model run (op_kernel.h) without a GPU: every case's
// sources compiled to PTX by clang, and run on CPU threads
// (cuda_on_cpu_prelude.h, op_on_cpu_main.cpp) under the address and
// undefined-behaviour sanitizers against the cpu device's reference
// kernel for the same node; the ops no kernel computes refused by name.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "attention_kernel.h"
#include "conv_tiling.h"
#include "cpu_op.h"
#include "evaluate.h"
#include "host_cpu.h"
#include "op_cases.h"
#include "op_kernel.h"
#include "op_source.h"

namespace aoe::cuda {
namespace {

namespace fs = std::filesystem;

const fs::path kWork = fs::path(AOE_OP_KERNELS_DIR);
const fs::path kTests = fs::path(AOE_CLANG_CUDA_PRELUDE).parent_path();

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool run(const std::string& command) { return std::system(command.c_str()) == 0; }

// Every kernel takes x0..x7 whether it reads them or not: unused parameters are no warning here.
std::string ptx_command(const fs::path& source, const fs::path& ptx, const fs::path& log) {
  return std::string(AOE_CUDA_CLANG) + " -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudainc -nocudalib" +
         " -Wno-unknown-cuda-version -Wall -Wextra -Wno-unused-parameter -O3 -include " + AOE_CLANG_CUDA_PRELUDE + " -S -o " + ptx.string() + " " +
         source.string() + " > " + log.string() + " 2>&1";
}

const std::string kHostFlags = " -std=c++20 -O0 -pthread -fno-strict-aliasing -fsanitize=address,undefined -fno-sanitize-recover=all";

// The prelude and the standard headers it includes, parsed once for every kernel's build.
const fs::path kPreludePch = kWork / "cuda_on_cpu_prelude.pch";

std::string pch_command() {
  return std::string(AOE_CUDA_CLANG) + kHostFlags + " -x c++-header " + (kTests / "cuda_on_cpu_prelude.h").string() + " -o " +
         kPreludePch.string() + " > " + (kWork / "pch.log").string() + " 2>&1";
}

std::string host_command(const fs::path& source, const LaunchGeometry& g, const fs::path& exe, const fs::path& log) {
  std::string defines;
  const char* axis = "XYZ";
  for (int d = 0; d < 3; ++d)
    defines += std::string(" -DGRID_") + axis[d] + "=" + std::to_string(g.grid[d]) + " -DBLOCK_" + axis[d] + "=" + std::to_string(g.block[d]);
  return std::string(AOE_CUDA_CLANG) + kHostFlags + " -include-pch " + kPreludePch.string() + " -I" + kTests.string() + " -DAOE_OP_SOURCE='\"" + source.string() + "\"'" + defines +
         " " + (kTests / "op_on_cpu_main.cpp").string() + " -o " + exe.string() + " > " + log.string() + " 2>&1";
}

// Empty where clang compiles CUDA to PTX and C++20 threads with the sanitizers here, else why not.
std::string clang_missing() {
  if (std::string(AOE_CUDA_CLANG).empty()) return "clang++ (16 or later) was not found when the build was configured";
  fs::create_directories(kWork);
  const fs::path probe = kWork / "probe.cu";
  std::ofstream(probe) << "extern \"C\" __global__ void probe(float* x) { x[threadIdx.x] = 1.0f; }\n";
  if (!run(ptx_command(probe, kWork / "probe.ptx", kWork / "probe.log")))
    return "clang cannot compile CUDA to PTX here (no NVPTX target?): " + read(kWork / "probe.log");
  const fs::path threads = kWork / "threads.cpp";
  std::ofstream(threads) << "#include <barrier>\nint main() { std::barrier<> b(1); b.arrive_and_wait(); }\n";
  if (!run(std::string(AOE_CUDA_CLANG) + kHostFlags + " " + threads.string() + " -o " + (kWork / "threads").string() + " > " +
           (kWork / "threads.log").string() + " 2>&1"))
    return "clang cannot build C++20 threads with the sanitizers here: " + read(kWork / "threads.log");
  return {};
}

struct CaseKernels {
  OpCase c;
  std::vector<OpKernel> kernels;
};

std::vector<CaseKernels> all_kernels() {
  std::vector<CaseKernels> out;
  for (auto& c : op_cases()) {
    auto kernels = op_kernels(c.graph, c.graph.nodes[0], GpuLimits{});
    out.push_back({std::move(c), std::move(kernels)});
  }
  return out;
}

// Runs `jobs` two at a time: the shared machine has few cores.
std::vector<bool> run_all(const std::vector<std::string>& jobs) {
  std::vector<bool> ok(jobs.size());
  for (size_t i = 0; i < jobs.size(); i += 2) {
    auto second = i + 1 < jobs.size() ? std::async(std::launch::async, run, jobs[i + 1]) : std::future<bool>();
    ok[i] = run(jobs[i]);
    if (second.valid()) ok[i + 1] = second.get();
  }
  return ok;
}

TEST(OpKernels, EverySourceCompilesToPtx) {
  if (const auto why = clang_missing(); !why.empty()) GTEST_SKIP() << why;
  const auto cases = all_kernels();
  std::vector<std::string> jobs, names;
  for (const auto& ck : cases)
    for (size_t k = 0; k < ck.kernels.size(); ++k) {
      const std::string name = ck.c.name + "_" + std::to_string(k);
      std::ofstream(kWork / (name + ".cu")) << ck.kernels[k].source;
      jobs.push_back(ptx_command(kWork / (name + ".cu"), kWork / (name + ".ptx"), kWork / (name + ".ptx.log")));
      names.push_back(name);
    }
  const auto ok = run_all(jobs);
  for (size_t i = 0; i < jobs.size(); ++i) {
    SCOPED_TRACE(names[i]);
    ASSERT_TRUE(ok[i]) << read(kWork / (names[i] + ".ptx.log"));
    EXPECT_EQ(read(kWork / (names[i] + ".ptx.log")), "") << "clang warns";
    const std::string ptx = read(kWork / (names[i] + ".ptx"));
    EXPECT_NE(ptx.find(".entry aoe_op("), std::string::npos);
    EXPECT_EQ(ptx.find(".local"), std::string::npos) << "an array spilled to local memory";
  }
}

// BERT-base's attention core as PyTorch exports it: q, k and v [1,128,12,64]
// Transposed to put heads first, the scores scaled by a scalar and masked
// by [1,1,1,128], the context Transposed back.
sdk::Graph bert_attention() {
  sdk::Graph g;
  g.name = "attention";
  g.opset = 17;
  const auto tensor = [&](const std::string& name, std::vector<int64_t> shape, bool input = false) {
    g.tensors[name] = {name, std::move(shape), sdk::DType::f32};
    if (input) g.inputs.push_back(name);
  };
  const auto node = [&](const std::string& op, std::vector<std::string> in, const std::string& out, nlohmann::json attrs = {}) {
    sdk::Node n;
    n.name = op + "_" + out;
    n.op_type = op;
    n.inputs = std::move(in);
    n.outputs = {out};
    n.attrs = attrs.is_null() ? nlohmann::json::object() : std::move(attrs);
    g.nodes.push_back(std::move(n));
  };
  for (const char* name : {"q", "k", "v"}) tensor(name, {1, 128, 12, 64}, true);
  tensor("mask", {1, 1, 1, 128}, true);
  tensor("eight", {});
  g.tensors["eight"].constant = true;
  tensor("qt", {1, 12, 128, 64});
  tensor("kt", {1, 12, 64, 128});
  tensor("vt", {1, 12, 128, 64});
  for (const char* name : {"s", "d", "a", "p"}) tensor(name, {1, 12, 128, 128});
  tensor("c", {1, 12, 128, 64});
  tensor("y", {1, 128, 12, 64});
  g.outputs = {"y"};
  node("Transpose", {"q"}, "qt", {{"perm", {0, 2, 1, 3}}});
  node("Transpose", {"k"}, "kt", {{"perm", {0, 2, 3, 1}}});
  node("Transpose", {"v"}, "vt", {{"perm", {0, 2, 1, 3}}});
  node("MatMul", {"qt", "kt"}, "s");
  node("Div", {"s", "eight"}, "d");
  node("Add", {"d", "mask"}, "a");
  node("Softmax", {"a"}, "p", {{"axis", -1}});
  node("MatMul", {"p", "vt"}, "c");
  node("Transpose", {"c"}, "y", {{"perm", {0, 2, 1, 3}}});
  return g;
}

TEST(OpKernels, TheAttentionKernelCompilesToPtx) {
  if (const auto why = clang_missing(); !why.empty()) GTEST_SKIP() << why;
  const sdk::Graph g = bert_attention();
  const auto patterns = cpu::find_attention(g);
  ASSERT_EQ(patterns.size(), 1u);
  GpuLimits h100;
  h100.multiprocessors = 132;
  const auto a = attention_kernel(g, patterns[0], h100, [](const std::string&) { return std::optional<double>(8.0); });
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->nodes.size(), 9u);  // every node of the graph
  EXPECT_EQ(a->reads, (std::vector<std::string>{"q", "k", "v", "mask"}));
  EXPECT_EQ(a->writes, "y");
  EXPECT_NE(a->kernel.source.find("#define ROWS 4\n"), std::string::npos) << "12 x 32 blocks fill 132 multiprocessors twice";
  std::ofstream(kWork / "attention.cu") << a->kernel.source;
  ASSERT_TRUE(run(ptx_command(kWork / "attention.cu", kWork / "attention.ptx", kWork / "attention.ptx.log")))
      << read(kWork / "attention.ptx.log");
  EXPECT_EQ(read(kWork / "attention.ptx.log"), "") << "clang warns";
  const std::string ptx = read(kWork / "attention.ptx");
  EXPECT_NE(ptx.find(".entry aoe_op("), std::string::npos);
  EXPECT_EQ(ptx.find(".local"), std::string::npos) << "an array spilled to local memory";
}

sdk::OpTask task_of(const sdk::Graph& g) {
  const sdk::Node& node = g.nodes[0];
  sdk::OpTask t;
  t.name = node.name;
  t.op_type = node.op_type;
  t.attrs = node.attrs;
  for (const auto& in : node.inputs) t.inputs.push_back(g.tensor(in));
  for (const auto& out : node.outputs) t.outputs.push_back(g.tensor(out));
  return t;
}

void write_floats(const fs::path& path, const std::vector<float>& values) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(float)));
}

std::vector<float> read_floats(const fs::path& path) {
  const std::string bytes = read(path);
  std::vector<float> out(bytes.size() / sizeof(float));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(float));
  return out;
}

// Sum, Mean, Max and Min of more than two inputs, which the cpu device
// takes two at a time: a reference of the test's own, in double precision.
bool is_variadic(const std::string& op) { return op == "Sum" || op == "Mean" || op == "Max" || op == "Min"; }

cpu::TaskData variadic_data(const sdk::Graph& g) {
  const sdk::Node& node = g.nodes[0];
  cpu::TaskData d;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<std::vector<int64_t>> shapes;
  for (const auto& in : node.inputs) {
    shapes.push_back(g.tensor(in).shape);
    d.inputs.emplace_back(static_cast<size_t>(g.tensor(in).elements()));
    for (auto& v : d.inputs.back()) v = dist(rng);
  }
  const auto out = g.tensor(node.outputs[0]).shape;
  d.expected.emplace_back(static_cast<size_t>(g.tensor(node.outputs[0]).elements()));
  for (size_t e = 0; e < d.expected[0].size(); ++e) {
    double acc = 0;
    for (size_t i = 0; i < shapes.size(); ++i) {
      // The element of input i that output element e reads: numpy's broadcast.
      int64_t rest = static_cast<int64_t>(e), at = 0, stride = 1;
      const size_t lead = out.size() - shapes[i].size();
      for (size_t dd = out.size(); dd-- > 0;) {
        const int64_t c = rest % out[dd];
        rest /= out[dd];
        if (dd < lead) continue;
        const int64_t extent = shapes[i][dd - lead];
        at += (extent == 1 ? 0 : c) * stride;
        stride *= extent;
      }
      const double v = d.inputs[i][static_cast<size_t>(at)];
      acc = i == 0 ? v : node.op_type == "Max" ? std::max(acc, v) : node.op_type == "Min" ? std::min(acc, v) : acc + v;
    }
    d.expected[0][e] = static_cast<float>(node.op_type == "Mean" ? acc / static_cast<double>(shapes.size()) : acc);
  }
  return d;
}

// Clip with its bounds as inputs, read as the model runs; the cpu device
// takes bounds from attributes alone.
cpu::TaskData clip_data(const sdk::Graph& g) {
  cpu::TaskData d;
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> dist(-1, 1);
  d.inputs = {std::vector<float>(static_cast<size_t>(g.tensor(g.nodes[0].inputs[0]).elements())), {-0.5f}, {0.25f}};
  for (auto& v : d.inputs[0]) v = dist(rng);
  d.expected.emplace_back();
  for (const float v : d.inputs[0]) d.expected[0].push_back(std::min(std::max(v, -0.5f), 0.25f));
  return d;
}

// Runs the kernels of one case from their builds (`built` from `job` on) and compares y with the reference.
void check_case(const CaseKernels& ck, const std::vector<bool>& built, size_t job) {
  static const cpu::HostCpu host = cpu::detect_host_cpu();
  cpu::TaskData data;
  const sdk::Node& node = ck.c.graph.nodes[0];
  if (is_variadic(node.op_type) && node.inputs.size() > 2) {
    data = variadic_data(ck.c.graph);
  } else if (node.op_type == "Clip" && node.inputs.size() == 3) {
    data = clip_data(ck.c.graph);
  } else {
    std::unique_ptr<cpu::CpuOp> reference;
    try {
      reference = cpu::make_op(task_of(ck.c.graph), host);
    } catch (const std::exception& e) {
      FAIL() << "the cpu device has no reference: " << e.what();
    }
    data = cpu::make_task_data(*reference, 11);
  }
  std::vector<std::vector<float>> got;
  for (const auto& want : data.expected) got.emplace_back(want.size(), NAN);
  for (size_t k = 0; k < ck.kernels.size(); ++k, ++job) {
    const OpKernel& kernel = ck.kernels[k];
    const fs::path base = kWork / (ck.c.name + "_" + std::to_string(k));
    ASSERT_TRUE(built[job]) << read(fs::path(base).replace_extension(".build.log"));
    std::string args;
    for (int i = 0; i < kOpKernelInputs; ++i) {
      if (i >= static_cast<int>(kernel.inputs.size())) {
        args += " -";
        continue;
      }
      const fs::path in = base.string() + ".x" + std::to_string(i);
      write_floats(in, data.inputs.at(static_cast<size_t>(kernel.inputs[static_cast<size_t>(i)])));
      args += " " + in.string();
    }
    const fs::path y = base.string() + ".y", log = base.string() + ".run.log";
    write_floats(y, got.at(static_cast<size_t>(kernel.output)));
    // A barrier some thread never reaches would hang: bounded.
    ASSERT_TRUE(run("timeout 120 " + fs::path(base).replace_extension(".exe").string() + args + " " + y.string() + " > " + log.string() + " 2>&1"))
        << read(log);
    got[static_cast<size_t>(kernel.output)] = read_floats(y);
  }
  for (size_t o = 0; o < data.expected.size(); ++o) {
    ASSERT_EQ(got[o].size(), data.expected[o].size());
    for (size_t i = 0; i < got[o].size(); ++i) {
      const double g = got[o][i], w = data.expected[o][i];
      if (std::isnan(w) && std::isnan(g)) continue;
      ASSERT_TRUE(std::abs(g - w) <= 1e-5 + 1e-4 * std::abs(w) || g == w) << "output " << o << " element " << i << " is " << g << ", expected " << w;
    }
  }
}

TEST(OpKernels, EveryKernelMatchesTheCpuReferenceOnCpuThreads) {
  if (const auto why = clang_missing(); !why.empty()) GTEST_SKIP() << why;
  const auto cases = all_kernels();
  std::vector<std::string> jobs;
  for (const auto& ck : cases)
    for (size_t k = 0; k < ck.kernels.size(); ++k) {
      const fs::path base = kWork / (ck.c.name + "_" + std::to_string(k));
      const fs::path source = fs::path(base).replace_extension(".cu.h"), exe = fs::path(base).replace_extension(".exe");
      // A build from an earlier run of the same source stands.
      if (fs::exists(exe) && read(source) == ck.kernels[k].source) {
        jobs.push_back("true");
        continue;
      }
      fs::remove(exe);
      std::ofstream(source) << ck.kernels[k].source;
      jobs.push_back(host_command(fs::path(base).replace_extension(".cu.h"), ck.kernels[k].launch, fs::path(base).replace_extension(".exe"),
                                  fs::path(base).replace_extension(".build.log")));
    }
  ASSERT_TRUE(run(pch_command())) << read(kWork / "pch.log");
  const auto built = run_all(jobs);
  size_t job = 0;
  for (const auto& ck : cases) {
    SCOPED_TRACE(ck.c.name);
    check_case(ck, built, job);
    job += ck.kernels.size();
  }
}
sdk::Graph graph_of(const std::string& op, nlohmann::json attrs = nlohmann::json::object()) {
  sdk::Graph g;
  g.tensors["x"] = {"x", {2, 3, 4, 5}};
  g.tensors["w"] = {"w", {4, 3, 1, 1, 1}};
  g.tensors["y"] = {"y", {2, 3, 4, 5}};
  g.nodes.push_back({"the_node", op, {"x", "w"}, {"y"}, std::move(attrs)});
  return g;
}

std::string refusal(const sdk::Graph& g) {
  try {
    op_kernels(g, g.nodes[0], GpuLimits{});
  } catch (const sdk::Error& e) {
    return e.what();
  }
  return "";
}

TEST(OpKernels, WhatNoKernelComputesIsRefusedNamingTheNodeAndOp) {
  EXPECT_NE(refusal(graph_of("NonMaxSuppression")).find("NonMaxSuppression 'the_node': no cuda kernel"), std::string::npos);
  EXPECT_NE(refusal(graph_of("Pad", {{"pads", {0, 0, 0, 0, 0, 0, 0, 0}}, {"mode", "wrap"}})).find("mode \"wrap\""), std::string::npos);
  EXPECT_NE(refusal(graph_of("Gelu", {{"approximate", "fast"}})).find("approximate"), std::string::npos);
  EXPECT_NE(refusal(graph_of("Conv")).find("Conv 'the_node': weights of [4,3,1,1,1]"), std::string::npos);
  EXPECT_NE(refusal(graph_of("Slice")).find("starts and ends must be constants"), std::string::npos);
  EXPECT_NE(refusal(graph_of("Reshape")).find("view"), std::string::npos);
  EXPECT_NE(refusal(graph_of("Resize", {{"mode", "cubic"}})).find("Resize 'the_node': mode cubic"), std::string::npos);
  EXPECT_NE(refusal(graph_of("ReduceMean")).find("axes must be a constant"), std::string::npos);
  EXPECT_NE(refusal(graph_of("LayerNormalization", {{"stash_type", 0}})).find("stash_type"), std::string::npos);
  EXPECT_NE(refusal(graph_of("Softmax", {{"axis", 4}})).find("'axis' 4 is out of range for rank 4"), std::string::npos);
  for (const auto& [attrs, why] : std::vector<std::pair<nlohmann::json, std::string>>{
           {{{"output_shape", {1, 2, 3}}}, "output_shape lists 3 dims for 2 spatial dims"},
           {{{"strides", {2, 2}}}, "output dim 2 is 4, its attributes give 7"},
           {{{"strides", {2, 2}}, {"output_padding", {2, 0}}}, "output_padding must be >= 0 and below the stride"}}) {
    sdk::Graph up = graph_of("ConvTranspose", attrs);
    up.tensors["w"].shape = {3, 2, 1, 1};
    up.tensors["y"].shape = {2, 2, 4, 5};
    EXPECT_NE(refusal(up).find("ConvTranspose 'the_node': " + why), std::string::npos) << refusal(up);
  }
  sdk::Graph half = graph_of("Relu");
  half.tensors["y"].dtype = sdk::DType::f16;
  EXPECT_NE(refusal(half).find("output of float16"), std::string::npos);
}

TEST(OpKernels, AnEmptyOutputNeedsNoKernel) {
  sdk::Graph g = graph_of("Softmax");
  g.tensors["x"].shape = g.tensors["y"].shape = {2, 0, 3};
  EXPECT_TRUE(op_kernels(g, g.nodes[0], GpuLimits{}).empty());
}

// THREADS 256, or whole warps covering a smaller tensor; ITEMS 4 where two blocks a multiprocessor remain.
TEST(OpKernels, DefaultKnobsFollowTheirRule) {
  GpuLimits h100;
  h100.multiprocessors = 132;
  EXPECT_EQ(linear_knobs(100, h100).threads, 128);
  EXPECT_EQ(linear_knobs(100, h100).items, 1);
  EXPECT_EQ(linear_knobs(1 << 20, h100).threads, 256);
  EXPECT_EQ(linear_knobs(1 << 20, h100).items, 4);
  EXPECT_EQ(linear_knobs(256 * 4 * 2 * 132 - 1, h100).items, 1);
  const LaunchGeometry g = linear_launch(1000, {256, 4});
  EXPECT_EQ(g.grid[0], 1u);
  EXPECT_EQ(linear_launch(1025, {256, 4}).grid[0], 2u);
  EXPECT_EQ(reduction_threads(1, GpuLimits{}), 32);
  EXPECT_EQ(reduction_threads(70, GpuLimits{}), 128);
  EXPECT_EQ(reduction_threads(100000, GpuLimits{}), 256);
}

// The Conv's tiles: the default is a config the checks take on every shape,
// and each refusal names what the config breaks.
TEST(OpKernels, ConvTilesDefaultToAValidConfigAndRefusalsSayWhy) {
  for (const ConvGemmShape shape : {ConvGemmShape{16, 9, 16}, ConvGemmShape{64, 3136, 576}, ConvGemmShape{40, 64, 72}, ConvGemmShape{2048, 49, 4608}}) {
    const sdk::TuningSpace space = conv_space(shape);
    ASSERT_TRUE(space.in_domain(space.default_config)) << shape.m << "x" << shape.n;
    EXPECT_TRUE(conv_check(space.default_config, GpuLimits{}).ok()) << conv_check(space.default_config, GpuLimits{}).message;
  }
  EXPECT_EQ(conv_default({64, 3136, 576}), (sdk::Config{64, 64, 8, 4, 256}));
  EXPECT_EQ(conv_thread_m(conv_default({64, 3136, 576})), 4);
  EXPECT_EQ(conv_default({16, 9, 16}), (sdk::Config{16, 32, 8, 4, 128}));
  GpuLimits small;
  small.max_shared_bytes_per_block = 16 * 1024;
  const auto why = [&](sdk::Config c) { return conv_check(c, small).message; };
  EXPECT_NE(why({16, 32, 8, 8, 256}).find("whole number of filters"), std::string::npos);
  EXPECT_NE(why({128, 128, 8, 8, 64}).find("over the 64 its registers hold"), std::string::npos);
  EXPECT_NE(why({128, 128, 32, 8, 256}).find("32768 bytes of shared memory"), std::string::npos);
  EXPECT_NE(why({16, 128, 8, 1, 64}).find("do not cover"), std::string::npos);
  EXPECT_TRUE(conv_check({128, 128, 16, 8, 256}, small).ok());
}

// A Dropout is a view at inference only: not with its mask, nor with a
// training_mode fed as it runs or folded true.
TEST(OpKernels, ViewOpsAreTheShapeChangingOnes) {
  const auto node = [](std::string op, std::vector<std::string> inputs, std::vector<std::string> outputs,
                       nlohmann::json attrs = nlohmann::json::object()) {
    sdk::Node n;
    n.op_type = std::move(op), n.inputs = std::move(inputs), n.outputs = std::move(outputs), n.attrs = std::move(attrs);
    return n;
  };
  for (const char* op : {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Dropout"})
    EXPECT_TRUE(is_view(node(op, {"x"}, {"y"}))) << op;
  for (const char* op : {"Transpose", "Add", "Expand"}) EXPECT_FALSE(is_view(node(op, {"x"}, {"y"}))) << op;
  EXPECT_TRUE(is_view(node("Dropout", {"x", "r", "t"}, {"y", ""}, {{"training_mode", {0}}})));
  EXPECT_FALSE(is_view(node("Dropout", {"x"}, {"y", "mask"})));
  EXPECT_FALSE(is_view(node("Dropout", {"x", "r", "t"}, {"y"})));
  EXPECT_FALSE(is_view(node("Dropout", {"x", "r", "t"}, {"y"}, {{"training_mode", {1}}})));
}

TEST(OpKernels, SourcesIncludeNothingAndShareOneSignature) {
  for (const auto& ck : all_kernels())
    for (const auto& k : ck.kernels) {
      EXPECT_EQ(k.source.find("#include"), std::string::npos) << ck.c.name;
      EXPECT_NE(k.source.find("aoe_op(const float* __restrict__ x0, const float* __restrict__ x1, const float* __restrict__ x2, "
                              "const float* __restrict__ x3, const float* __restrict__ x4, const float* __restrict__ x5, "
                              "const float* __restrict__ x6, const float* __restrict__ x7, float* __restrict__ y)"),
                std::string::npos)
          << ck.c.name;
      EXPECT_LE(k.inputs.size(), static_cast<size_t>(kOpKernelInputs)) << ck.c.name;
    }
}

}  // namespace
}  // namespace aoe::cuda
