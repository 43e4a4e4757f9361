// MatMul and Gemm kernels against the reference, over many blockings.
#include <gtest/gtest.h>

#include "aoe/sdk/error.h"
#include "catalog.h"
#include "matmul_op.h"
#include "onednn_runtime.h"
#include "openblas_gemm.h"
#include "tasks.h"

namespace aoe::cpu {
namespace {

using test::f32;
using test::host;
using test::op;
using test::pool;
using test::with;

// Every micro-kernel this CPU runs, under two blockings small enough to leave edges everywhere.
std::vector<sdk::Config> blockings(const MatMulOp& m) {
  std::vector<sdk::Config> out;
  const auto& space = m.space();
  for (size_t u = 0; u < ukernel_catalog().size(); ++u) {
    if (!host().runs(ukernel_catalog()[u].isa)) continue;
    auto c = with(space, space.default_config, "ukernel", ukernel_catalog()[u].label());
    c = with(space, c, "mc", space.knobs[MatMulOp::kMc].values.front());
    c = with(space, c, "kc", space.knobs[MatMulOp::kKc].values.front());
    c = with(space, c, "nc", space.knobs[MatMulOp::kNc].values.front());
    out.push_back(c);
    c = with(space, c, "loop_order", "m_outer");
    c = with(space, c, "split", "n");
    c = with(space, c, "threads", host().threads);
    c = with(space, c, "kc", space.knobs[MatMulOp::kKc].values.back());
    out.push_back(c);
    out.push_back(with(space, c, "pack_b", "none"));  // B read in place, its partial last sliver packed
    auto shared = with(space, c, "split", "m_shared");  // B packed once by all threads, row blocks shared out
    out.push_back(shared);
    out.push_back(with(space, shared, "pack_b", "none"));
  }
  return out;
}

TEST(Gemm, EveryMicroKernelMatchesTheReferenceWithEdges) {
  const MatMulOp m(op("MatMul", {f32({37, 75}), f32({75, 83})}), host());
  test::expect_matches_reference(m, blockings(m), pool());
}

TEST(Gemm, RandomConfigsMatchTheReference) {
  const MatMulOp m(op("MatMul", {f32({70, 130}), f32({130, 45})}), host());
  test::expect_matches_reference(m, test::sample_configs(m, 24), pool());
}

TEST(Gemm, BatchedMatMulSplitsByBatch) {
  const MatMulOp m(op("MatMul", {f32({3, 17, 40}), f32({3, 40, 33})}), host());
  EXPECT_EQ(m.batches(), 3);
  auto c = with(m.space(), m.space().default_config, "split", "batch");
  c = with(m.space(), c, "threads", host().threads);
  test::expect_matches_reference(m, {m.space().default_config, c}, pool());
}

TEST(Gemm, BroadcastBatchesAndVectors) {
  for (const auto& [a, b] : std::vector<std::pair<Shape, Shape>>{{{17, 40}, {2, 3, 40, 33}},
                                                                  {{2, 1, 9, 8}, {3, 8, 5}},
                                                                  {{4, 17, 40}, {40, 33}},
                                                                  {{40}, {3, 40, 7}},
                                                                  {{5, 40}, {40}},
                                                                  {{40}, {40}}}) {
    const MatMulOp m(op("MatMul", {f32(a), f32(b)}), host());
    test::expect_matches_reference(m, test::sample_configs(m, 4), pool());
  }
  // A shared B under a batched A folds into one product.
  EXPECT_EQ(MatMulOp(op("MatMul", {f32({4, 17, 40}), f32({40, 33})}), host()).m(), 68);
}

TEST(Gemm, GemmAttributesAndBias) {
  const nlohmann::json attrs = {{"transA", 1}, {"transB", 1}, {"alpha", 0.5}, {"beta", 2.0}};
  for (const Shape& c : std::vector<Shape>{{23}, {19, 1}, {19, 23}, {1}}) {
    const MatMulOp m(op("Gemm", {f32({31, 19}), f32({23, 31}, true), f32(c)}, attrs), host());
    test::expect_matches_reference(m, test::sample_configs(m, 4), pool());
  }
  const MatMulOp no_c(op("Gemm", {f32({19, 31}), f32({31, 23})}, {{"transB", 0}}), host());
  test::expect_matches_reference(no_c, test::sample_configs(no_c, 3), pool());
}

TEST(Gemm, FusedEpilogueOps) {
  const nlohmann::json clip = {{"fused_attrs", {nlohmann::json::object(), {{"min", 0.0}, {"max", 0.25}}}}};
  const MatMulOp m(op("Gemm", {f32({29, 50}), f32({50, 40}, true), f32({40}), f32({29, 40})}, clip, {"Add", "Clip"}),
                   host());
  test::expect_matches_reference(m, test::sample_configs(m, 6), pool());
  const MatMulOp chain(op("MatMul", {f32({2, 13, 50}), f32({50, 40}), f32({40}), f32({2, 13, 1})}, {},
                          {"Add", "Sigmoid", "Mul", "Tanh"}),
                       host());
  test::expect_matches_reference(chain, test::sample_configs(chain, 6), pool());
  // BERT's FFN as OPAT fuses it: bias, then GELU; attention scores scaled by a scalar.
  const MatMulOp ffn(op("MatMul", {f32({16, 64}), f32({64, 96}, true), f32({96}, true)}, {}, {"Add", "Gelu"}), host());
  test::expect_matches_reference(ffn, test::sample_configs(ffn, 4), pool());
  const MatMulOp scores(op("MatMul", {f32({2, 4, 16, 8}), f32({2, 4, 8, 16}), f32({})}, {}, {"Div"}), host());
  test::expect_matches_reference(scores, test::sample_configs(scores, 4), pool());
}

// A library's product as a "ukernel" value past the catalog, on one thread
// and on all (parts of rows where m > n, else of columns): transposes with
// alpha and beta, a product of activations, batches, broadcast B, a vector,
// and fused epilogues run after it.
void expect_library_product_matches_reference(const char* label) {
  const nlohmann::json attrs = {{"transA", 1}, {"transB", 1}, {"alpha", 0.5}, {"beta", 2.0}};
  const MatMulOp gemm(op("Gemm", {f32({31, 19}), f32({23, 31}, true), f32({19, 23})}, attrs), host());
  const MatMulOp activations(op("Gemm", {f32({40, 19}), f32({19, 70})}, {{"transB", 0}}), host());
  const MatMulOp batched(op("MatMul", {f32({3, 17, 40}), f32({3, 40, 33})}), host());
  const MatMulOp broadcast(op("MatMul", {f32({2, 1, 9, 8}), f32({3, 8, 5})}), host());
  const MatMulOp vector(op("MatMul", {f32({40}), f32({3, 40, 7})}), host());
  const MatMulOp ffn(op("MatMul", {f32({2, 16, 64}), f32({64, 96}, true), f32({96}, true)}, {}, {"Add", "Gelu"}), host());
  const MatMulOp tall(op("MatMul", {f32({70, 24}), f32({24, 20}, true), f32({70, 20})}, {}, {"Add"}), host());
  for (const MatMulOp* m : {&gemm, &activations, &batched, &broadcast, &vector, &ffn, &tall}) {
    const auto c = with(m->space(), m->space().default_config, "ukernel", label);
    const auto all = with(m->space(), c, "threads", host().threads);
    EXPECT_EQ(m->check(all), "");
    test::expect_matches_reference(*m, {with(m->space(), c, "threads", 1), all}, pool());
  }
}

TEST(Gemm, OpenBlasIsAnImplementationThatMatchesTheReference) {
  if (!openblas_built()) GTEST_SKIP() << "built without OpenBLAS (libopenblas-dev)";
  expect_library_product_matches_reference(kOpenBlasLabel);
}

// oneDNN's matmul reorders a constant B once: one per op.
TEST(Gemm, OneDnnIsAnImplementationThatMatchesTheReference) {
  if (!onednn_built()) GTEST_SKIP() << "built without oneDNN (libdnnl-dev)";
  expect_library_product_matches_reference(kOneDnnLabel);
  const auto onednn = [](const MatMulOp& m) { return with(m.space(), m.space().default_config, "ukernel", kOneDnnLabel); };
  const MatMulOp weights_per_batch(op("MatMul", {f32({2, 8, 16}), f32({2, 16, 8}, true)}), host());
  EXPECT_NE(weights_per_batch.check(onednn(weights_per_batch)).find("a batch of them"), std::string::npos);
}

TEST(Gemm, PackingConstantWeightsOnce) {
  const MatMulOp m(op("MatMul", {f32({64, 96}), f32({96, 80}, true)}), host());
  EXPECT_EQ(test::knob(m.space(), m.space().default_config, "pack_b"), 1) << "constant weights are packed once";
  const auto once = with(m.space(), m.space().default_config, "nc", 64);
  // Column chunks that start inside a packed panel.
  auto by_columns = with(m.space(), once, "split", "n");
  by_columns = with(m.space(), by_columns, "threads", host().threads);
  if (host().threads > 1) by_columns = with(m.space(), by_columns, "chunks_per_thread", 4);
  by_columns = with(m.space(), by_columns, "ukernel", ukernel_catalog()[0].label());
  test::expect_matches_reference(
      m, {once, with(m.space(), once, "pack_b", "per_call"), by_columns, with(m.space(), once, "split", "m_shared")}, pool());
}

TEST(Gemm, RefusesConfigsThatCannotRun) {
  const MatMulOp m(op("MatMul", {f32({64, 96}), f32({96, 80})}), host());
  const auto& d = m.space().default_config;
  EXPECT_NE(m.check(with(m.space(), d, "split", "batch")), "");
  EXPECT_NE(m.check(with(m.space(), d, "pack_b", "once")), "");
  const MatMulOp t(op("Gemm", {f32({8, 16}), f32({24, 16})}, {{"transB", 1}}), host());
  EXPECT_NE(t.check(with(t.space(), t.space().default_config, "pack_b", "none")), "");
  // A CPU without the wider kernels refuses them.
  HostCpu narrow = host();
  narrow.isas = {Isa::generic};
  const MatMulOp g(op("MatMul", {f32({64, 96}), f32({96, 80})}), narrow);
  EXPECT_EQ(ukernel_catalog()[static_cast<size_t>(g.space().default_config[MatMulOp::kUKernel])].isa, Isa::generic);
  EXPECT_EQ(g.check(with(g.space(), g.space().default_config, "ukernel", "avx2_6x16")), "this CPU does not run avx2 kernels");
}

TEST(Gemm, BlockSizesStopAtTheProblemSize) {
  const MatMulOp m(op("MatMul", {f32({20, 100}), f32({100, 300})}), host());
  EXPECT_EQ(m.space().knobs[MatMulOp::kMc].values.back(), 32);
  EXPECT_EQ(m.space().knobs[MatMulOp::kKc].values.back(), 128);
  EXPECT_EQ(m.space().knobs[MatMulOp::kNc].values.back(), 512);
}

TEST(Gemm, RefusesWhatItCannotRun) {
  // The float kernel takes no integers (MatMulInteger has its own).
  auto i8 = op("MatMul", {f32({4, 4}), f32({4, 4})});
  i8.inputs[0].dtype = i8.inputs[1].dtype = sdk::DType::i8;
  EXPECT_THROW(
      try { MatMulOp(i8, host()); } catch (const sdk::Error& e) {
        EXPECT_EQ(e.code(), sdk::StatusCode::unsupported);
        throw;
      },
      sdk::Error);
  EXPECT_THROW(MatMulOp(op("MatMul", {f32({4, 5}), f32({4, 4})}), host()), sdk::Error);
}

// The catalog the spaces list must match the tables the ISA files build.
TEST(Gemm, CatalogMatchesTheKernelTables) {
  for (Isa isa : host().isas) {
    const IsaKernels& k = *isa_kernels(isa);
    int listed = 0;
    for (const auto& u : ukernel_catalog())
      if (u.isa == isa) {
        ++listed;
        EXPECT_NE(find_ukernel(k, u.mr, u.nr), nullptr) << u.label();
      }
    EXPECT_EQ(listed, k.ukernel_count) << isa_name(isa);
    for (const auto& t : conv_tiles_of(isa)) EXPECT_NE(find_conv_tile(k, t.ow, t.ocb), nullptr) << t.label();
    for (int ow : depthwise_tiles_of(isa)) EXPECT_NE(find_depthwise_tile(k, ow), nullptr) << ow;
  }
}

}  // namespace
}  // namespace aoe::cpu
