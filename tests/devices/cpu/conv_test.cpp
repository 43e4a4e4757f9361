// Convolution kernels against the reference: GEMM and direct, NCHW and
// blocked, pointwise, grouped, depthwise, strided, padded, dilated, fused.
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <iterator>

#include "catalog.h"
#include "conv_op.h"
#include "onednn_conv.h"
#include "openblas_gemm.h"
#include "tasks.h"
#include "worker.h"

namespace aoe::cpu {
namespace {

using test::f32;
using test::host;
using test::op;
using test::pool;
using test::with;

// This CPU as one whose widest ISA is `widest`: the blocked layout has its lanes.
HostCpu up_to(Isa widest) {
  HostCpu h = host();
  while (h.isas.back() != widest) h.isas.pop_back();
  return h;
}

// Every direct tile and depthwise tile of every ISA the op's CPU runs, GEMM
// with every micro-kernel, and random configs.
std::vector<sdk::Config> conv_configs(const ConvOp& o, const HostCpu& cpu = host()) {
  const auto& space = o.space();
  auto out = test::sample_configs(o, 6);
  for (Isa isa : cpu.isas) {
    for (size_t t = 0; t < conv_tile_union().size(); ++t)
      for (int64_t order : {0, 1}) {
        auto c = with(space, space.default_config, "algo", "direct");
        c = with(space, c, "format", "NCHWc");
        c = with(space, c, "isa", isa_name(isa));
        c = with(space, c, "tile", conv_tile_union()[t].label());
        c = with(space, c, "direct_order", order);
        c = with(space, c, "threads", cpu.threads);
        if (o.check(c).empty()) out.push_back(c);
        c = with(space, c, "format", "NCHW");
        if (o.check(c).empty()) out.push_back(c);
      }
    for (const auto& u : ukernel_catalog()) {
      if (u.isa != isa) continue;
      auto c = with(space, space.default_config, "algo", "gemm");
      c = with(space, c, "format", "NCHW");
      c = with(space, c, "ukernel", u.label());
      c = with(space, c, "isa", isa_name(isa));
      c = with(space, c, "kc", space.knobs[ConvOp::kKc].values.front());
      if (o.check(c).empty()) out.push_back(c);
    }
  }
  // OpenBLAS's im2col + sgemm, the fused ops after it in the widest ISA.
  if (openblas_built()) {
    auto c = with(space, space.default_config, "algo", "gemm");
    c = with(space, c, "format", "NCHW");
    c = with(space, c, "ukernel", kOpenBlasLabel);
    c = with(space, c, "isa", isa_name(cpu.best_isa()));
    EXPECT_EQ(o.check(c), "");
    out.push_back(c);
    out.push_back(with(space, c, "threads", cpu.threads));
  }
  // oneDNN's convolution, direct and Winograd, on either layout, on one thread and on all.
  if (onednn_built())
    for (const char* algo : {kOneDnnLabel, kOneDnnWinogradLabel}) {
      auto c = with(space, space.default_config, "algo", algo);
      c = with(space, c, "isa", isa_name(cpu.best_isa()));
      for (const char* format : {"NCHW", "NCHWc"})
        for (int threads : {1, cpu.threads}) {
          const auto f = with(space, with(space, c, "format", format), "threads", threads);
          if (o.check(f).empty()) out.push_back(f);
        }
    }
  return out;
}

// On this CPU, and as a CPU whose widest ISA is each narrower one this CPU
// runs: each ISA's blocked kernels run where theirs is the widest.
void expect_ok(const sdk::OpTask& task, size_t at_least = 3) {
  SCOPED_TRACE(task.signature());
  for (Isa widest : host().isas) {
    SCOPED_TRACE(isa_name(widest));
    const HostCpu cpu = up_to(widest);
    const ConvOp o(task, cpu);
    const auto configs = conv_configs(o, cpu);
    EXPECT_GE(configs.size(), at_least);
    test::expect_matches_reference(o, configs, pool());
  }
}

nlohmann::json conv_attrs(std::vector<int64_t> strides, std::vector<int64_t> pads, std::vector<int64_t> dilations = {1, 1},
                          int64_t group = 1) {
  return {{"strides", strides}, {"pads", pads}, {"dilations", dilations}, {"group", group}};
}

TEST(Conv, ABlockedConfigHasTheLanesTheModelKeeps) {
  const ConvOp o(op("Conv", {f32({1, 16, 8, 8}), f32({32, 16, 3, 3}, true)}, conv_attrs({1, 1}, {1, 1, 1, 1})), host());
  auto blocked = with(o.space(), o.space().default_config, "algo", "direct");
  blocked = with(o.space(), blocked, "format", "NCHWc");
  for (Isa isa : host().isas) {
    const auto c = with(o.space(), blocked, "isa", isa_name(isa));
    const bool widest = isa_kernels(isa)->lanes == isa_kernels(host().best_isa())->lanes;
    EXPECT_EQ(o.check(c).find("the blocked layout has"), widest ? std::string::npos : 0) << o.check(c);
    EXPECT_EQ(o.check(with(o.space(), c, "format", "NCHW")).find("the blocked layout has"), std::string::npos);
  }
}

TEST(Conv, ThreeByThreePaddedWithBias) {
  expect_ok(op("Conv", {f32({2, 19, 9, 11}), f32({35, 19, 3, 3}, true), f32({35}, true)}, conv_attrs({1, 1}, {1, 1, 1, 1})));
}

TEST(Conv, StridedDilatedAsymmetricPads) {
  expect_ok(op("Conv", {f32({1, 8, 13, 12}), f32({16, 8, 3, 2}, true)}, conv_attrs({2, 1}, {1, 0, 2, 1}, {2, 1})));
  expect_ok(op("Conv", {f32({1, 3, 15, 15}), f32({20, 3, 7, 7}, true), f32({20}, true)}, conv_attrs({2, 2}, {3, 3, 3, 3})));
  // A row stride of 3 and a dilation of 2 along it, pads of 2 and 3 at its ends.
  expect_ok(op("Conv", {f32({1, 4, 11, 17}), f32({6, 4, 3, 3}, true)}, conv_attrs({1, 3}, {0, 2, 1, 3}, {1, 2})));
}

TEST(Conv, PointwiseIsAPlainGemm) {
  const ConvOp o(op("Conv", {f32({2, 32, 7, 7}), f32({48, 32, 1, 1}, true), f32({48}, true)}, conv_attrs({1, 1}, {0, 0, 0, 0})), host());
  EXPECT_TRUE(o.shape().pointwise());
  test::expect_matches_reference(o, conv_configs(o), pool());
}

// A grouped convolution's threads take whole groups: every threads count,
// a batch of two, the bias, and a fused residual Add (whose rows differ per
// image and group) and ReLU on each group's rows.
TEST(Conv, GroupsSharedByTheThreads) {
  const ConvOp o(op("Conv", {f32({2, 16, 9, 9}), f32({24, 4, 3, 3}, true), f32({24}, true), f32({2, 24, 5, 5})},
                    conv_attrs({2, 2}, {1, 1, 1, 1}, {1, 1}, 4), {"Add", "Relu"}),
                 host());
  std::vector<sdk::Config> configs;
  for (int64_t threads = 1; threads <= std::min(host().threads, 3); ++threads)
    configs.push_back(with(o.space(), o.space().default_config, "threads", threads));
  test::expect_matches_reference(o, configs, pool());
}

// Groups of up to 32 output channels run each group directly (eight
// channels' accumulators at a time, a row's vectors with a partial one at
// its end, a strided row read from its phases); larger groups through the
// GEMM. With bias, a fused residual Add and ReLU, strides, dilation and
// uneven pads, a batch of two, on every threads count.
TEST(Conv, SmallGroupsRunDirectly) {
  struct Case {
    Shape x, w, y;
    nlohmann::json attrs;
  };
  const std::vector<Case> cases = {
      {{2, 32, 9, 21}, {32, 4, 3, 3}, {2, 32, 9, 21}, conv_attrs({1, 1}, {1, 1, 1, 1}, {1, 1}, 8)},
      {{1, 24, 11, 19}, {36, 8, 3, 3}, {1, 36, 9, 16}, conv_attrs({1, 1}, {0, 1, 2, 0}, {2, 2}, 3)},
      {{1, 16, 6, 7}, {40, 8, 1, 3}, {1, 40, 6, 7}, conv_attrs({1, 1}, {0, 1, 0, 1}, {1, 1}, 2)},
      {{1, 16, 8, 8}, {80, 8, 3, 3}, {1, 80, 8, 8}, conv_attrs({1, 1}, {1, 1, 1, 1}, {1, 1}, 2)},
      {{2, 32, 13, 37}, {32, 4, 3, 3}, {2, 32, 7, 19}, conv_attrs({2, 2}, {1, 1, 1, 1}, {1, 1}, 8)},
      {{1, 24, 14, 23}, {24, 8, 3, 3}, {1, 24, 6, 7}, conv_attrs({2, 3}, {0, 2, 1, 0}, {2, 2}, 3)},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.attrs.dump());
    const ConvOp o(op("Conv", {f32(c.x), f32(c.w, true), f32({c.w[0]}, true), f32(c.y)}, c.attrs, {"Add", "Relu"}), host());
    std::vector<sdk::Config> configs;
    for (int64_t threads = 1; threads <= std::min(host().threads, 3); ++threads)
      configs.push_back(with(o.space(), with(o.space(), o.space().default_config, "algo", "gemm"), "threads", threads));
    test::expect_matches_reference(o, configs, pool());
  }
}

TEST(Conv, GroupedAndDepthwise) {
  expect_ok(op("Conv", {f32({1, 12, 8, 8}), f32({18, 4, 3, 3}, true)}, conv_attrs({1, 1}, {1, 1, 1, 1}, {1, 1}, 3)));
  const auto dw = op("Conv", {f32({2, 40, 10, 9}), f32({40, 1, 3, 3}, true), f32({40}, true)},
                     conv_attrs({2, 2}, {1, 1, 1, 1}, {1, 1}, 40));
  const ConvOp o(dw, host());
  EXPECT_TRUE(o.shape().depthwise());
  EXPECT_EQ(test::knob(o.space(), o.space().default_config, "algo"), ConvOp::kDirect);
  test::expect_matches_reference(o, conv_configs(o), pool());
  expect_ok(op("Conv", {f32({1, 20, 12, 12}), f32({20, 1, 5, 5}, true)}, conv_attrs({1, 1}, {2, 2, 2, 2}, {1, 1}, 20)));
}

// Rows wide enough for whole tiles, the narrower tiles after them and
// single pixels: each kernel width and stride whose interior tiles share
// their input loads (3, 5 and 7 at stride 1; 3 and 5 at stride 2), and a
// dilated one that does not; 20 channels leave a block part empty.
TEST(Conv, DepthwiseRowsOfEveryTileWidth) {
  for (const auto& [k, stride, dilation] : std::vector<std::array<int64_t, 3>>{{3, 1, 1}, {5, 1, 1}, {7, 1, 1}, {3, 2, 1}, {5, 2, 1}, {3, 1, 2}}) {
    const int64_t pad = k / 2 * dilation;
    expect_ok(op("Conv", {f32({1, 20, 5, 47}), f32({20, 1, k, k}, true), f32({20}, true)},
                 conv_attrs({stride, stride}, {pad, pad, pad, pad}, {dilation, dilation}, 20)));
  }
}

TEST(Conv, OneDimensionalAndAutoPad) {
  expect_ok(op("Conv", {f32({2, 5, 30}), f32({7, 5, 3}, true)}, {{"strides", {2}}, {"pads", {1, 1}}}));
  expect_ok(op("Conv", {f32({1, 4, 7, 9}), f32({6, 4, 3, 3}, true)}, {{"auto_pad", "SAME_LOWER"}, {"strides", {2, 2}}}));
}

// 3-D: im2col + GEMM over depth, rows and columns, with every micro-kernel;
// grouped, strided, padded and dilated in depth; nothing else is offered.
TEST(Conv, ThreeDimensionalRunsAsGemm) {
  expect_ok(op("Conv", {f32({2, 6, 5, 7, 6}), f32({8, 3, 3, 2, 3}, true), f32({8}, true)},
               {{"strides", {2, 1, 2}}, {"pads", {1, 0, 1, 1, 1, 0}}, {"dilations", {2, 1, 1}}, {"group", 2}}));
  const ConvOp o(op("Conv", {f32({1, 4, 3, 4, 4}), f32({5, 4, 1, 1, 1}, true)}, nlohmann::json::object()), host());
  EXPECT_TRUE(o.shape().pointwise());
  EXPECT_EQ(o.output_shapes().at(0), (Shape{1, 5, 3, 4, 4}));
  test::expect_matches_reference(o, conv_configs(o), pool());
  const auto direct = with(o.space(), o.space().default_config, "algo", "direct");
  EXPECT_NE(o.check(direct).find("a 3-D Conv runs as im2col + GEMM"), std::string::npos) << o.check(direct);
}

TEST(Conv, FusedResidualAndActivation) {
  const nlohmann::json attrs = {{"pads", {1, 1, 1, 1}}, {"fused_attrs", {nlohmann::json::object(), nlohmann::json::object()}}};
  expect_ok(op("Conv", {f32({1, 16, 6, 6}), f32({24, 16, 3, 3}, true), f32({24}, true), f32({1, 24, 6, 6})}, attrs,
               {"Add", "Relu"}));
  // A per-channel operand runs on NCHW only.
  const ConvOp o(op("Conv", {f32({1, 16, 6, 6}), f32({24, 16, 3, 3}, true), f32({24, 1, 1})}, {{"pads", {1, 1, 1, 1}}}, {"Mul"}),
                 host());
  auto blocked = with(o.space(), o.space().default_config, "algo", "direct");
  blocked = with(o.space(), blocked, "format", "NCHWc");
  EXPECT_NE(o.check(blocked), "");
  test::expect_matches_reference(o, conv_configs(o), pool());
}

TEST(Conv, OneDnnAppliesActivationsAsItWrites) {
  if (!onednn_built()) GTEST_SKIP() << "built without oneDNN (libdnnl-dev)";
  const nlohmann::json clip = {{"pads", {1, 1, 1, 1}}, {"fused_attrs", {{{"min", 0.0}, {"max", 0.5}}}}};
  for (const auto& [fused, attrs] : std::vector<std::pair<std::vector<std::string>, nlohmann::json>>{
           {{"Relu"}, conv_attrs({1, 1}, {1, 1, 1, 1})}, {{"Clip"}, clip}, {{"Sigmoid", "Tanh"}, conv_attrs({2, 2}, {0, 0, 1, 1})}}) {
    // Channels a multiple of any blocking: oneDNN has a fast kernel for both layouts.
    const ConvOp o(op("Conv", {f32({1, 16, 9, 9}), f32({32, 16, 3, 3}, true), f32({32}, true)}, attrs, fused), host());
    auto c = with(o.space(), o.space().default_config, "algo", kOneDnnLabel);
    c = with(o.space(), c, "isa", isa_name(host().best_isa()));
    const auto blocked = with(o.space(), c, "format", "NCHWc"), plain = with(o.space(), c, "format", "NCHW");
    EXPECT_EQ(o.check(blocked), "");
    test::expect_matches_reference(o, {blocked, plain}, pool());
  }
}

// A residual Add and the Relu after it run inside oneDNN's convolution as it
// writes the output (FusedResidualAndActivation checks the values); an
// operand broadcast over the output is left to the device's chain, with
// every op after it.
TEST(Conv, OneDnnTakesTheLongestPrefixOfTheFusedOpsItRuns) {
  if (!onednn_built()) GTEST_SKIP() << "built without oneDNN (libdnnl-dev)";
  const ConvOp o(op("Conv", {f32({1, 16, 6, 6}), f32({24, 16, 3, 3}, true), f32({24}, true)}, conv_attrs({1, 1}, {1, 1, 1, 1})),
                 host());
  const ChainStep add{EltOp::add, 0, 0, 0}, relu{EltOp::relu, 0, 0, -1};
  const int lanes = isa_kernels(host().best_isa())->lanes;
  for (int layout : {0, lanes}) {
    EXPECT_EQ(OneDnnConv(o.shape(), layout, layout, true, {add, relu}, {true}, 1).taken(), 2u) << layout;
    EXPECT_EQ(OneDnnConv(o.shape(), layout, layout, true, {add, relu}, {false}, 1).taken(), 0u) << layout;
    EXPECT_EQ(OneDnnConv(o.shape(), layout, layout, true, {relu, add, relu}, {false}, 1).taken(), 1u) << layout;
  }
}

size_t threads_of_this_process() {
  return static_cast<size_t>(std::distance(std::filesystem::directory_iterator("/proc/self/task"),
                                           std::filesystem::directory_iterator()));
}

// oneDNN's convolution runs its parts on the device's pool: it starts no
// threads of its own (whose hand-off with the pool's would cost every layer
// a wake-up), so a worker forked after its parent ran it (where GNU OpenMP
// could not start a team) runs it on as many threads.
TEST(Conv, OneDnnRunsOnThePoolsThreadsAndInAForkedWorker) {
  if (!onednn_built()) GTEST_SKIP() << "built without oneDNN (libdnnl-dev)";
  if (host().threads < 2) GTEST_SKIP() << "one CPU: no parts to run";
  const ConvOp o(op("Conv", {f32({1, 64, 8, 8}), f32({64, 64, 3, 3}, true)}, conv_attrs({1, 1}, {1, 1, 1, 1})), host());
  auto c = with(o.space(), o.space().default_config, "algo", kOneDnnLabel);
  c = with(o.space(), with(o.space(), c, "isa", isa_name(host().best_isa())), "format", "NCHWc");
  const auto team = with(o.space(), c, "threads", host().threads);
  ThreadPool& shared = pool();
  const size_t before = threads_of_this_process();
  test::expect_matches_reference(o, {team}, shared);
  EXPECT_EQ(threads_of_this_process(), before);
  const auto data = make_task_data(o, 7);
  std::vector<const float*> in;
  for (const auto& v : data.inputs) in.push_back(v.data());
  const auto results = run_isolated(
      1,
      [&](size_t, WorkerProgress&) {
        try {
          ThreadPool own(host().threads);
          run_once(o, team, in, own);
          return sdk::Measurement::timed(1);
        } catch (const sdk::Error& e) {
          return sdk::Measurement::failed(sdk::ResultStatus::build_failed, e.what());
        }
      },
      {});
  EXPECT_TRUE(results[0].ok()) << results[0].message;
}

// oneDNN's Winograd convolution where it has one (3x3 stride 1, whole
// channel blocks, AVX-512): within the device's tolerance of the reference,
// fused activation and residual included; refused by name elsewhere.
TEST(Conv, OneDnnWinogradWhereOneDnnHasIt) {
  if (!onednn_built()) GTEST_SKIP() << "built without oneDNN (libdnnl-dev)";
  if (host().best_isa() != Isa::avx512) GTEST_SKIP() << "oneDNN's Winograd convolution needs AVX-512";
  const nlohmann::json attrs = {{"pads", {1, 1, 1, 1}}, {"fused_attrs", {nlohmann::json::object(), nlohmann::json::object()}}};
  const ConvOp o(op("Conv", {f32({1, 64, 14, 14}), f32({64, 64, 3, 3}, true), f32({64}, true), f32({1, 64, 14, 14})}, attrs,
                    {"Add", "Relu"}),
                 host());
  auto c = with(o.space(), o.space().default_config, "algo", kOneDnnWinogradLabel);
  c = with(o.space(), with(o.space(), c, "isa", isa_name(host().best_isa())), "format", "NCHWc");
  ASSERT_EQ(o.check(c), "");
  test::expect_matches_reference(o, {c, with(o.space(), c, "threads", host().threads)}, pool());
  const ConvOp strided(op("Conv", {f32({1, 64, 14, 14}), f32({64, 64, 3, 3}, true)}, conv_attrs({2, 2}, {1, 1, 1, 1})),
                       host());
  EXPECT_NE(strided.check(c).find("no Winograd convolution"), std::string::npos) << strided.check(c);
}

TEST(Conv, RefusesMismatchedKnobs) {
  const ConvOp o(op("Conv", {f32({1, 16, 6, 6}), f32({24, 16, 3, 3}, true)}, {{"pads", {1, 1, 1, 1}}}), host());
  const auto& space = o.space();
  const auto gemm = with(space, with(space, space.default_config, "algo", "gemm"), "format", "NCHW");
  EXPECT_NE(o.check(with(space, gemm, "format", "NCHWc")), "") << "gemm reads NCHW";
  EXPECT_NE(o.check(with(space, gemm, "algo", "direct")), "") << "direct runs blocked";
  if (onednn_built() && host().isas.size() > 1)
    EXPECT_NE(o.check(with(space, with(space, gemm, "algo", kOneDnnLabel), "isa", isa_name(host().isas.front()))), "")
        << "oneDNN's layout is the widest ISA's";
}

TEST(Conv, DefaultsLikeALibrary) {
  const int lanes = isa_kernels(host().best_isa())->lanes;
  const ConvOp wide(op("Conv", {f32({1, 4 * lanes, 8, 8}), f32({4 * lanes, 4 * lanes, 3, 3}, true)}), host());
  // Channels that fill vectors: oneDNN's kernel where built, else the device's direct one, on the blocked layout.
  EXPECT_EQ(test::knob(wide.space(), wide.space().default_config, "algo"), onednn_built() ? ConvOp::kOneDnn : ConvOp::kDirect);
  EXPECT_EQ(test::knob(wide.space(), wide.space().default_config, "format"), ConvOp::kNchwc);
  // A first layer reads NCHW and writes blocked where oneDNN is built, else runs GEMM on NCHW.
  const ConvOp first(op("Conv", {f32({1, 3, 32, 32}), f32({16, 3, 3, 3}, true)}), host());
  const sdk::Config& c = first.space().default_config;
  EXPECT_EQ(test::knob(first.space(), c, "algo"), onednn_built() ? ConvOp::kOneDnn : ConvOp::kGemm);
  EXPECT_EQ(test::knob(first.space(), c, "format"), onednn_built() ? ConvOp::kNchwc : ConvOp::kNchw);
  EXPECT_EQ(first.reads_nchw_input(c), onednn_built());
}

}  // namespace
}  // namespace aoe::cpu
