// ConvTranspose against its reference, both ways it runs: col2im (a GEMM
// and a scatter) and a convolution over the stride-dilated input; strided,
// padded, dilated, grouped, depthwise, 1-D, with output_padding.
#include <gtest/gtest.h>

#include "catalog.h"
#include "conv_transpose_op.h"
#include "openblas_gemm.h"
#include "tasks.h"

namespace aoe::cpu {
namespace {

using test::f32;
using test::host;
using test::op;
using test::pool;
using test::with;

// Random configs, and each method with every GEMM micro-kernel of this CPU and OpenBLAS.
std::vector<sdk::Config> transpose_configs(const ConvTransposeOp& o) {
  const auto& space = o.space();
  auto out = test::sample_configs(o, 6);
  for (const char* method : {"col2im", "dilated_conv"}) {
    auto c = with(space, space.default_config, "method", method);
    c = with(space, c, "format", "NCHW");
    c = with(space, c, "algo", "gemm");
    c = with(space, c, "threads", host().threads);
    for (const auto& u : ukernel_catalog()) {
      if (std::find(host().isas.begin(), host().isas.end(), u.isa) == host().isas.end()) continue;
      auto k = with(space, c, "ukernel", u.label());
      k = with(space, k, "isa", isa_name(u.isa));
      if (o.check(k).empty()) out.push_back(k);
    }
    if (!openblas_built()) continue;
    auto blas = with(space, c, "ukernel", "openblas");
    blas = with(space, blas, "isa", isa_name(host().best_isa()));
    EXPECT_EQ(o.check(blas), "") << method;
    out.push_back(blas);
  }
  return out;
}

void expect_both_methods_match(const sdk::OpTask& task) {
  const ConvTransposeOp o(task, host());
  const auto configs = transpose_configs(o);
  size_t col2im = 0;
  for (const auto& c : configs) col2im += c[ConvTransposeOp::kMethod] == ConvTransposeOp::kCol2im;
  EXPECT_GT(col2im, 0u);
  EXPECT_GT(configs.size() - col2im, 0u);
  test::expect_matches_reference(o, configs, pool());
}

TEST(ConvTranspose, TwoByTwoStrideTwoWithBias) {
  expect_both_methods_match(op("ConvTranspose", {f32({1, 18, 20, 20}), f32({18, 1, 2, 2}, true), f32({1}, true)},
                               {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}}));
}

TEST(ConvTranspose, PaddedWithOutputPadding) {
  expect_both_methods_match(op("ConvTranspose", {f32({2, 8, 7, 9}), f32({8, 12, 3, 3}, true), f32({12}, true)},
                               {{"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}, {"output_padding", {1, 0}}}));
}

TEST(ConvTranspose, GroupedDilatedAsymmetricPads) {
  expect_both_methods_match(op("ConvTranspose", {f32({1, 6, 5, 6}), f32({6, 2, 3, 2}, true)},
                               {{"group", 2}, {"dilations", {2, 1}}, {"strides", {1, 3}}, {"pads", {0, 1, 2, 0}}}));
}

TEST(ConvTranspose, DepthwiseStrided) {
  expect_both_methods_match(op("ConvTranspose", {f32({1, 16, 6, 6}), f32({16, 1, 4, 4}, true), f32({16}, true)},
                               {{"group", 16}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}));
}

TEST(ConvTranspose, OneDimensional) {
  expect_both_methods_match(op("ConvTranspose", {f32({2, 4, 11}), f32({4, 5, 3}, true), f32({5}, true)},
                               {{"strides", {3}}, {"pads", {1, 0}}}));
}

// 3-D: col2im alone, over the GEMM knobs of its product.
TEST(ConvTranspose, ThreeDimensional) {
  const ConvTransposeOp o(op("ConvTranspose", {f32({2, 4, 3, 4, 5}), f32({4, 3, 3, 2, 3}, true), f32({6}, true)},
                             {{"group", 2}, {"strides", {2, 1, 2}}, {"dilations", {1, 2, 1}}, {"pads", {1, 0, 1, 0, 1, 1}},
                              {"output_padding", {1, 0, 0}}}),
                          host());
  EXPECT_EQ(o.output_shapes()[0], (Shape{2, 6, 7, 5, 9}));
  const auto& d = o.space().default_config;
  EXPECT_EQ(d[ConvTransposeOp::kMethod], ConvTransposeOp::kCol2im);
  EXPECT_NE(o.check(with(o.space(), d, "method", "dilated_conv")), "");
  test::expect_matches_reference(o, test::sample_configs(o, 8), pool());
}

// col2im's work is the op's own; the dilated convolution does stride^2 of it.
TEST(ConvTranspose, DefaultsToCol2imAndRefusesItOffTheGemm) {
  const ConvTransposeOp o(op("ConvTranspose", {f32({1, 18, 20, 20}), f32({18, 1, 2, 2}, true)},
                             {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}}),
                          host());
  const auto& d = o.space().default_config;
  EXPECT_EQ(d[ConvTransposeOp::kMethod], ConvTransposeOp::kCol2im);
  EXPECT_EQ(o.check(d), "");
  const auto direct = with(o.space(), d, "algo", "direct");
  EXPECT_NE(o.check(direct).find("method=col2im runs its product on the GEMM"), std::string::npos) << o.check(direct);
}

}  // namespace
}  // namespace aoe::cpu
