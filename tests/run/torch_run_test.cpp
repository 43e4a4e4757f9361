// The CUDA runtime bench's PyTorch columns (bench/torch_run.py) run the
// graph graph_export writes, op by op: on the CPU here, fed the same inputs
// as `aoe-host run --device cpu`, every output within allclose of aoe's;
// and timed, one JSON line of figures. Skipped where no python3 with torch
// is found (AOE_TORCH_PYTHON, python3, /usr/bin/python3).
#include <cstdlib>
#include <fstream>

#include "aoe_host_fixture.h"
#include "graph_export.h"

namespace aoe::test {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

onnx::ModelProto read_model(const fs::path& path) {
  onnx::ModelProto model;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(model.ParseFromIstream(&in)) << path;
  return model;
}

class TorchRun : public AoeHostTest {
 protected:
  // A python3 that imports torch and numpy; empty where there is none.
  fs::path python() const {
    std::vector<std::string> candidates;
    if (const char* given = std::getenv("AOE_TORCH_PYTHON")) candidates.emplace_back(given);
    candidates.insert(candidates.end(), {"python3", "/usr/bin/python3"});
    for (const auto& p : candidates)
      if (run_process({p, "-c", "import torch, numpy"}, dir_).exit_code == 0) return p;
    return {};
  }

  // `name`'s graph exported, inputs drawn, run by torch_run.py and by aoe on the CPU.
  void expect_same_outputs(const fs::path& py, const std::string& name) {
    SCOPED_TRACE(name);
    const fs::path source = model(name + ".onnx");
    const fs::path graph = dir_ / (name + ".graph.json"), bin = dir_ / (name + ".graph.bin");
    aoe::bench::export_graph(read_model(source), source, {}, graph, bin);
    const fs::path inputs = dir_ / (name + "_in.npz"), torch_io = dir_ / (name + "_torch.npz"), aoe_out = dir_ / (name + "_aoe.npz");
    const std::string draw =
        "import json, sys, numpy as np\n"
        "doc = json.load(open(sys.argv[1])); rng = np.random.default_rng(3)\n"
        "np.savez(sys.argv[2], **{i['name']: rng.random(i['shape'], dtype=np.float32) * 2 - 1 for i in doc['inputs']})\n";
    ASSERT_EQ(run_process({py.string(), "-c", draw, graph.string(), inputs.string()}, dir_).exit_code, 0);
    fs::copy_file(inputs, torch_io, fs::copy_options::overwrite_existing);
    const auto torch = run_process({py.string(), AOE_TORCH_RUN_SCRIPT, graph.string(), bin.string(), "1", "eager", "cpu", "0",
                                    torch_io.string()},
                                   dir_);
    ASSERT_EQ(torch.exit_code, 0) << torch.err;
    const auto aoe = aoe_host({"run", "--device", "cpu", "--model", source.string(), "--inputs", inputs.string(), "--outputs",
                               aoe_out.string(), "--iterations", "1"});
    ASSERT_EQ(aoe.exit_code, 0) << failure_text(aoe);
    const std::string compare =
        "import sys, numpy as np\n"
        "t, a = np.load(sys.argv[1]), np.load(sys.argv[2])\n"
        "assert sorted(t.files) == sorted(a.files), (t.files, a.files)\n"
        "for k in a.files:\n"
        "    assert t[k].shape == a[k].shape, (k, t[k].shape, a[k].shape)\n"
        "    assert np.allclose(t[k], a[k], rtol=1e-4, atol=1e-4), (k, float(np.abs(t[k] - a[k]).max()))\n";
    const auto same = run_process({py.string(), "-c", compare, torch_io.string(), aoe_out.string()}, dir_);
    EXPECT_EQ(same.exit_code, 0) << same.err;
  }
};

TEST_F(TorchRun, RunsTheExportedGraphAsAoeRunsTheModel) {
  const fs::path py = python();
  if (py.empty()) GTEST_SKIP() << "no python3 with torch and numpy (set AOE_TORCH_PYTHON)";
  for (const char* name : {"mlp", "conv_block", "ocr_cls", "ocr_det"}) expect_same_outputs(py, name);
}

TEST_F(TorchRun, TimesTheGraphAndPrintsItsFigures) {
  const fs::path py = python();
  if (py.empty()) GTEST_SKIP() << "no python3 with torch and numpy (set AOE_TORCH_PYTHON)";
  const fs::path source = model("conv_block.onnx");
  aoe::bench::export_graph(read_model(source), source, {}, dir_ / "g.json", dir_ / "g.bin");
  const auto r = run_process({py.string(), AOE_TORCH_RUN_SCRIPT, (dir_ / "g.json").string(), (dir_ / "g.bin").string(), "5",
                              "eager", "cpu", "0"},
                             dir_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json figures = json::parse(r.out.substr(r.out.rfind('{')));
  EXPECT_GT(figures["median"].get<double>(), 0);
  EXPECT_LE(figures["min"].get<double>(), figures["median"].get<double>());
  EXPECT_LE(figures["median"].get<double>(), figures["p90"].get<double>());
}

// An op the runner has no PyTorch function for stops it naming the op and the node.
TEST_F(TorchRun, AnOpWithoutAFunctionIsNamed) {
  const fs::path py = python();
  if (py.empty()) GTEST_SKIP() << "no python3 with torch and numpy (set AOE_TORCH_PYTHON)";
  std::ofstream(dir_ / "odd.json") << R"({"inputs": [{"name": "x", "dtype": "float32", "shape": [2]}], "outputs": ["y"],
      "initializers": {}, "nodes": [{"op_type": "Frobnicate", "name": "f0", "inputs": ["x"], "outputs": ["y"], "attrs": {}}]})";
  std::ofstream(dir_ / "odd.bin");
  const auto r = run_process({py.string(), AOE_TORCH_RUN_SCRIPT, (dir_ / "odd.json").string(), (dir_ / "odd.bin").string(), "1",
                              "eager", "cpu", "0"},
                             dir_);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("Frobnicate (node f0)"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace aoe::test
