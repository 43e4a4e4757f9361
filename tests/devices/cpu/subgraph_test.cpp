// Subgraphs on the cpu device: the strategy space a subgraph gets, the plan
// each config lowers to, every config's output against the nodes run one by
// one, faulty candidates, and the op-level tasks a strategy leaves blocked.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <span>

#include "aoe/sdk/error.h"
#include "attention_op.h"
#include "conv_op.h"
#include "onednn_runtime.h"
#include "cpu_device.h"
#include "subgraph_op.h"
#include "subgraph_run.h"
#include "device_runs.h"
#include "tasks.h"

namespace aoe::cpu {
namespace {

using test::device;
using test::quick;
using test::with;

// A graph built node by node; tensors described as they first appear.
class GraphBuilder {
 public:
  GraphBuilder& input(const std::string& name, std::vector<int64_t> shape) {
    tensor(name, std::move(shape), false);
    g_.inputs.push_back(name);
    return *this;
  }
  GraphBuilder& constant(const std::string& name, std::vector<int64_t> shape, sdk::DType dtype = sdk::DType::f32) {
    tensor(name, std::move(shape), true);
    g_.tensors[name].dtype = dtype;
    return *this;
  }
  GraphBuilder& node(const std::string& name, const std::string& op, std::vector<std::string> inputs,
                     const std::string& output, std::vector<int64_t> shape, nlohmann::json attrs = nlohmann::json::object()) {
    tensor(output, std::move(shape), false);
    g_.nodes.push_back({name, op, std::move(inputs), {output}, std::move(attrs)});
    return *this;
  }
  // A node of several outputs, each with its shape.
  GraphBuilder& split(const std::string& name, const std::string& input,
                      const std::vector<std::pair<std::string, std::vector<int64_t>>>& outputs, nlohmann::json attrs) {
    std::vector<std::string> names;
    for (const auto& [o, shape] : outputs) tensor(o, shape, false), names.push_back(o);
    g_.nodes.push_back({name, "Split", {input}, names, std::move(attrs)});
    return *this;
  }
  GraphBuilder& output(const std::string& name) {
    g_.outputs.push_back(name);
    return *this;
  }
  sdk::SubgraphTask task(const std::string& name, nlohmann::json op_configs = nlohmann::json::object()) const {
    sdk::SubgraphTask t;
    t.name = name;
    t.graph = g_;
    t.graph.name = name;
    t.op_configs = std::move(op_configs);
    return t;
  }

 private:
  void tensor(const std::string& name, std::vector<int64_t> shape, bool constant) {
    sdk::TensorDesc t;
    t.name = name;
    t.shape = std::move(shape);
    t.format = t.shape.size() == 4 ? "NCHW" : "ND";
    t.constant = constant;
    g_.tensors[name] = t;
  }
  sdk::Graph g_;
};

const nlohmann::json kPads = {{"pads", {1, 1, 1, 1}}};

// x -> conv1 -> relu -> conv2 -> add(x): a ResNet basic block.
sdk::SubgraphTask residual(nlohmann::json op_configs = nlohmann::json::object(), int64_t n = 1) {
  return GraphBuilder()
      .input("x", {n, 32, 14, 14})
      .constant("w1", {32, 32, 3, 3})
      .constant("b1", {32})
      .constant("w2", {32, 32, 3, 3})
      .constant("b2", {32})
      .node("conv1", "Conv", {"x", "w1", "b1"}, "t1", {n, 32, 14, 14}, kPads)
      .node("relu", "Relu", {"t1"}, "t2", {n, 32, 14, 14})
      .node("conv2", "Conv", {"t2", "w2", "b2"}, "t3", {n, 32, 14, 14}, kPads)
      .node("add", "Add", {"t3", "x"}, "y", {n, 32, 14, 14})
      .output("y")
      .task("residual", std::move(op_configs));
}

// x -> matmul -> add(bias) -> gelu -> matmul: a transformer's feed-forward.
sdk::SubgraphTask feed_forward() {
  return GraphBuilder()
      .input("x", {64, 128})
      .constant("w1", {128, 256})
      .constant("b1", {256})
      .constant("w2", {256, 128})
      .node("fc1", "MatMul", {"x", "w1"}, "h1", {64, 256})
      .node("bias", "Add", {"h1", "b1"}, "h2", {64, 256})
      .node("gelu", "Gelu", {"h2"}, "h3", {64, 256})
      .node("fc2", "MatMul", {"h3", "w2"}, "y", {64, 128})
      .output("y")
      .task("feed_forward");
}

// x -> conv -> BatchNormalization -> relu -> maxpool -> flatten.
sdk::SubgraphTask conv_bn_pool() {
  return GraphBuilder()
      .input("x", {2, 16, 12, 12})
      .constant("w", {32, 16, 3, 3})
      .constant("scale", {32})
      .constant("shift", {32})
      .constant("mean", {32})
      .constant("var", {32})
      .node("conv", "Conv", {"x", "w"}, "c", {2, 32, 12, 12}, kPads)
      .node("bn", "BatchNormalization", {"c", "scale", "shift", "mean", "var"}, "n", {2, 32, 12, 12},
            {{"epsilon", 1e-3}})
      .node("relu", "Relu", {"n"}, "r", {2, 32, 12, 12})
      .node("pool", "MaxPool", {"r"}, "p", {2, 32, 6, 6}, {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}})
      .node("flat", "Flatten", {"p"}, "y", {2, 32 * 6 * 6})
      .output("y")
      .task("conv_bn_pool");
}

// Self-attention as PyTorch exports it: Q, K, V projections (or, without
// them, Q, K, V as inputs), heads split by Reshape and Transpose, scaled and
// masked scores, softmax, context merged back.
struct AttentionShape {
  int64_t seq = 24, hidden = 32, heads = 4;
  bool projections = true;
  bool probs_as_output = false;
  bool keys_in_two_steps = false;  // heads first, then K^T, as PyTorch's k.transpose(-1, -2)
  int64_t batch = 1;               // each with its own mask
};
sdk::SubgraphTask attention(const AttentionShape& a = {}) {
  const int64_t n = a.batch, seq = a.seq, hidden = a.hidden, heads = a.heads, dim = hidden / heads;
  GraphBuilder b;
  b.input("mask", {n, 1, 1, seq})
      .constant("heads_shape", {4}, sdk::DType::i64)
      .constant("hidden_shape", {3}, sdk::DType::i64)
      .constant("root", {});
  if (a.projections) b.input("x", {n, seq, hidden});
  for (const std::string p : {"q", "k", "v"}) {
    const std::vector<int64_t> perm = p == "k" ? std::vector<int64_t>{0, 2, 3, 1} : std::vector<int64_t>{0, 2, 1, 3};
    const std::vector<int64_t> shape = p == "k" ? std::vector<int64_t>{n, heads, dim, seq} : std::vector<int64_t>{n, heads, seq, dim};
    if (a.projections)
      b.constant("w" + p, {hidden, hidden})
          .constant("b" + p, {hidden})
          .node(p + "_proj", "MatMul", {"x", "w" + p}, p + "0", {n, seq, hidden})
          .node(p + "_bias", "Add", {p + "0", "b" + p}, p + "1", {n, seq, hidden});
    else
      b.input(p + "1", {n, seq, hidden});
    b.node(p + "_heads", "Reshape", {p + "1", "heads_shape"}, p + "2", {n, seq, heads, dim});
    if (p == "k" && a.keys_in_two_steps)
      b.node("k_transpose", "Transpose", {"k2"}, "k3", {n, heads, seq, dim}, {{"perm", {0, 2, 1, 3}}})
          .node("k_swap", "Transpose", {"k3"}, "k", shape, {{"perm", {0, 1, 3, 2}}});
    else
      b.node(p + "_transpose", "Transpose", {p + "2"}, p, shape, {{"perm", perm}});
  }
  b.node("scores", "MatMul", {"q", "k"}, "s0", {n, heads, seq, seq})
      .node("scale", "Div", {"s0", "root"}, "s1", {n, heads, seq, seq})
      .node("masked", "Add", {"s1", "mask"}, "s2", {n, heads, seq, seq})
      .node("softmax", "Softmax", {"s2"}, "probs", {n, heads, seq, seq}, {{"axis", -1}})
      .node("context", "MatMul", {"probs", "v"}, "c0", {n, heads, seq, dim})
      .node("merge", "Transpose", {"c0"}, "c1", {n, seq, heads, dim}, {{"perm", {0, 2, 1, 3}}})
      .node("flatten", "Reshape", {"c1", "hidden_shape"}, "y", {n, seq, hidden})
      .output("y");
  if (a.probs_as_output) b.output("probs");
  return b.task("attention");
}

std::shared_ptr<const HostCpu> host() { return std::make_shared<const HostCpu>(detect_host_cpu()); }

std::vector<std::string> knob_names(const sdk::TuningSpace& space) {
  std::vector<std::string> out;
  for (const auto& k : space.knobs) out.push_back(k.name);
  return out;
}

// The config's outputs against the reference, run once.
std::string check_outputs(const SubgraphOp& op, const sdk::Config& config, const SubgraphData& data, ThreadPool& pool) {
  SubgraphKernel kernel(op, op.lower(config), views_of(data.given));
  kernel.run(pool);
  for (size_t i = 0; i < data.expected.size(); ++i) {
    std::vector<float> got(data.expected[i].size());
    kernel.read_output(i, got.data());
    auto why = compare(got.data(), data.expected[i].data(), static_cast<int64_t>(got.size()), Tolerance{});
    if (!why.empty()) return why;
  }
  return {};
}

const PlanStep& kernel_of(const Plan& plan, const std::string& anchor) {
  for (const auto& s : plan.steps)
    if (s.kind == PlanStep::Kind::kernel && s.nodes.front() == anchor) return s;
  ADD_FAILURE() << "no kernel anchored at " << anchor;
  return plan.steps.front();
}

bool runs_blocked(const PlanStep& step) { return step.op->space().describe(step.config).at("format") == "NCHWc"; }

TEST(CpuSubgraph, NamesKnobsAsTheConventionSays) {
  const SubgraphOp block(residual(), host());
  EXPECT_EQ(knob_names(block.space()),
            (std::vector<std::string>{"fuse:relu", "fuse:add", "layout:t1", "layout:t2", "layout:t3"}));
  EXPECT_EQ(block.space().default_config, (sdk::Config{1, 1, 0, 0, 0}));
  EXPECT_EQ(block.space().knobs[2].labels, (std::vector<std::string>{"NCHW", "NCHWc"}));

  // No layouts for 2-D activations; no knob for a BatchNormalization folded into its Conv.
  const SubgraphOp ffn(feed_forward(), host());
  EXPECT_EQ(knob_names(ffn.space()), (std::vector<std::string>{"fuse:bias", "fuse:gelu"}));
  const SubgraphOp bn(conv_bn_pool(), host());
  EXPECT_EQ(knob_names(bn.space()), (std::vector<std::string>{"fuse:relu", "layout:n", "layout:r"}));
  for (const auto& name : knob_names(bn.space())) EXPECT_EQ(name.find("l2:"), std::string::npos);
}

TEST(CpuSubgraph, DefaultConfigPassesTheOutputCheck) {
  ThreadPool pool(2);
  for (const auto& task : {residual(), feed_forward(), conv_bn_pool(), residual({}, 2)}) {
    const SubgraphOp op(task, host());
    const auto data = make_subgraph_data(op, 3);
    EXPECT_EQ(check_outputs(op, op.space().default_config, data, pool), "") << task.name;
  }
}

// A tensor drawn from the seed has the same values whichever others the
// run lends; with every tensor lent, nothing is drawn.
TEST(CpuSubgraph, RandomGivenDrawsTheSameValuesWhateverIsLent) {
  const SubgraphOp op(conv_bn_pool(), host());
  const auto all = random_given(op, 7);
  ASSERT_GE(all.size(), 3u);
  const std::vector<float> zeros(1 << 20, 0.0f);
  const auto lend = [&](const std::string& name) { return std::span<const float>(zeros.data(), all.at(name).size()); };
  const std::string first = all.begin()->first, last = std::prev(all.end())->first;
  for (const auto& lent_name : {first, last}) {
    SCOPED_TRACE(lent_name);
    const auto drawn = random_given(op, 7, {{lent_name, lend(lent_name)}});
    EXPECT_EQ(drawn.size(), all.size() - 1);
    for (const auto& [name, values] : drawn) EXPECT_EQ(values, all.at(name)) << name;
  }
  GivenViews every;
  for (const auto& [name, values] : all) every.emplace(name, lend(name));
  EXPECT_TRUE(random_given(op, 7, every).empty());
}

TEST(CpuSubgraph, EveryConfigOfTheSmallSpacesPassesTheOutputCheck) {
  ThreadPool pool(2);
  const nlohmann::json tuned = {{"tile", "4x2"}, {"direct_order", "spatial_outer"}};
  for (const auto& task : {residual({{"conv2", tuned}}), feed_forward(), conv_bn_pool()}) {
    const SubgraphOp op(task, host());
    const auto data = make_subgraph_data(op, 5);
    size_t count = 0;
    sdk::for_each_config(op.space(), [&](const sdk::Config& c) {
      ++count;
      EXPECT_EQ(check_outputs(op, c, data, pool), "") << task.name << " " << op.space().describe(c).dump();
    });
    EXPECT_EQ(static_cast<double>(count), op.space().size());
  }
}

TEST(CpuSubgraph, BlockedTensorBetweenConvsNeedsNoConversion) {
  const SubgraphOp op(residual(), host());
  const auto& space = op.space();
  const Plan plain = op.lower(space.default_config);
  if (!runs_blocked(kernel_of(plain, "conv1")) || !runs_blocked(kernel_of(plain, "conv2")))
    GTEST_SKIP() << "the default convolutions run on NCHW here";
  // NCHW between them: x in, t2 out of conv1 and into conv2, y out.
  EXPECT_EQ(plain.conversions(), 4u);
  const Plan blocked = op.lower(with(space, space.default_config, "layout:t2", "NCHWc"));
  EXPECT_EQ(blocked.conversions(), 2u);
  for (const auto& s : blocked.steps)
    if (s.kind == PlanStep::Kind::convert) EXPECT_EQ(s.name.find("t2"), std::string::npos) << s.name;
  EXPECT_EQ(blocked.kernels(), plain.kernels());
  // x converts once, though conv1 and the fused Add both read it blocked.
  size_t x_conversions = 0;
  for (const auto& s : plain.steps) x_conversions += s.kind == PlanStep::Kind::convert && s.reads[0] == "x";
  EXPECT_EQ(x_conversions, 1u);
  // What operator tuning sees afterwards: the blocked tensor marked so.
  const auto& conv2 = kernel_of(blocked, "conv2");
  EXPECT_EQ(conv2.task.inputs[0].format, "NCHWc");
  EXPECT_EQ(kernel_of(blocked, "conv1").task.outputs[0].format, "NCHWc");
}

// What `aoe-host run` plans: t2 stays blocked as conv1 writes it; the
// subgraph's own input and output keep the model's layout.
TEST(CpuSubgraph, StoredAsWrittenKeepsABlockedKernelsOutputBlocked) {
  const SubgraphOp op(residual(), host());
  const auto& space = op.space();
  const Plan plain = op.lower(space.default_config);
  if (!runs_blocked(kernel_of(plain, "conv1")))
    GTEST_SKIP() << "the default convolutions run on NCHW here";
  const auto kept = op.stored_as_written(space.default_config);
  EXPECT_EQ(kept, with(space, space.default_config, "layout:t2", "NCHWc"));
  EXPECT_LT(op.lower(kept).conversions(), plain.conversions());
  ThreadPool pool(1);
  EXPECT_EQ(check_outputs(op, kept, make_subgraph_data(op, 11), pool), "");
}

// A blocked output whose channels leave padding lanes has no layout knob (it
// is not stored blocked between kernels), yet the next blocked kernel reads
// it as its writer left it: no conversion to NCHW and back.
TEST(CpuSubgraph, PaddedBlockedOutputFeedsTheNextBlockedKernelAsItIs) {
  const SubgraphOp op(GraphBuilder()
                          .input("x", {1, 20, 10, 10})
                          .constant("w1", {20, 20, 3, 3})
                          .constant("w2", {20, 20, 3, 3})
                          .node("conv1", "Conv", {"x", "w1"}, "t1", {1, 20, 10, 10}, kPads)
                          .node("relu", "Relu", {"t1"}, "t2", {1, 20, 10, 10})
                          .node("conv2", "Conv", {"t2", "w2"}, "y", {1, 20, 10, 10}, kPads)
                          .output("y")
                          .task("padded"),
                      host());
  const auto config = op.stored_as_written(op.space().default_config);
  const Plan plan = op.lower(config);
  if (!runs_blocked(kernel_of(plan, "conv1")) || !runs_blocked(kernel_of(plan, "conv2")))
    GTEST_SKIP() << "the default convolutions run on NCHW here";
  for (const auto& s : plan.steps)
    if (s.kind == PlanStep::Kind::convert) EXPECT_EQ(s.name.find("t2"), std::string::npos) << s.name;
  EXPECT_EQ(plan.conversions(), 2u);  // x in, y out
  ThreadPool pool(1);
  EXPECT_EQ(check_outputs(op, config, make_subgraph_data(op, 13), pool), "");
}

// A first layer (3 channels) run by oneDNN on the blocked layout reads the
// model's NCHW input as it is: no conversion before it, none of its 13
// padding lanes; the next convolution reads its blocked output as it is.
TEST(CpuSubgraph, AFirstLayerOnOneDnnReadsTheNchwInputAsItIs) {
  if (!onednn_built()) GTEST_SKIP() << "built without oneDNN (libdnnl-dev)";
  const nlohmann::json first = {{"algo", kOneDnnLabel}, {"format", "NCHWc"}, {"isa", isa_name(host()->best_isa())}};
  const SubgraphOp op(GraphBuilder()
                          .input("x", {2, 3, 20, 20})
                          .constant("w1", {32, 3, 3, 3})
                          .constant("b1", {32})
                          .constant("w2", {32, 32, 3, 3})
                          .node("conv1", "Conv", {"x", "w1", "b1"}, "t1", {2, 32, 10, 10},
                                {{"pads", {1, 1, 1, 1}}, {"strides", {2, 2}}})
                          .node("relu", "Relu", {"t1"}, "t2", {2, 32, 10, 10})
                          .node("conv2", "Conv", {"t2", "w2"}, "y", {2, 32, 10, 10}, kPads)
                          .output("y")
                          .task("stem", {{"conv1", first}, {"conv2", first}}),
                      host());
  const auto config = op.stored_as_written(op.space().default_config);
  const Plan plan = op.lower(config);
  const auto& conv1 = kernel_of(plan, "conv1");
  EXPECT_EQ(conv1.op->input_blocking(0), 0);
  EXPECT_GT(conv1.op->output_blocking(), 0);
  EXPECT_TRUE(conv1.op->reads_nchw_input(conv1.config));
  EXPECT_GT(kernel_of(plan, "conv2").op->input_blocking(0), 0);
  EXPECT_FALSE(kernel_of(plan, "conv2").op->reads_nchw_input(kernel_of(plan, "conv2").config)) << "32 channels fill blocks";
  EXPECT_EQ(plan.conversions(), 1u);  // y out
  for (const auto& s : plan.steps)
    if (s.kind == PlanStep::Kind::convert) EXPECT_EQ(s.reads[0].rfind("y", 0), 0u) << s.name;
  for (int threads : {1, 2}) {
    ThreadPool pool(threads);
    EXPECT_EQ(check_outputs(op, config, make_subgraph_data(op, 19), pool), "") << threads << " threads";
  }
}

// Between two blocked convolutions, a channel shuffle (Split, then Concat
// the other way round) with a per-channel scale between, and the means over
// the map all run on the blocked layout: what `aoe-host run` plans converts
// only the subgraph's input.
TEST(CpuSubgraph, OpsBetweenBlockedConvsFollowTheirLayout) {
  const SubgraphOp op(GraphBuilder()
                          .input("x", {1, 32, 14, 14})
                          .constant("w1", {32, 32, 3, 3})
                          .constant("b1", {32})
                          .constant("gate", {1, 16, 1, 1})
                          .constant("w2", {32, 32, 3, 3})
                          .constant("b2", {32})
                          .node("conv1", "Conv", {"x", "w1", "b1"}, "t1", {1, 32, 14, 14}, kPads)
                          .split("halves", "t1", {{"a", {1, 16, 14, 14}}, {"b", {1, 16, 14, 14}}}, {{"axis", 1}})
                          .node("scale", "Mul", {"a", "gate"}, "a2", {1, 16, 14, 14})
                          .node("swap", "Concat", {"b", "a2"}, "t3", {1, 32, 14, 14}, {{"axis", 1}})
                          .node("conv2", "Conv", {"t3", "w2", "b2"}, "y", {1, 32, 14, 14}, kPads)
                          .node("mean", "ReduceMean", {"y"}, "m", {1, 32}, {{"axes", {2, 3}}, {"keepdims", 0}})
                          .node("pool", "GlobalAveragePool", {"t3"}, "p", {1, 32, 1, 1})
                          .output("m")
                          .output("p")
                          .task("shuffle"),
                      host());
  const auto config = op.stored_as_written(op.space().default_config);
  const Plan plan = op.lower(config);
  if (!runs_blocked(kernel_of(plan, "conv1")) || !runs_blocked(kernel_of(plan, "conv2")))
    GTEST_SKIP() << "the default convolutions run on NCHW here";
  for (const auto& s : plan.steps)
    if (s.kind == PlanStep::Kind::convert) EXPECT_EQ(s.reads[0], "x") << s.name;
  EXPECT_EQ(plan.conversions(), 1u);
  for (const char* k : {"scale", "halves", "swap"}) EXPECT_GT(kernel_of(plan, k).op->output_blocking(), 0) << k;
  for (const char* k : {"mean", "pool"}) EXPECT_GT(kernel_of(plan, k).op->input_blocking(0), 0) << k;
  ThreadPool pool(2);
  EXPECT_EQ(check_outputs(op, config, make_subgraph_data(op, 17), pool), "");
}

// A kernel's output shares one arena with the other tensors between kernels,
// its memory reused once its last reader has run; the outputs still match.
TEST(CpuSubgraph, TensorsBetweenKernelsShareOneArenaByLifetime) {
  const SubgraphOp op(attention(), host());
  const auto& config = op.space().default_config;
  const Plan plan = op.lower(config);
  int64_t written = 0;  // every tensor a kernel writes, each in memory of its own
  for (const auto& s : plan.steps)
    if (s.kind == PlanStep::Kind::kernel)
      for (const auto& w : s.writes) written += op.graph().tensor(w).elements() * int64_t{sizeof(float)};
  const auto data = make_subgraph_data(op, 5);
  const SubgraphKernel kernel(op, plan, views_of(data.given));
  EXPECT_GT(kernel.arena_bytes(), 0);
  EXPECT_LT(kernel.arena_bytes(), written);
  ThreadPool pool(1);
  EXPECT_EQ(check_outputs(op, config, data, pool), "");
}

// The weights folded or packed at bind are named once their last reader is
// bound, and no run reads them again: overwritten, the outputs still match.
TEST(CpuSubgraph, NamesTheWeightsNoKernelReadsOnceBound) {
  const SubgraphOp op(conv_bn_pool(), host());
  auto data = make_subgraph_data(op, 9);
  std::vector<std::string> unread;
  SubgraphKernel kernel(op, op.lower(op.space().default_config), views_of(data.given),
                        [&](const std::string& name) { unread.push_back(name); });
  std::sort(unread.begin(), unread.end());
  EXPECT_EQ(unread, (std::vector<std::string>{"mean", "scale", "shift", "var", "w"}));
  for (const auto& name : unread) std::fill(data.given[name].begin(), data.given[name].end(), std::nanf(""));
  ThreadPool pool(1);
  kernel.run(pool);
  std::vector<float> got(data.expected[0].size());
  kernel.read_output(0, got.data());
  EXPECT_EQ(compare(got.data(), data.expected[0].data(), static_cast<int64_t>(got.size()), Tolerance{}), "");
}

// A Conv with a BatchNormalization folded into it holds the memory the same
// Conv holds with weights already folded: folded weights its kernel copied
// as it bound (reordered into blocks, or into oneDNN's layout) are freed,
// the ones it reads at run (NCHW GEMM) kept.
TEST(CpuSubgraph, KeepsFoldedWeightsOnlyWhereTheKernelReadsThem) {
  auto conv = [](bool batch_norm, const nlohmann::json& config) {
    GraphBuilder b;
    b.input("x", {1, 12, 10, 10}).constant("w", {40, 12, 3, 3}).constant("b", {40});
    if (batch_norm) {
      for (const char* c : {"scale", "shift", "mean", "var"}) b.constant(c, {40});
      b.node("conv", "Conv", {"x", "w"}, "c", {1, 40, 10, 10}, kPads)
          .node("bn", "BatchNormalization", {"c", "scale", "shift", "mean", "var"}, "y", {1, 40, 10, 10});
    } else {
      b.node("conv", "Conv", {"x", "w", "b"}, "y", {1, 40, 10, 10}, kPads);
    }
    return b.output("y").task("conv", {{"conv", config}});
  };
  std::vector<nlohmann::json> configs = {{{"format", "NCHW"}, {"algo", "gemm"}},
                                         {{"format", "NCHWc"}, {"algo", "direct"}}};
  if (onednn_built()) configs.push_back({{"format", "NCHWc"}, {"algo", kOneDnnLabel}});
  for (const auto& config : configs) {
    int64_t bytes[2] = {0, 0};
    for (bool batch_norm : {false, true}) {
      const SubgraphOp op(conv(batch_norm, config), host());
      const auto strategy = op.stored_as_written(op.space().default_config);
      const Plan plan = op.lower(strategy);
      const auto& step = kernel_of(plan, "conv");
      ASSERT_EQ(step.op->space().describe(step.config).at("algo"), config.at("algo"));
      const auto data = make_subgraph_data(op, 23);
      const SubgraphKernel kernel(op, plan, views_of(data.given));
      bytes[batch_norm] = footprint_bytes(kernel.footprint());
      ThreadPool pool(1);
      EXPECT_EQ(check_outputs(op, strategy, data, pool), "") << config.dump();
    }
    EXPECT_EQ(bytes[1], bytes[0]) << config.dump();
  }
}

TEST(CpuSubgraph, UnfusingAddsAKernel) {
  const SubgraphOp block(residual(), host());
  const auto& s = block.space();
  EXPECT_EQ(block.lower(s.default_config).kernels(), 2u);
  EXPECT_EQ(block.lower(with(s, s.default_config, "fuse:relu", 0)).kernels(), 3u);
  EXPECT_EQ(block.lower(with(s, with(s, s.default_config, "fuse:relu", 0), "fuse:add", 0)).kernels(), 4u);

  const SubgraphOp ffn(feed_forward(), host());
  const auto& f = ffn.space();
  EXPECT_EQ(ffn.lower(f.default_config).kernels(), 2u);
  // The bias Add on its own anchors a chain of its own: Gelu joins it.
  const Plan split = ffn.lower(with(f, f.default_config, "fuse:bias", 0));
  EXPECT_EQ(split.kernels(), 3u);
  EXPECT_EQ(kernel_of(split, "bias").nodes, (std::vector<std::string>{"bias", "gelu"}));
  EXPECT_EQ(ffn.lower(with(f, with(f, f.default_config, "fuse:bias", 0), "fuse:gelu", 0)).kernels(), 4u);
}

TEST(CpuSubgraph, AttentionCoreRunsAsOneKernelWhenChosen) {
  const SubgraphOp op(attention(), host());
  const auto& s = op.space();
  const auto names = knob_names(s);
  ASSERT_NE(std::find(names.begin(), names.end(), "fuse:softmax"), names.end());
  // Off by default: the default strategy runs the ops one by one, as operator tuning sees them.
  EXPECT_EQ(s.default_config[static_cast<size_t>(std::find(names.begin(), names.end(), "fuse:softmax") - names.begin())], 0);
  EXPECT_EQ(op.lower(s.default_config).kernels(), 10u);  // 3 projections, 4 Transposes, scores, softmax, context

  const Plan fused = op.lower(with(s, s.default_config, "fuse:softmax", 1));
  ASSERT_EQ(fused.kernels(), 4u);
  const auto& core = kernel_of(fused, "scores");
  EXPECT_EQ(core.nodes, (std::vector<std::string>{"scores", "scale", "masked", "softmax", "context", "q_transpose",
                                                  "k_transpose", "v_transpose", "merge"}));
  // It reads the projections through their views and writes where the merge Transpose did.
  EXPECT_EQ(core.reads, (std::vector<std::string>{"q2", "k2", "v2", "root", "mask"}));
  EXPECT_EQ(core.writes, (std::vector<std::string>{"c1"}));

  // Keys through two Transposes: both fold into how K is read.
  const auto two_steps = find_attention(attention({24, 32, 4, true, false, true}).graph);
  ASSERT_EQ(two_steps.size(), 1u);
  const auto& nodes = two_steps[0].nodes;
  EXPECT_NE(std::find(nodes.begin(), nodes.end(), "k_swap"), nodes.end());
  EXPECT_NE(std::find(nodes.begin(), nodes.end(), "k_transpose"), nodes.end());
  EXPECT_EQ(two_steps[0].k.tensor, "k2");
}

TEST(CpuSubgraph, AttentionCoreMatchesTheNodesRunOneByOne) {
  ThreadPool pool(2);
  // Q, K and V from the projections, and as the subgraph's own inputs, a batch of 3; heads of 8 and of 5.
  for (const auto& shape : {AttentionShape{}, AttentionShape{20, 30, 6, false, false, true, 3}}) {
    const SubgraphOp whole(attention(shape), host());
    const auto data = make_subgraph_data(whole, 7);
    size_t fused = 0;
    sdk::for_each_config(whole.space(), [&](const sdk::Config& c) {
      const auto d = sdk::SubgraphDecisions::of(whole.space(), c);
      fused += d.unfused.count("softmax") ? 0 : 1;
      EXPECT_EQ(check_outputs(whole, c, data, pool), "") << whole.space().describe(c).dump();
    });
    EXPECT_GT(fused, 0u);
  }
  const SubgraphOp op(attention(), host());

  // The kernel's own settings, against its own reference.
  const auto patterns = find_attention(op.graph());
  ASSERT_EQ(patterns.size(), 1u);
  const AttentionOp core(patterns[0], op.graph(), test::host());
  auto configs = test::sample_configs(core, 8);
  configs.push_back(with(core.space(), core.space().default_config, "rows", 8));
  configs.push_back(with(core.space(), core.space().default_config, "pack_v", "none"));
  test::expect_matches_reference(core, configs, pool);
}

// BERT-base's attention with the probabilities and the merged context as
// outputs, as a training step's forward leaves them for its backward. The
// projections' weights are drawn as a Linear layer's are initialised, over
// +-1/sqrt(fan-in): drawn over +-1 the scores reach thousands, the softmax
// is a one-hot that the float32 rounding of a score moves, and the context
// (probabilities times values of ~40) differs from the reference by more
// than any float32 kernel can keep to.
TEST(CpuSubgraph, AttentionContextAsAnOutputMatchesAtBertBaseSize) {
  const SubgraphOp op(attention({128, 768, 12, true, true, false}), host());
  const float bound = 1.0f / std::sqrt(768.0f);
  for (const char* w : {"wq", "wk", "wv"}) {
    EXPECT_FLOAT_EQ(op.given().at(w).lo, -bound) << w;
    EXPECT_FLOAT_EQ(op.given().at(w).hi, bound) << w;
  }
  EXPECT_FLOAT_EQ(op.given().at("bq").hi, 1.0f);  // biases and inputs as before
  EXPECT_FLOAT_EQ(op.given().at("x").hi, 1.0f);
  ThreadPool pool(1);
  EXPECT_EQ(check_outputs(op, op.space().default_config, make_subgraph_data(op, 1), pool), "");
}

TEST(CpuSubgraph, AttentionBlocksOfScoresFitInL2) {
  const auto bert = attention({128, 768, 12, true, false, false});
  const AttentionOp whole_heads(find_attention(bert.graph).at(0), bert.graph, test::host());
  EXPECT_EQ(test::knob(whole_heads.space(), whole_heads.space().default_config, "rows"), 128);

  const auto long_rows = attention({8192, 32, 4, false, false, false});
  const AttentionOp blocked(find_attention(long_rows.graph).at(0), long_rows.graph, test::host());
  const int64_t rows = test::knob(blocked.space(), blocked.space().default_config, "rows");
  EXPECT_LT(rows, 8192);
  EXPECT_TRUE(rows * 8192 * 4 <= test::host().l2_bytes() / 2 || rows == blocked.space().knobs[AttentionOp::kRows].values.front())
      << rows;
}

TEST(CpuSubgraph, AttentionWhoseScoresAreReadElsewhereIsNotFused) {
  const SubgraphOp op(attention({24, 32, 4, true, true, false}), host());
  const auto names = knob_names(op.space());
  EXPECT_EQ(std::find(names.begin(), names.end(), "fuse:softmax"), names.end());
  auto other_axis = attention();
  for (auto& n : other_axis.graph.nodes)
    if (n.name == "softmax") n.attrs["axis"] = 2;
  EXPECT_TRUE(find_attention(other_axis.graph).empty());
  // No heads at all: the ops run it, one by one.
  const auto empty = attention({24, 32, 4, true, false, false, 0});
  EXPECT_THROW(AttentionOp(find_attention(empty.graph).at(0), empty.graph, test::host()), sdk::Error);
  const SubgraphOp op_empty(empty, host());
  const auto empty_names = knob_names(op_empty.space());
  EXPECT_EQ(std::find(empty_names.begin(), empty_names.end(), "fuse:softmax"), empty_names.end());
  // Scores times themselves: the chain's operand is made inside the kernel.
  auto squared = attention();
  for (auto& n : squared.graph.nodes)
    if (n.name == "masked") n = {"masked", "Mul", {"s1", "s1"}, {"s2"}, nlohmann::json::object()};
  EXPECT_TRUE(find_attention(squared.graph).empty());
  ThreadPool pool(1);
  const SubgraphOp op_squared(squared, host());
  EXPECT_EQ(check_outputs(op_squared, op_squared.space().default_config, make_subgraph_data(op_squared, 3), pool), "");
}

TEST(CpuSubgraph, TunedTilingAppliesTheBanksConfig) {
  const nlohmann::json tuned = {{"tile", "4x1"}, {"direct_order", "spatial_outer"}, {"threads", 1}};
  const SubgraphOp op(residual({{"conv1", tuned}}), host());
  const auto& space = op.space();
  EXPECT_EQ(knob_names(space).back(), "tiling:conv1");
  EXPECT_EQ(space.knobs.back().labels, (std::vector<std::string>{"default", "tuned"}));
  EXPECT_EQ(space.default_config.back(), 1);  // tuned when the bank has it
  const Plan plan = op.lower(space.default_config);
  const auto& k = kernel_of(plan, "conv1");
  const auto got = k.op->space().describe(k.config);
  for (const auto& [knob, value] : tuned.items()) EXPECT_EQ(got.at(knob), value) << knob;
  const Plan untuned = op.lower(with(space, space.default_config, "tiling:conv1", "default"));
  EXPECT_EQ(kernel_of(untuned, "conv1").config, kernel_of(untuned, "conv1").op->space().default_config);
  EXPECT_EQ(kernel_of(plan, "conv2").config, kernel_of(untuned, "conv2").config);  // no bank entry: its default

  ThreadPool pool(2);
  EXPECT_EQ(check_outputs(op, space.default_config, make_subgraph_data(op, 1), pool), "");
}

TEST(CpuSubgraph, TunedTilingTakesTheBanksValuesAsTheyAreStored) {
  // SGAT passes the bank's config values: a categorical knob by its index.
  const SubgraphOp labelled(residual({{"conv1", {{"tile", "4x1"}, {"direct_order", "spatial_outer"}}}}), host());
  const Plan plan = labelled.lower(labelled.space().default_config);
  const auto& k = kernel_of(plan, "conv1");
  nlohmann::json values = nlohmann::json::object();
  for (size_t i = 0; i < k.config.size(); ++i) values[k.op->space().knobs[i].name] = k.config[i];
  const SubgraphOp op(residual({{"conv1", values}}), host());
  EXPECT_EQ(op.space().default_config.back(), 1) << "the bank's tiling runs, so it is the default";
  EXPECT_EQ(kernel_of(op.lower(op.space().default_config), "conv1").config, k.config);
}

TEST(CpuSubgraph, TilingTheKernelDoesNotTakeIsInvalid) {
  auto dev = device();
  auto task = dev.prepare_cpu_subgraph(residual({{"conv2", {{"tile", "99x9"}}}}));
  const auto& space = task->space();
  EXPECT_EQ(space.default_config.back(), 0);  // "default": the bank's tiling cannot run
  const auto verdict = task->check(with(space, space.default_config, "tiling:conv2", "tuned"));
  EXPECT_EQ(verdict.status, sdk::ResultStatus::invalid);
  EXPECT_NE(verdict.message.find("tiling:conv2"), std::string::npos) << verdict.message;
  EXPECT_NE(verdict.message.find("tile"), std::string::npos) << verdict.message;
  EXPECT_FALSE(task->build(with(space, space.default_config, "tiling:conv2", "tuned")).candidate);
}

std::vector<sdk::Measurement> measure(sdk::DeviceTask& task, const std::vector<sdk::Config>& configs) {
  return test::evaluate(task, configs, {1, 3, true});
}

TEST(CpuSubgraph, MeasuresTheWholeSubgraphInWorkers) {
  auto dev = device();
  for (const auto& sg : {residual(), feed_forward()}) {
    auto task = dev.prepare_subgraph(sg);
    const auto space = task->space();
    const auto results = measure(*task, {space.default_config, space.knobs.empty() ? space.default_config
                                                                                   : with(space, space.default_config, space.knobs[0].name, 0)});
    for (const auto& m : results) {
      EXPECT_EQ(m.status, sdk::ResultStatus::ok) << sg.name << ": " << m.message;
      EXPECT_GT(m.time_us, 0);
    }
  }
}

TEST(CpuSubgraph, FaultyCandidatesAreReported) {
  const struct {
    const char* fault;
    sdk::ResultStatus status;
  } cases[] = {{"crash", sdk::ResultStatus::run_failed},
               {"hang", sdk::ResultStatus::timeout},
               {"wrong", sdk::ResultStatus::wrong_result}};
  for (const auto& c : cases) {
    auto dev = device(quick({{"fault", c.fault}, {"fault_every", 2}, {"timeout_s", 2}}));
    auto task = dev.prepare_subgraph(residual());
    const auto d = task->space().default_config;
    const auto results = measure(*task, {d, d, d});
    ASSERT_EQ(results.size(), 3u);
    EXPECT_EQ(results[0].status, sdk::ResultStatus::ok) << c.fault << ": " << results[0].message;
    EXPECT_EQ(results[1].status, c.status) << c.fault << ": " << results[1].message;
    EXPECT_EQ(results[2].status, sdk::ResultStatus::ok) << c.fault << ": " << results[2].message;
  }
}

std::string refusal(const sdk::SubgraphTask& task) {
  try {
    device().prepare_subgraph(task);
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), sdk::StatusCode::unsupported) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "prepared";
  return {};
}

TEST(CpuSubgraph, RefusesWhatItCannotRun) {
  auto unknown_op = GraphBuilder()
                        .input("x", {1, 16, 8, 8})
                        .node("relu", "Relu", {"x"}, "r", {1, 16, 8, 8})
                        .node("pick", "StringNormalizer", {"r"}, "y", {1, 16, 8, 8})
                        .output("y")
                        .task("unknown_op");
  auto why = refusal(unknown_op);
  EXPECT_NE(why.find("'pick'"), std::string::npos) << why;
  EXPECT_NE(why.find("StringNormalizer"), std::string::npos) << why;

  auto dynamic = GraphBuilder()
                     .input("x", {-1, 128})
                     .constant("w", {128, 64})
                     .node("fc", "MatMul", {"x", "w"}, "y", {-1, 64})
                     .output("y")
                     .task("dynamic");
  why = refusal(dynamic);
  EXPECT_NE(why.find("'fc'"), std::string::npos) << why;
  EXPECT_NE(why.find("MatMul"), std::string::npos) << why;
  EXPECT_NE(why.find("unknown dims"), std::string::npos) << why;
}

// A BatchNormalization no Conv folds (after a Concat, as a DBNet neck has it) runs as a kernel of its own.
TEST(CpuSubgraph, RunsABatchNormalizationNoConvFolds) {
  const SubgraphOp op(GraphBuilder()
                          .input("x", {1, 16, 8, 8})
                          .constant("s", {16}).constant("b", {16}).constant("m", {16}).constant("v", {16})
                          .node("bn", "BatchNormalization", {"x", "s", "b", "m", "v"}, "n", {1, 16, 8, 8})
                          .node("relu", "Relu", {"n"}, "y", {1, 16, 8, 8})
                          .output("y")
                          .task("lone_bn"),
                      host());
  const auto& config = op.space().default_config;
  EXPECT_EQ(kernel_of(op.lower(config), "bn").task.op_type, "BatchNormalization");
  ThreadPool pool(1);
  EXPECT_EQ(check_outputs(op, config, make_subgraph_data(op, 4), pool), "");
}

TEST(CpuSubgraph, DeviceSaysItRunsSubgraphs) { EXPECT_TRUE(device().describe().at("subgraphs").get<bool>()); }

// Op tasks as a strategy leaves them (sdk::under): activations marked NCHWc
// arrive and leave blocked; every config, blocked or not, still matches.
TEST(CpuSubgraph, OpTasksMarkedBlockedMatchTheirReference) {
  ThreadPool pool(2);
  auto blocked = [](std::vector<int64_t> shape) {
    auto t = test::f32(std::move(shape));
    t.format = "NCHWc";
    return t;
  };
  auto conv = test::op("Conv", {blocked({1, 32, 10, 10}), test::f32({32, 32, 3, 3}, true), test::f32({32}, true),
                                blocked({1, 32, 10, 10})},
                       kPads, {"Add", "Relu"});
  conv.outputs = {blocked({1, 32, 10, 10})};
  const ConvOp c(conv, test::host());
  EXPECT_GT(c.input_blocking(0), 0);
  EXPECT_EQ(c.input_blocking(1), 0);
  EXPECT_GT(c.output_blocking(), 0);
  auto configs = test::sample_configs(c, 12);
  configs.push_back(with(c.space(), with(c.space(), c.space().default_config, "format", "NCHW"), "algo", "gemm"));
  test::expect_matches_reference(c, configs, pool);

  auto pool_task = test::op("MaxPool", {blocked({2, 24, 9, 9})}, {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}});
  pool_task.outputs = {blocked({2, 24, 4, 4})};
  const auto p = make_op(pool_task, test::host());
  test::expect_matches_reference(*p, test::sample_configs(*p, 6), pool);
}

// The ops that follow a blocked input: elementwise with every kind of
// operand it takes beside a blocked one, Concat and Split along the
// channels, reductions over the whole map.
TEST(CpuSubgraph, OpsFollowingABlockedInputMatchTheirReference) {
  ThreadPool pool(2);
  auto blocked = [](std::vector<int64_t> shape) {
    auto t = test::f32(std::move(shape));
    t.format = "NCHWc";
    return t;
  };
  auto check = [&](sdk::OpTask task, std::vector<sdk::TensorDesc> outputs) {
    task.outputs = std::move(outputs);
    const auto o = make_op(task, test::host());
    int lanes = 0;
    for (size_t i = 0; i < o->input_shapes().size(); ++i) lanes = std::max(lanes, o->input_blocking(i));
    EXPECT_GT(lanes, 0) << task.op_type;
    test::expect_matches_reference(*o, test::sample_configs(*o, 4), pool);
  };
  const std::vector<int64_t> x = {2, 32, 5, 7};
  check(test::op("Mul", {blocked(x), test::f32({2, 32, 1, 1}, true)}), {blocked(x)});
  auto with_residual = test::op("Mul", {blocked(x), test::f32({32, 1, 1}, true), blocked(x)}, {}, {"Add", "Relu"});
  check(with_residual, {blocked(x)});
  check(test::op("Sub", {test::f32({1, 1, 5, 7}), blocked(x)}), {blocked(x)});
  check(test::op("HardSwish", {blocked(x)}), {blocked(x)});
  check(test::op("Add", {blocked(x), test::f32({}, true)}), {blocked(x)});
  check(test::op("Concat", {blocked({1, 16, 3, 3}), blocked({1, 32, 3, 3})}, {{"axis", 1}}), {blocked({1, 48, 3, 3})});
  auto split = test::op("Split", {blocked({2, 48, 3, 3})}, {{"axis", -3}});
  split.outputs = {blocked({2, 32, 3, 3}), blocked({2, 16, 3, 3})};
  check(split, split.outputs);
  check(test::op("ReduceMean", {blocked(x)}, {{"axes", {2, 3}}, {"keepdims", 0}}), {test::f32({2, 32})});
  check(test::op("GlobalAveragePool", {blocked(x)}), {test::f32({2, 32, 1, 1})});
  // A map of many pixels: their lanes summed many pixels to a call.
  check(test::op("GlobalAveragePool", {blocked({1, 32, 15, 14})}), {test::f32({1, 32, 1, 1})});
  check(test::op("GlobalMaxPool", {blocked({1, 32, 15, 14})}), {test::f32({1, 32, 1, 1})});
  check(test::op("ReduceMax", {blocked({1, 16, 4, 2, 3})}, {{"axes", {4, 2, -2}}}), {test::f32({1, 16, 1, 1, 1})});
}

// A mark the op cannot follow is an error that says why.
TEST(CpuSubgraph, RefusesABlockedMarkItCannotFollow) {
  auto blocked = [](std::vector<int64_t> shape) {
    auto t = test::f32(std::move(shape));
    t.format = "NCHWc";
    return t;
  };
  auto error = [](sdk::OpTask task, std::vector<sdk::TensorDesc> outputs) -> std::string {
    task.outputs = std::move(outputs);
    try {
      make_op(task, test::host());
    } catch (const sdk::Error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(error(test::op("Concat", {blocked({1, 16, 3, 3}), blocked({1, 16, 3, 3})}, {{"axis", 2}}),
                  {blocked({1, 16, 6, 3})})
                .find("along the channels (axis 1)"),
            std::string::npos);
  EXPECT_NE(error(test::op("Concat", {blocked({1, 16, 3, 3}), test::f32({1, 16, 3, 3})}, {{"axis", 1}}),
                  {blocked({1, 32, 3, 3})})
                .find("all or none"),
            std::string::npos);
  EXPECT_NE(error(test::op("Add", {blocked({1, 32, 3, 3}), test::f32({1, 32, 3, 3})}), {blocked({1, 32, 3, 3})})
                .find("constant over the channels or the map"),
            std::string::npos);
  EXPECT_NE(error(test::op("ReduceMean", {blocked({1, 32, 3, 3})}, {{"axes", {1}}}), {test::f32({1, 1, 3, 3})})
                .find("over its whole map only"),
            std::string::npos);
}

// Figures, not assertions: the default strategy against the best of the
// exhaustive small space. Run with --gtest_also_run_disabled_tests.
TEST(CpuSubgraphFigures, DISABLED_DefaultAgainstBestOfTheSpace) {
  auto dev = device({{"max_seconds", 0.5}, {"max_repeats", 200}});
  for (const auto& sg : {residual(), residual({}, 8), feed_forward()}) {
    auto task = dev.prepare_cpu_subgraph(sg);
    const auto& space = task->space();
    std::vector<sdk::Config> configs;
    sdk::for_each_config(space, [&](const sdk::Config& c) { configs.push_back(c); });
    const auto results = measure(*task, configs);
    double best = 1e30, def = 0;
    size_t best_at = 0;
    for (size_t i = 0; i < configs.size(); ++i) {
      ASSERT_EQ(results[i].status, sdk::ResultStatus::ok) << results[i].message;
      if (configs[i] == space.default_config) def = results[i].time_us;
      if (results[i].time_us < best) best = results[i].time_us, best_at = i;
    }
    const auto x = sg.graph.tensor(sg.graph.inputs[0]).shape;
    std::printf("%-13s x%-18s %3zu configs  default %8.1f us  best %8.1f us (%.2fx)  %s\n", sg.name.c_str(),
                nlohmann::json(x).dump().c_str(), configs.size(), def, best, def / best,
                space.describe(configs[best_at]).dump().c_str());
  }
}

// The attention core at BERT-base's size, one kernel against the ops one by
// one, timed side by side: the core alone, and with the projections.
TEST(CpuSubgraphFigures, DISABLED_AttentionCoreAtBertBaseSize) {
  auto dev = device({{"max_seconds", 1.0}, {"max_repeats", 200}});
  for (const bool projections : {false, true}) {
    auto task = dev.prepare_cpu_subgraph(attention({128, 768, 12, projections, false, false}));
    const auto& space = task->space();
    const sdk::Config fused = with(space, space.default_config, "fuse:softmax", 1);
    for (int round = 0; round < 3; ++round) {
      const auto r = measure(*task, {space.default_config, fused});
      ASSERT_TRUE(r[0].ok() && r[1].ok()) << r[0].message << r[1].message;
      std::printf("%-17s ops one by one %8.1f us   attention kernel %8.1f us   ratio %.3f\n",
                  projections ? "with projections" : "core alone", r[0].time_us, r[1].time_us,
                  r[1].time_us / r[0].time_us);
    }
  }
}

}  // namespace
}  // namespace aoe::cpu
