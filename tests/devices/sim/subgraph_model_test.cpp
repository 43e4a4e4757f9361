// The simulator timing whole subgraphs under a strategy: fusion, layouts,
// L2 residency and the bank's tilings.
#include <gtest/gtest.h>

#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "aoe/sdk/error.h"
#include "aoe/sdk/fusion.h"
#include "epilogue.h"
#include "sim_device.h"
#include "soc_files.h"
#include "subgraph_model.h"

namespace aoe::sim {
namespace {

using sdk::DType;

SimDevice device() { return SimDevice(sdk::CreateArgs{"ascend910", nlohmann::json::object()}); }

// Graphs built by hand: tensors first, then nodes in topological order.
struct Builder {
  sdk::SubgraphTask task;

  Builder& tensor(const std::string& name, std::vector<int64_t> shape, bool constant = false) {
    sdk::TensorDesc t;
    t.name = name;
    t.shape = std::move(shape);
    t.dtype = DType::f16;
    t.constant = constant;
    task.graph.tensors[name] = t;
    return *this;
  }
  Builder& node(const std::string& name, const std::string& op, std::vector<std::string> in,
                std::vector<std::string> out, nlohmann::json attrs = nlohmann::json::object()) {
    task.graph.nodes.push_back({name, op, std::move(in), std::move(out), std::move(attrs)});
    return *this;
  }
  sdk::SubgraphTask done(std::vector<std::string> inputs, std::vector<std::string> outputs) {
    task.name = "sg";
    task.graph.inputs = std::move(inputs);
    task.graph.outputs = std::move(outputs);
    return task;
  }
};

std::set<std::string> fusable() {
  const auto f = fused_op_types();
  return {f.begin(), f.end()};
}

size_t knob(const sdk::TuningSpace& s, const std::string& name) {
  for (size_t i = 0; i < s.knobs.size(); ++i)
    if (s.knobs[i].name == name) return i;
  ADD_FAILURE() << "no knob " << name;
  return 0;
}

bool has_knob(const sdk::TuningSpace& s, const std::string& name) {
  for (const auto& k : s.knobs)
    if (k.name == name) return true;
  return false;
}

sdk::Config with(const sdk::TuningSpace& s, std::map<std::string, int64_t> values) {
  auto c = s.default_config;
  for (const auto& [name, v] : values) c[knob(s, name)] = v;
  return c;
}

double model_time(const Soc& soc, const sdk::OpTask& task) {
  auto m = op_model(soc, task);
  return m->time_us(m->space().default_config);
}

// x -> Softmax -> t -> Relu -> y, 2048 x 1024: two memory-bound kernels.
sdk::SubgraphTask softmax_relu(int64_t rows = 2048, int64_t cols = 1024) {
  return Builder{}
      .tensor("x", {rows, cols})
      .tensor("t", {rows, cols})
      .tensor("y", {rows, cols})
      .node("sm", "Softmax", {"x"}, {"t"}, {{"axis", -1}})
      .node("relu", "Relu", {"t"}, {"y"})
      .done({"x"}, {"y"});
}

// x -> MatMul(W) -> Relu -> y
sdk::SubgraphTask matmul_relu() {
  return Builder{}
      .tensor("x", {1024, 1024})
      .tensor("w", {1024, 1024}, true)
      .tensor("m", {1024, 1024})
      .tensor("y", {1024, 1024})
      .node("mm", "MatMul", {"x", "w"}, {"m"})
      .node("relu", "Relu", {"m"}, {"y"})
      .done({"x"}, {"y"});
}

// A ResNet basic block: conv-bn-relu-conv-bn, the residual add, relu.
sdk::SubgraphTask resnet_block(int64_t c = 64, int64_t hw = 56) {
  Builder b;
  b.tensor("x", {1, c, hw, hw});
  for (const char* t : {"c1", "b1", "r1", "c2", "b2", "a", "y"}) b.tensor(t, {1, c, hw, hw});
  for (const char* w : {"w1", "w2"}) b.tensor(w, {c, c, 3, 3}, true);
  for (const char* p : {"s1", "o1", "m1", "v1", "s2", "o2", "m2", "v2"}) b.tensor(p, {c}, true);
  const nlohmann::json conv = {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}};
  return b.node("conv1", "Conv", {"x", "w1"}, {"c1"}, conv)
      .node("bn1", "BatchNormalization", {"c1", "s1", "o1", "m1", "v1"}, {"b1"})
      .node("relu1", "Relu", {"b1"}, {"r1"})
      .node("conv2", "Conv", {"r1", "w2"}, {"c2"}, conv)
      .node("bn2", "BatchNormalization", {"c2", "s2", "o2", "m2", "v2"}, {"b2"})
      .node("add", "Add", {"b2", "x"}, {"a"})
      .node("relu2", "Relu", {"a"}, {"y"})
      .done({"x"}, {"y"});
}

// A BERT-base attention block (sequence 128): Q/K/V projections, heads,
// scaled masked softmax, context, output projection, residual, LayerNorm.
sdk::SubgraphTask bert_attention(int64_t s = 128) {
  const int64_t h = 768, heads = 12, d = 64;
  Builder b;
  b.tensor("h", {1, s, h}).tensor("mask", {1, 1, 1, s}).tensor("scale", {}, true);
  for (const char* w : {"wq", "wk", "wv", "wo"}) b.tensor(w, {h, h}, true);
  for (const char* w : {"bq", "bk", "bv", "bo", "gamma", "beta"}) b.tensor(w, {h}, true);
  b.tensor("shape4", {4}, true).tensor("shape3", {3}, true);
  for (const char* t : {"q", "k", "v", "ctx2", "o", "res", "y0", "y"}) b.tensor(t, {1, s, h});
  for (const char* t : {"qb", "kb", "vb"}) b.tensor(t, {1, s, h});
  for (const char* t : {"q4", "k4", "v4", "ctx"}) b.tensor(t, {1, s, heads, d});
  b.tensor("qt", {1, heads, s, d}).tensor("kt", {1, heads, d, s}).tensor("vt", {1, heads, s, d});
  b.tensor("sc", {1, heads, s, s}).tensor("scs", {1, heads, s, s}).tensor("scm", {1, heads, s, s});
  b.tensor("p", {1, heads, s, s}).tensor("c4", {1, heads, s, d});
  const auto perm = [](std::vector<int64_t> p) { return nlohmann::json{{"perm", p}}; };
  return b.node("mq", "MatMul", {"h", "wq"}, {"q"})
      .node("aq", "Add", {"q", "bq"}, {"qb"})
      .node("rq", "Reshape", {"qb", "shape4"}, {"q4"})
      .node("tq", "Transpose", {"q4"}, {"qt"}, perm({0, 2, 1, 3}))
      .node("mk", "MatMul", {"h", "wk"}, {"k"})
      .node("ak", "Add", {"k", "bk"}, {"kb"})
      .node("rk", "Reshape", {"kb", "shape4"}, {"k4"})
      .node("tk", "Transpose", {"k4"}, {"kt"}, perm({0, 2, 3, 1}))
      .node("mv", "MatMul", {"h", "wv"}, {"v"})
      .node("av", "Add", {"v", "bv"}, {"vb"})
      .node("rv", "Reshape", {"vb", "shape4"}, {"v4"})
      .node("tv", "Transpose", {"v4"}, {"vt"}, perm({0, 2, 1, 3}))
      .node("qk", "MatMul", {"qt", "kt"}, {"sc"})
      .node("div", "Div", {"sc", "scale"}, {"scs"})
      .node("madd", "Add", {"scs", "mask"}, {"scm"})
      .node("softmax", "Softmax", {"scm"}, {"p"}, {{"axis", -1}})
      .node("pv", "MatMul", {"p", "vt"}, {"c4"})
      .node("tc", "Transpose", {"c4"}, {"ctx"}, perm({0, 2, 1, 3}))
      .node("rc", "Reshape", {"ctx", "shape3"}, {"ctx2"})
      .node("mo", "MatMul", {"ctx2", "wo"}, {"o"})
      .node("ao", "Add", {"o", "bo"}, {"res"})
      .node("ar", "Add", {"res", "h"}, {"y0"})
      .node("ln", "LayerNormalization", {"y0", "gamma", "beta"}, {"y"}, {{"axis", -1}})
      .done({"h", "mask"}, {"y"});
}

TEST(SubgraphModel, DefaultIsTheSumOfItsKernelsEachWithItsLaunch) {
  auto dev = device();
  const auto task = softmax_relu();
  const auto& soc = ascend910();
  SubgraphModel m(soc, task, fusable());
  // Softmax anchors no chain: two kernels, t between them may stay in L2.
  EXPECT_FALSE(has_knob(m.space(), "fuse:relu"));
  ASSERT_TRUE(has_knob(m.space(), "l2:t"));
  EXPECT_EQ(m.space().default_config[knob(m.space(), "l2:t")], 0);
  const auto plan = m.plan(m.space().default_config);
  ASSERT_EQ(plan.kernels.size(), 2u);
  EXPECT_EQ(plan.kernels[0].name, "sm");
  EXPECT_EQ(plan.kernels[1].name, "relu");

  // The same ops prepared alone: the subgraph costs exactly their sum.
  sdk::OpTask sm{"sm", "Softmax", {}, {task.graph.tensors.at("x")}, {task.graph.tensors.at("t")}, {{"axis", -1}}};
  sdk::OpTask relu{"relu", "Relu", {}, {task.graph.tensors.at("t")}, {task.graph.tensors.at("y")}, {}};
  const double sum = model_time(soc, sm) + model_time(soc, relu);
  EXPECT_DOUBLE_EQ(m.time_us(m.space().default_config), sum);
  EXPECT_GT(sum, 2 * soc.launch_us);  // each op model includes its launch

  // Through the device: measure gives the same figure (noise 0).
  auto dtask = dev.prepare_subgraph(task);
  auto built = dtask->build(dtask->space().default_config);
  ASSERT_TRUE(built.candidate) << built.failure.message;
  const auto result = dtask->measure({built.candidate.get()}, {1, 3, false});
  EXPECT_DOUBLE_EQ(result.at(0).time_us, sum);
  EXPECT_EQ(dev.describe().at("subgraphs"), true);
}

TEST(SubgraphModel, KeepingAnIntermediateInL2IsFasterForAMemoryBoundChain) {
  SubgraphModel m(ascend910(), softmax_relu(), fusable());
  const auto off = m.space().default_config;
  const auto on = with(m.space(), {{"l2:t", 1}});
  ASSERT_TRUE(m.check(on).ok()) << m.check(on).message;
  EXPECT_LT(m.time_us(on), m.time_us(off));
  // The kernels read and write t at L2 rates: marked as sdk::under() marks them.
  const auto plan = m.plan(on);
  EXPECT_EQ(plan.kernels[0].task.attrs.at("on_chip_outputs"), nlohmann::json::array({0}));
  EXPECT_EQ(plan.kernels[1].task.attrs.at("on_chip_inputs"), nlohmann::json::array({0}));
  EXPECT_EQ(plan.l2_peak_bytes, 2048 * 1024 * 2);
}

TEST(SubgraphModel, L2IsNeverSlowerInAnyStrategy) {
  for (const auto& task : {softmax_relu(), resnet_block(64, 28), matmul_relu()}) {
    SubgraphModel m(ascend910(), task, fusable());
    std::mt19937_64 rng(7);
    for (int trial = 0; trial < 60; ++trial) {
      auto c = m.space().default_config;
      for (size_t i = 0; i < c.size(); ++i) {
        const auto& vals = m.space().knobs[i].values;
        c[i] = vals[rng() % vals.size()];
      }
      for (size_t i = 0; i < c.size(); ++i) {
        if (m.space().knobs[i].name.rfind("l2:", 0) != 0) continue;
        auto off = c, on = c;
        off[i] = 0;
        on[i] = 1;
        if (!m.check(off).ok()) continue;
        const auto verdict = m.check(on);
        if (!verdict.ok()) {
          // Only the capacity may refuse what runs without L2.
          EXPECT_EQ(verdict.message.rfind("L2:", 0), 0u) << verdict.message;
          continue;
        }
        EXPECT_LE(m.time_us(on), m.time_us(off) * (1 + 1e-12)) << m.space().knobs[i].name;
      }
    }
  }
}

TEST(SubgraphModel, RefusesMoreL2ThanTheSocHas) {
  // 8192 x 4096 fp16 is 64 MB; the 910's L2 holds 32 MB.
  SubgraphModel m(ascend910(), softmax_relu(8192, 4096), fusable());
  const auto verdict = m.check(with(m.space(), {{"l2:t", 1}}));
  ASSERT_FALSE(verdict.ok());
  EXPECT_EQ(verdict.status, sdk::ResultStatus::invalid);
  EXPECT_NE(verdict.message.find("L2"), std::string::npos) << verdict.message;
  EXPECT_NE(verdict.message.find("33554432"), std::string::npos) << verdict.message;
  EXPECT_TRUE(m.check(m.space().default_config).ok());
}

TEST(SubgraphModel, ALayoutMismatchCostsATransData) {
  auto task = Builder{}
                  .tensor("x", {1, 64, 56, 56})
                  .tensor("w", {64, 64, 3, 3}, true)
                  .tensor("y", {1, 64, 56, 56})
                  .tensor("z", {1, 64, 28, 28})
                  .node("conv", "Conv", {"x", "w"}, {"y"}, {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}})
                  .node("pool", "MaxPool", {"y"}, {"z"}, {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}})
                  .done({"x"}, {"z"});
  SubgraphModel m(ascend910(), task, fusable());
  // Untuned, the graph compiler keeps the conv's and the pool's maps in NC1HWC0.
  const auto& s = m.space();
  EXPECT_EQ(s.knobs[knob(s, "layout:y")].display(s.default_config[knob(s, "layout:y")]), "NC1HWC0");
  const auto plain = m.plan(s.default_config);
  ASSERT_EQ(plain.kernels.size(), 2u);
  // y in ND: the conv writes NC1HWC0, one TransData makes the ND copy; the pool reads the first.
  const auto nd = with(s, {{"layout:y", 0}});
  const auto plan = m.plan(nd);
  ASSERT_EQ(plan.kernels.size(), 3u);
  EXPECT_EQ(plan.kernels[1].name, "TransData:y");
  EXPECT_GT(plan.kernels[1].time_us, ascend910().launch_us);
  EXPECT_DOUBLE_EQ(m.time_us(nd), m.time_us(s.default_config) + plan.kernels[1].time_us);
  // The conversion of a tensor kept in L2 reads and writes it there.
  const auto kept = with(s, {{"layout:y", 0}, {"l2:y", 1}});
  ASSERT_TRUE(m.check(kept).ok()) << m.check(kept).message;
  EXPECT_LT(m.time_us(kept), m.time_us(nd));
  // The converted copy pads C to 16: NC1HWC0 of 3 channels moves more bytes than ND.
  sdk::TensorDesc nchw{"t", {8, 3, 224, 224}, DType::f16, "ND", false};
  sdk::TensorDesc fractal = nchw;
  fractal.format = "NC1HWC0";
  const auto& soc = ascend910();
  const double to_fractal = model_time(soc, {"td", "TransData", {}, {nchw}, {fractal}, {}});
  const double relu_nd = model_time(soc, {"r", "Relu", {}, {nchw}, {nchw}, {}});
  const double relu_fractal = model_time(soc, {"r", "Relu", {}, {fractal}, {fractal}, {}});
  EXPECT_GT(to_fractal, soc.launch_us);
  EXPECT_GT(relu_fractal, 2 * relu_nd);  // 16 lanes for 3 channels
}

TEST(SubgraphModel, UnfusingAnEpilogueAddsAKernel) {
  SubgraphModel m(ascend910(), matmul_relu(), fusable());
  const auto& s = m.space();
  ASSERT_TRUE(has_knob(s, "fuse:relu"));
  EXPECT_EQ(s.default_config[knob(s, "fuse:relu")], 1);
  EXPECT_TRUE(has_knob(s, "l2:m"));  // between kernels once relu runs alone
  const auto fused = m.plan(s.default_config);
  ASSERT_EQ(fused.kernels.size(), 1u);
  EXPECT_EQ(fused.kernels[0].name, "mm+relu");
  const auto apart = with(s, {{"fuse:relu", 0}});
  const auto plan = m.plan(apart);
  ASSERT_EQ(plan.kernels.size(), 2u);
  EXPECT_EQ(plan.kernels[0].name, "mm");
  EXPECT_EQ(plan.kernels[1].name, "relu");
  EXPECT_GT(m.time_us(apart), m.time_us(s.default_config));
  // The decisions read back by name, as a tuning mode reads them.
  const auto d = sdk::SubgraphDecisions::of(s, apart);
  EXPECT_EQ(d.unfused, std::set<std::string>{"relu"});
}

TEST(SubgraphModel, AResNetBlockFoldsItsBatchNormsAndFusesItsEpilogues) {
  SubgraphModel m(ascend910(), resnet_block(), fusable());
  const auto& s = m.space();
  EXPECT_FALSE(has_knob(s, "fuse:bn1"));
  EXPECT_FALSE(has_knob(s, "layout:c1"));  // folded away in every strategy
  EXPECT_TRUE(has_knob(s, "fuse:relu1"));
  EXPECT_TRUE(has_knob(s, "fuse:add"));
  EXPECT_TRUE(has_knob(s, "l2:r1"));
  EXPECT_FALSE(has_knob(s, "l2:y"));  // handed on
  const auto plan = m.plan(s.default_config);
  ASSERT_EQ(plan.kernels.size(), 2u);  // no TransData: every map in NC1HWC0
  EXPECT_EQ(plan.kernels[0].name, "conv1+bn1+relu1");
  EXPECT_EQ(plan.kernels[1].name, "conv2+bn2+add+relu2");
}

TEST(SubgraphModel, NoLayoutKnobsWhereNoKernelWorksInNc1hwc0) {
  SubgraphModel m(ascend910(), bert_attention(), fusable());
  for (const auto& k : m.space().knobs) EXPECT_NE(k.name.rfind("layout:", 0), 0u) << k.name;
  EXPECT_TRUE(has_knob(m.space(), "l2:p"));
  EXPECT_TRUE(has_knob(m.space(), "fuse:div"));
  // The views show their inputs: kept in L2 with them, no knob of their own.
  EXPECT_FALSE(has_knob(m.space(), "l2:q4"));
}

TEST(SubgraphModel, TheBanksTilingIsTheOpModelAtThatConfig) {
  auto task = matmul_relu();
  task.op_configs = {{"mm", {{"block_dim", 8}, {"db_l1", "off"}}}};
  const auto& soc = ascend910();
  SubgraphModel m(soc, task, fusable());
  const auto& s = m.space();
  ASSERT_TRUE(has_knob(s, "tiling:mm"));
  EXPECT_EQ(s.knobs[knob(s, "tiling:mm")].display(s.default_config[knob(s, "tiling:mm")]), "tuned");

  const auto plan = m.plan(s.default_config);
  ASSERT_EQ(plan.kernels.size(), 1u);
  auto op = op_model(soc, plan.kernels[0].task);
  auto c = op->space().default_config;
  for (size_t i = 0; i < c.size(); ++i) {
    if (op->space().knobs[i].name == "block_dim") c[i] = 8;
    if (op->space().knobs[i].name == "db_l1") c[i] = 0;
  }
  EXPECT_EQ(plan.kernels[0].config, c);
  EXPECT_DOUBLE_EQ(m.time_us(s.default_config), op->time_us(c));
  const auto untuned = with(s, {{"tiling:mm", 0}});
  EXPECT_DOUBLE_EQ(m.time_us(untuned), op->time_us(op->space().default_config));

  // A value the kernel's space does not allow makes "tuned" invalid, and the default "default".
  task.op_configs = {{"mm", {{"block_dim", 999}}}};
  SubgraphModel bad(soc, task, fusable());
  const auto& bs = bad.space();
  EXPECT_EQ(bs.default_config[knob(bs, "tiling:mm")], 0);
  const auto verdict = bad.check(with(bs, {{"tiling:mm", 1}}));
  ASSERT_FALSE(verdict.ok());
  EXPECT_NE(verdict.message.find("block_dim"), std::string::npos) << verdict.message;
}

TEST(SubgraphModel, OpTasksUnderTheDecisionsCostTheSameAlone) {
  // What OPAT prepares afterwards: the kernel's task as the plan ran it.
  auto dev = device();
  SubgraphModel m(ascend910(), softmax_relu(), fusable());
  const auto c = with(m.space(), {{"l2:t", 1}});
  for (const auto& k : m.plan(c).kernels) {
    auto t = dev.prepare(k.task);
    auto built = t->build(t->space().default_config);
    ASSERT_TRUE(built.candidate);
    EXPECT_DOUBLE_EQ(t->measure({built.candidate.get()}, {1, 1, false}).at(0).time_us, k.time_us);
  }
}

TEST(SubgraphModel, RefusesUnmodelledOpsAndUnknownDimsNamingTheNode) {
  auto dev = device();
  auto odd = Builder{}
                 .tensor("x", {16, 16})
                 .tensor("y", {16, 16})
                 .node("my_unique", "Unique", {"x"}, {"y"})
                 .done({"x"}, {"y"});
  try {
    dev.prepare_subgraph(odd);
    ADD_FAILURE() << "no error";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), sdk::StatusCode::unsupported);
    EXPECT_NE(std::string(e.what()).find("my_unique"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Unique"), std::string::npos) << e.what();
  }
  auto dynamic = Builder{}
                     .tensor("x", {-1, 16})
                     .tensor("y", {-1, 16})
                     .node("act", "Relu", {"x"}, {"y"})
                     .done({"x"}, {"y"});
  try {
    dev.prepare_subgraph(dynamic);
    ADD_FAILURE() << "no error";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), sdk::StatusCode::unsupported);
    EXPECT_NE(std::string(e.what()).find("'act'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("unknown"), std::string::npos) << e.what();
  }
}

// Every config of a tiny subgraph: the best beats the untuned default.
TEST(SubgraphModel, ExhaustiveSearchOfATinySubgraphBeatsTheDefault) {
  SubgraphModel m(ascend910(), matmul_relu(), fusable());
  const double base = m.time_us(m.space().default_config);
  double best = base;
  size_t valid = 0;
  sdk::for_each_config(m.space(), [&](const sdk::Config& c) {
    if (!m.check(c).ok()) return;
    ++valid;
    best = std::min(best, m.time_us(c));
  });
  EXPECT_EQ(m.space().knobs.size(), 2u);  // fuse:relu and l2:m; no 4-D maps, no bank tiling
  EXPECT_GT(valid, 1u);
  EXPECT_LE(best, base);

  SubgraphModel chain(ascend910(), softmax_relu(), fusable());
  const double chain_base = chain.time_us(chain.space().default_config);
  double chain_best = chain_base;
  sdk::for_each_config(chain.space(), [&](const sdk::Config& c) {
    if (chain.check(c).ok()) chain_best = std::min(chain_best, chain.time_us(c));
  });
  EXPECT_LT(chain_best, chain_base);
}

// Figures for the README: default vs the best of a random search.
TEST(SubgraphModel, ResNetAndBertBlocksImproveUnderSearch) {
  for (const auto& [name, task] : {std::pair{"resnet block 64x56x56", resnet_block()},
                                   std::pair{"BERT-base attention s=128", bert_attention()},
                                   std::pair{"BERT-base attention s=512", bert_attention(512)}}) {
    SubgraphModel m(ascend910(), task, fusable());
    const double base = m.time_us(m.space().default_config);
    double best = base;
    sdk::Config best_c = m.space().default_config;
    std::mt19937_64 rng(11);
    for (int trial = 0; trial < 400; ++trial) {
      auto c = best_c;
      // Neighbours of the best so far, and now and then a random restart.
      const size_t flips = trial % 10 == 0 ? c.size() : 1 + rng() % 2;
      for (size_t f = 0; f < flips; ++f) {
        const size_t i = rng() % c.size();
        const auto& vals = m.space().knobs[i].values;
        c[i] = vals[rng() % vals.size()];
      }
      if (!m.check(c).ok()) continue;
      const double t = m.time_us(c);
      if (t < best) best = t, best_c = c;
    }
    std::cout << name << ": " << m.space().knobs.size() << " knobs, default " << base << " us, best found " << best
              << " us (" << m.plan(m.space().default_config).kernels.size() << " -> " << m.plan(best_c).kernels.size()
              << " kernels), " << m.space().describe(best_c).dump() << "\n";
    EXPECT_LT(best, base);
  }
}

// A training step's kernels come fused already (attrs fused_ops): each runs
// as it is, timed by its op model, and nothing else fuses with it.
TEST(SubgraphModel, KernelsFusedAlreadyRunAsTheyAre) {
  const nlohmann::json alone = {{sdk::kFusedOpsAttr, nlohmann::json::array()}};
  auto build = [](const nlohmann::json& marks) {
    return Builder()
        .tensor("x", {64, 1024})
        .tensor("b", {64, 1024})
        .tensor("s", {64, 1024})
        .tensor("y", {64, 1024})
        .node("add", "Add", {"x", "b"}, {"s"}, marks)
        .node("relu", "Relu", {"s"}, {"y"}, marks)
        .done({"x", "b"}, {"y"});
  };
  const SubgraphModel plain(ascend910(), build(nlohmann::json::object()), fusable());
  ASSERT_TRUE(has_knob(plain.space(), "fuse:relu"));  // the inference fusion would fuse them
  const SubgraphModel given(ascend910(), build(alone), fusable());
  EXPECT_FALSE(has_knob(given.space(), "fuse:relu"));
  const auto plan = given.plan(given.space().default_config);
  ASSERT_EQ(plan.kernels.size(), 2u);
  EXPECT_EQ(plan.kernels[0].name, "add");
  EXPECT_EQ(plan.kernels[1].name, "relu");

  // Mul + ApplyMomentum, as the step's rule fuses them: one kernel with its follower.
  Builder fused;
  for (const char* t : {"g", "m", "w", "a", "w2", "a2"}) fused.tensor(t, {256, 256});
  fused.tensor("scale", {1}, true);
  fused.node("mul+apply", "Mul", {"g", "scale", "w", "a"}, {"w2", "a2"},
             {{"lr", 0.1}, {"momentum", 0.9}, {sdk::kFusedOpsAttr, {"ApplyMomentum"}}});
  const SubgraphModel update(ascend910(), fused.done({"g", "w", "a"}, {"w2", "a2"}), fusable());
  const auto kernels = update.plan(update.space().default_config).kernels;
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].task.fused_ops, std::vector<std::string>{"ApplyMomentum"});
  EXPECT_FALSE(kernels[0].task.attrs.contains(sdk::kFusedOpsAttr));
  EXPECT_DOUBLE_EQ(update.time_us(update.space().default_config), model_time(ascend910(), kernels[0].task));

  // A kernel no op model times is refused, named, as unsupported.
  Builder unknown;
  unknown.tensor("x", {8, 8}).tensor("y", {8, 8}).node("k", "NoSuchGrad", {"x"}, {"y"}, alone);
  try {
    SubgraphModel(ascend910(), unknown.done({"x"}, {"y"}), fusable());
    FAIL() << "an unmodelled kernel was timed";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), sdk::StatusCode::unsupported);
    EXPECT_NE(std::string(e.what()).find("cannot time kernel 'k' (NoSuchGrad)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace aoe::sim
