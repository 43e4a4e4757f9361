// `aoe-host run --device cuda` against the test double: a model planned,
// compiled (once: the second run loads every kernel from the disk cache),
// run by the GPU worker and checked against the cpu device's references;
// tuned on a miss, then every kernel a hit; a kernel that computes wrong
// values fails the check; an op without a kernel refused by name. The op
// kernels run from their own source on CPU threads (host_kernels_source.cpp).
#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include "aoe_host_fixture.h"
#include "tiny_models.h"

namespace aoe::test {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

class CudaRun : public AoeHostTest {
 protected:
  ProcessResult run(const fs::path& model, std::vector<std::string> extra = {},
                    std::map<std::string, std::string> env = {}) const {
    std::vector<std::string> args = {"run", "--device", "cuda", "--model", model.string(), "--bank_path",
                                     bank_.string(), "--work_path", (dir_ / "work").string(), "--iterations", "2"};
    args.insert(args.end(), extra.begin(), extra.end());
    env.emplace("CUDA_HOME", AOE_CUDA_DOUBLE_HOME);
    env.emplace("XDG_CACHE_HOME", (dir_ / "cache").string());
    return aoe_host(args, env);
  }
  json report(const std::string& stem) const { return read_json(dir_ / "work" / ("aoe_run_" + stem + ".json")); }

  // The op types of the kernels of a run of `file` that matched the references, in launch order.
  std::vector<std::string> checked_kernel_types(const fs::path& file) const {
    const auto r = run(file, {"--check", "--iterations", "1"});
    EXPECT_EQ(r.exit_code, 0) << failure_text(r);
    const json rep = report(file.stem().string());
    EXPECT_TRUE(rep["check"]["match"].get<bool>()) << rep["check"].dump();
    std::vector<std::string> types;
    for (const auto& k : rep["kernels"]) types.push_back(k["op_type"].get<std::string>());
    return types;
  }
};

TEST_F(CudaRun, RunsAModelAndChecksItAgainstTheCpuReferences) {
  const auto first = run(model("mlp.onnx"), {"--check"});
  ASSERT_EQ(first.exit_code, 0) << first.err << first.out;
  EXPECT_NE(first.out.find("check: outputs match the reference"), std::string::npos) << first.out;
  const json r = report("mlp");
  EXPECT_EQ(r["device"], "cuda");
  EXPECT_EQ(r["gpu"], "AOE Double GPU");
  // fc1 + bias + relu, fc2 (a Gemm) + relu, and the last MatMul: three GEMMs with their epilogues.
  ASSERT_EQ(r["kernel_count"], 3) << r.dump(2);
  EXPECT_EQ(r["kernels"][0]["op_type"], "MatMul+Add+Relu");
  EXPECT_EQ(r["kernels"][0]["config_source"], "default");
  EXPECT_TRUE(r["check"]["match"].get<bool>()) << r["check"].dump();
  EXPECT_EQ(r["compiles"]["from_cache"], 0);
  EXPECT_GT(r["memory"]["arena_bytes"].get<int64_t>(), 0);
  EXPECT_EQ(r["latency_ms"]["runs"], 2);
  EXPECT_TRUE(r["cuda_graph"].get<bool>()) << r.value("cuda_graph_refused", "");
  EXPECT_TRUE(fs::is_directory(dir_ / "cache" / "aoe" / "cuda-kernels"));

  const auto second = run(model("mlp.onnx"));
  ASSERT_EQ(second.exit_code, 0) << second.err;
  const json again = report("mlp");
  EXPECT_EQ(again["compiles"]["from_cache"], again["compiles"]["sources"]) << again["compiles"].dump();
  EXPECT_EQ(again["compiles"]["compile_ms"], 0.0);
}

TEST_F(CudaRun, TunesOnAMissThenEveryKernelRunsTheBanksConfig) {
  const auto tuned = run(model("mlp.onnx"), {"--tune_on_miss", "true", "--budget", "4", "--check"});
  ASSERT_EQ(tuned.exit_code, 0) << tuned.err;
  const auto r = run(model("mlp.onnx"), {"--check"});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const json rep = report("mlp");
  EXPECT_EQ(rep["bank"]["miss"], 0) << rep["bank"].dump();
  EXPECT_EQ(rep["bank"]["hit"], 3);
  EXPECT_EQ(rep["tuned_kernel_count"], 3);
  for (const auto& k : rep["kernels"]) EXPECT_EQ(k["config_source"], "bank") << k.dump();
  EXPECT_TRUE(rep["check"]["match"].get<bool>());
}

// TF32 is an Impl choice of a GEMM's space that the user allows
// (allow_tf32): tuned alongside fp32, each config checked at its
// precision's tolerance, banked, and run by the next run that allows it;
// one that does not falls back to an fp32 config.
TEST_F(CudaRun, Tf32IsAnImplChoiceTheUserAllows) {
  write_projection_model(dir_ / "projection.onnx");
  const fs::path file = dir_ / "projection.onnx";
  const std::vector<std::string> allow = {"--device_options", R"({"allow_tf32": true})"};
  // Untuned, allowed: the default tile on tensor cores, checked at TF32's tolerance.
  std::vector<std::string> untuned = {"--check"};
  untuned.insert(untuned.end(), allow.begin(), allow.end());
  const auto first = run(file, untuned);
  ASSERT_EQ(first.exit_code, 0) << failure_text(first);
  const json plain = report("projection");
  EXPECT_EQ(plain["kernels"][0]["config"]["math"], "tf32") << plain["kernels"].dump();
  EXPECT_EQ(plain["kernels"][0]["config_source"], "default");
  EXPECT_EQ(plain["check"]["precision"], "tf32");
  EXPECT_TRUE(plain["check"]["match"].get<bool>()) << plain["check"].dump();

  std::vector<std::string> tune = {"--tune_on_miss", "true", "--budget", "24", "--check"};
  tune.insert(tune.end(), allow.begin(), allow.end());
  const auto tuned = run(file, tune);
  ASSERT_EQ(tuned.exit_code, 0) << failure_text(tuned);
  size_t tf32 = 0, fp32 = 0;
  for (const auto& line : measurement_lines(dir_ / "work")) {
    EXPECT_EQ(line["status"], "ok") << line.dump();
    (line["config"]["math"] == "tf32" ? tf32 : fp32)++;
  }
  EXPECT_GT(tf32, 0u);
  EXPECT_GT(fp32, 0u);

  std::vector<std::string> again = {"--check"};
  again.insert(again.end(), allow.begin(), allow.end());
  const auto r = run(file, again);
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const json rep = report("projection");
  ASSERT_EQ(rep["kernel_count"], 1);
  const json& kernel = rep["kernels"][0];
  EXPECT_EQ(kernel["config_source"], "bank");
  // The check is at the banked config's precision.
  EXPECT_EQ(rep["check"]["precision"], kernel["config"]["math"]) << kernel.dump();
  EXPECT_TRUE(rep["check"]["match"].get<bool>()) << rep["check"].dump();

  // Not allowed: fp32 only, a banked TF32 config passed over for the default.
  const auto strict = run(file, {"--check"});
  ASSERT_EQ(strict.exit_code, 0) << failure_text(strict);
  const json fp32_run = report("projection");
  EXPECT_EQ(fp32_run["kernels"][0]["config"]["math"], "fp32");
  if (kernel["config"]["math"] == "tf32") EXPECT_EQ(fp32_run["kernels"][0]["config_source"], "default");
  EXPECT_EQ(fp32_run["check"]["precision"], "fp32");
  EXPECT_TRUE(fp32_run["check"]["match"].get<bool>());

  // fp16, allowed beside TF32: the default's first choice, checked at its precision.
  const auto half = run(file, {"--check", "--device_options", R"({"allow_tf32": true, "allow_fp16": true})"});
  ASSERT_EQ(half.exit_code, 0) << failure_text(half);
  const json fp16_run = report("projection");
  EXPECT_EQ(fp16_run["check"]["precision"], fp16_run["kernels"][0]["config"]["math"]);
  EXPECT_TRUE(fp16_run["check"]["match"].get<bool>()) << fp16_run["check"].dump();
}

// OPAT tunes each Conv with the Relu it fuses, the implicit GEMM's tiles or
// the depthwise one's threads; every config measured is checked against the
// cpu device's reference, and the run then takes it.
TEST_F(CudaRun, TunesAConvsKernelOnAMissAndTheNextRunTakesItFromTheBank) {
  write_wide_conv_model(dir_ / "wide.onnx");
  write_depthwise_conv_model(dir_ / "depthwise.onnx");
  write_transposed_conv_model(dir_ / "transposed.onnx");
  const std::map<std::string, std::pair<size_t, std::string>> models = {
      {"wide", {5, "Conv+Relu"}}, {"depthwise", {2, "Conv+Relu"}}, {"transposed", {2, "ConvTranspose+BatchNormalization+Relu"}}};
  for (const auto& [stem, want] : models) {
    const auto& [knobs, op_type] = want;
    SCOPED_TRACE(stem);
    const fs::path file = dir_ / (stem + ".onnx");
    const auto tuned = run(file, {"--tune_on_miss", "true", "--budget", "6", "--check"});
    ASSERT_EQ(tuned.exit_code, 0) << failure_text(tuned);
    const auto r = run(file, {"--check"});
    ASSERT_EQ(r.exit_code, 0) << failure_text(r);
    const json rep = report(stem);
    EXPECT_TRUE(rep["check"]["match"].get<bool>()) << rep["check"].dump();
    ASSERT_EQ(rep["kernel_count"], 1) << rep["kernels"].dump();
    EXPECT_EQ(rep["kernels"][0]["op_type"], op_type);
    EXPECT_EQ(rep["kernels"][0]["config_source"], "bank") << rep["kernels"].dump();
    EXPECT_EQ(rep["kernels"][0]["config"].size(), knobs);
    EXPECT_EQ(rep["bank"]["hit"], 1);
  }
  size_t ok = 0;
  const auto measured = measurement_lines(dir_ / "work");
  for (const auto& m : measured) {
    EXPECT_NE(m.value("status", ""), "wrong_result") << m.dump();
    ok += m.value("status", "") == "ok";
  }
  EXPECT_GE(ok, 4u) << measured.size() << " configs measured";
}

TEST_F(CudaRun, OpKernelsRunFromTheirSourceAndMatchTheReferences) {
  write_conv_model(dir_ / "conv.onnx");
  write_opset11_softmax_model(dir_ / "softmax.onnx");
  for (const std::string stem : {"conv", "softmax"}) {
    const auto r = run(dir_ / (stem + ".onnx"), {"--check"});
    ASSERT_EQ(r.exit_code, 0) << stem << ": " << r.err << r.out;
    const json rep = report(stem);
    EXPECT_TRUE(rep["check"]["match"].get<bool>()) << rep["check"].dump();
    std::set<std::string> ops;
    for (const auto& k : rep["kernels"]) ops.insert(k["op_type"].get<std::string>());
    const std::set<std::string> want =
        stem == "conv" ? std::set<std::string>{"Conv+Relu", "Add"} : std::set<std::string>{"Softmax", "LogSoftmax"};
    EXPECT_EQ(ops, want) << rep["kernels"].dump();
  }
}

TEST_F(CudaRun, TheGemmTakesABiasAResidualAndAnActivationAndLeavesTheRest) {
  write_residual_matmul_model(dir_ / "residual.onnx");
  const auto r = run(dir_ / "residual.onnx", {"--check"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const json rep = report("residual");
  EXPECT_TRUE(rep["check"]["match"].get<bool>()) << rep["check"].dump();
  ASSERT_EQ(rep["kernel_count"], 2) << rep["kernels"].dump();
  EXPECT_EQ(rep["kernels"][0]["op_type"], "MatMul+Add+Add+Relu");
  EXPECT_EQ(rep["kernels"][1]["op_type"], "Add");
}

TEST_F(CudaRun, AConvTakesTheBatchNormalizationResidualAndActivationAfterIt) {
  EXPECT_EQ(checked_kernel_types(model("conv_block.onnx")),
            (std::vector<std::string>{"Conv+BatchNormalization+Relu", "Conv+Add+Relu"}));
}

TEST_F(CudaRun, AResidualIsTakenOnlyByTheConvAfterWhichItExists) {
  write_two_branch_model(dir_ / "branches.onnx");
  EXPECT_EQ(checked_kernel_types(dir_ / "branches.onnx"), (std::vector<std::string>{"Conv+BatchNormalization", "Conv+Add+Relu"}));
}

TEST_F(CudaRun, ElementwiseChainsRunAsOneKernelEach) {
  write_chain_model(dir_ / "chain.onnx");
  EXPECT_EQ(checked_kernel_types(dir_ / "chain.onnx"), (std::vector<std::string>{"BatchNormalization+Clip+Sigmoid"}));
}

TEST_F(CudaRun, ElementwiseOpsReadingEarlierValuesAndConstantScalarsJoinTheChain) {
  write_paddle_hardswish_model(dir_ / "hardswish.onnx");
  EXPECT_EQ(checked_kernel_types(dir_ / "hardswish.onnx"), (std::vector<std::string>{"Conv+Add+Clip+Mul+Div"}));
  // The Relu reading x too is not the chain's: it reads no value the chain computes.
  // x * Sigmoid(x) is recognised as one Swish.
  write_swish_model(dir_ / "swish.onnx", false);
  EXPECT_EQ(checked_kernel_types(dir_ / "swish.onnx"), (std::vector<std::string>{"Relu", "Swish+Mul"}));
  // Where Sigmoid's output is a graph output the chain ends there, and the
  // first Mul, which reads x and it, starts one of its own.
  write_swish_model(dir_ / "swish_out.onnx", true);
  EXPECT_EQ(checked_kernel_types(dir_ / "swish_out.onnx"), (std::vector<std::string>{"Relu", "Sigmoid", "Mul+Mul"}));
}

TEST_F(CudaRun, ATensorBroadcastToTheChainsShapeIsReadAsOneMoreOperand) {
  write_masked_scores_model(dir_ / "masked.onnx", false);
  EXPECT_EQ(checked_kernel_types(dir_ / "masked.onnx"), (std::vector<std::string>{"Div+Add+Mul"}));
  // A tensor no kernel has written yet when the chain's kernel runs is not
  // one of its operands: its chain ends before the op that reads it.
  write_masked_scores_model(dir_ / "masked_after.onnx", true);
  EXPECT_EQ(checked_kernel_types(dir_ / "masked_after.onnx"), (std::vector<std::string>{"Div", "Sigmoid", "Add+Mul"}));
  // The first Add takes two of the kernel's eight arguments, so six more
  // biases join it, and a chain of its own reads the rest.
  write_bias_ladder_model(dir_ / "ladder.onnx", 9);
  EXPECT_EQ(checked_kernel_types(dir_ / "ladder.onnx"),
            (std::vector<std::string>{"Add+Add+Add+Add+Add+Add+Add", "Add+Add"}));
}

TEST_F(CudaRun, AnAttentionCoreRunsAsOneKernel) {
  // 271 query rows of 2 heads: blocks of 2 rows (the most that still
  // fills the double's 132 multiprocessors twice over), the last one short.
  write_attention_model(dir_ / "attention.onnx", 271, 5);
  EXPECT_EQ(checked_kernel_types(dir_ / "attention.onnx"), (std::vector<std::string>{"Attention"}));
  // Rows of 12288 scores do not fit a block's shared memory: the ops run one by one.
  write_attention_model(dir_ / "long.onnx", 2, 12288);
  const auto types = checked_kernel_types(dir_ / "long.onnx");
  EXPECT_EQ(std::count(types.begin(), types.end(), "Attention"), 0);
  EXPECT_EQ(std::count(types.begin(), types.end(), "Softmax"), 1);
}

TEST_F(CudaRun, ACachedKernelTheDriverCannotLoadIsNamedWithItsCache) {
  ASSERT_EQ(run(model("mlp.onnx")).exit_code, 0);
  const fs::path cache = dir_ / "cache" / "aoe" / "cuda-kernels";
  size_t broken = 0;
  for (const auto& f : fs::directory_iterator(cache)) std::ofstream(f.path()) << "not a cubin", ++broken;
  ASSERT_GT(broken, 0u);
  const auto r = run(model("mlp.onnx"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cuModuleLoadData"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("came from the cache " + cache.string()), std::string::npos) << r.err;
}

TEST_F(CudaRun, AKernelGivingWrongValuesFailsTheCheck) {
  const auto r = run(model("mlp.onnx"), {"--check"}, {{"AOE_CUDA_DOUBLE_FAULTS", "wrong_result"}});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("DO NOT match"), std::string::npos) << r.out;
  EXPECT_FALSE(report("mlp")["check"]["match"].get<bool>());
}

TEST_F(CudaRun, AnOpWithoutAKernelIsRefusedByName) {
  write_lp_norm_model(dir_ / "lp.onnx");
  const auto r = run(dir_ / "lp.onnx");
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("LpNormalization"), std::string::npos) << r.err;
}

// A Dropout in training is a kernel no cuda kernel computes: refused by
// name, not read through as an inference Dropout is.
TEST_F(CudaRun, ADropoutInTrainingIsRefusedByName) {
  write_random_draws_model(dir_ / "random.onnx");
  const auto r = run(dir_ / "random.onnx");
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("Dropout_0"), std::string::npos) << r.err;
}

// Silero VAD branches on its sample rate; the cpu device runs it, the cuda
// device, which plans every kernel first, refuses it naming the If.
TEST_F(CudaRun, ControlFlowAndOutputsSizedAsTheModelRunsAreRefusedByName) {
  write_run_time_if_model(dir_ / "if.onnx");
  auto r = run(dir_ / "if.onnx");
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("If 'choose'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--device cpu"), std::string::npos) << r.err;
  write_nonzero_output_model(dir_ / "nonzero.onnx");
  r = run(dir_ / "nonzero.onnx");
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("output 'where' has dims"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("18446744073709551615"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace aoe::test
