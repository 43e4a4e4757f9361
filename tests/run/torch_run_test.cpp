// The CUDA runtime bench's PyTorch columns (bench/torch_run.py) run the
// graph graph_export writes, op by op: on the CPU here, fed the same inputs
// as `aoe-host run --device cpu`, every output within allclose of aoe's;
// and timed, one JSON line of figures. Skipped where no python3 with torch
// is found (AOE_TORCH_PYTHON, python3, /usr/bin/python3).
#include <cstdlib>
#include <fstream>

#include "aoe_host_fixture.h"
#include "graph_export.h"
#include "tiny_models.h"

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
  void expect_same_outputs(const fs::path& py, const std::string& name) { expect_same_outputs(py, name, model(name + ".onnx")); }
  void expect_same_outputs(const fs::path& py, const std::string& name, const fs::path& source) {
    SCOPED_TRACE(name);
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

// A weight kept beside the model without a length is the rest of its file
// from its offset (ONNX's rule); a file shorter than that is named, before
// anything is read or allocated for it.
TEST_F(TorchRun, ExternalWeightsAreReadAndAShortFileIsNamed) {
  const fs::path file = dir_ / "weights.onnx";
  write_weights_model(file, true);
  aoe::bench::export_graph(read_model(file), file, {}, dir_ / "w.json", dir_ / "w.bin");
  const json graph = read_json(dir_ / "w.json");
  EXPECT_EQ(graph["initializers"]["W"]["bytes"], 8 * sizeof(float));
  EXPECT_EQ(fs::file_size(dir_ / "w.bin"), 16 * sizeof(float));  // Z inline, W from the file
  if (const fs::path py = python(); !py.empty()) expect_same_outputs(py, "weights", file);

  fs::resize_file(dir_ / "weights.weights", 2);  // before W's offset of 4
  try {
    aoe::bench::export_graph(read_model(file), file, {}, dir_ / "w.json", dir_ / "w.bin");
    ADD_FAILURE() << "exported a weight its file does not hold";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("weights.weights ends before W"), std::string::npos) << e.what();
  }
}

// Real exports: torchvision's models through PyTorch's own ONNX exporter, at
// the opsets given, PyTorch's outputs on the same inputs the reference.
// Skipped where the python3 has no torchvision (Debian: python3-torchvision).
TEST_F(TorchRun, TorchvisionExportsMatchPytorchsOwnOutputs) {
  const fs::path py = python();
  if (py.empty() || run_process({py.string(), "-c", "import torchvision"}, dir_).exit_code != 0)
    GTEST_SKIP() << "no python3 with torch, numpy and torchvision (set AOE_TORCH_PYTHON)";
  const std::string export_script =
      "import sys, numpy as np, torch, torchvision\n"
      "torch.manual_seed(0)\n"
      "name, opset, out, inputs, ref = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]\n"
      "model = getattr(torchvision.models, name)().eval()\n"
      "x = torch.rand(1, 3, 96, 96) * 2 - 1\n"
      "torch.onnx.export(model, x, out, opset_version=opset, input_names=['x'], output_names=['y'],\n"
      "                  dynamic_axes={'x': {0: 'batch'}, 'y': {0: 'batch'}})\n"
      "with torch.no_grad(): y = model(x)\n"
      "np.savez(inputs, x=x.numpy())\n"
      "np.savez(ref, y=y.numpy())\n";
  // Grouped and depthwise convolutions, channel shuffles, squeeze-excitation
  // and hard-swish, windowed attention with its shifted-window padding.
  for (const auto& [name, opset] : {std::pair{"squeezenet1_1", "9"}, std::pair{"shufflenet_v2_x0_5", "11"},
                                    std::pair{"mobilenet_v3_small", "13"}, std::pair{"swin_t", "17"}}) {
    SCOPED_TRACE(name);
    const fs::path onnx = dir_ / (std::string(name) + ".onnx"), in = dir_ / (std::string(name) + "_in.npz"),
                   ref = dir_ / (std::string(name) + "_torch.npz"), out = dir_ / (std::string(name) + "_aoe.npz");
    const auto exported =
        run_process({py.string(), "-c", export_script, name, opset, onnx.string(), in.string(), ref.string()}, dir_);
    ASSERT_EQ(exported.exit_code, 0) << exported.err;
    const auto aoe = aoe_host({"run", "--device", "cpu", "--model", onnx.string(), "--input_shape", "x:1,3,96,96",
                               "--inputs", in.string(), "--outputs", out.string(), "--iterations", "1", "--check"});
    ASSERT_EQ(aoe.exit_code, 0) << failure_text(aoe);
    const std::string compare =
        "import sys, numpy as np\n"
        "t, a = np.load(sys.argv[1]), np.load(sys.argv[2])\n"
        "assert t['y'].shape == a['y'].shape, (t['y'].shape, a['y'].shape)\n"
        "scale = float(np.abs(t['y']).max())\n"
        "assert scale > 0, 'an output of zeros checks nothing'\n"
        "assert np.allclose(a['y'], t['y'], rtol=1e-4, atol=1e-4 * scale), float(np.abs(a['y'] - t['y']).max())\n";
    const auto same = run_process({py.string(), "-c", compare, ref.string(), out.string()}, dir_);
    EXPECT_EQ(same.exit_code, 0) << same.err;
  }
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
