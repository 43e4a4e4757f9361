// TensorFlow frozen graphs (--framework 3) tuned through the real binary:
// NHWC convs keep their layout in the bank key, bad graphs are named by node.
#include <set>
#include <utility>

#include "aoe_host_fixture.h"

namespace aoe::test {
namespace {

// A TensorFlow frozen graph tunes as AOE tunes one (--framework 3). Its
// convs stay NHWC: other tasks than the NCHW ONNX model's, by bank key,
// that the simulator times alike; an MLP has no layout, so the same tasks.
TEST_F(AoeHostTest, TensorFlowGraphsTuneWithTheirLayout) {
  const auto hashes_and_times = [&](const std::string& model, const std::vector<std::string>& more) {
    std::vector<std::string> args = {"--model", this->model(model).string(), "--job_type", "2", "--device", "ascend910",
                                     "--budget", "4"};
    args.insert(args.end(), more.begin(), more.end());
    const auto r = aoe_host(args, {{"TUNE_BANK_PATH", (dir_ / ("bank_" + model)).string()}});
    EXPECT_EQ(r.exit_code, 0) << model << "\n" << r.err;
    std::set<std::string> hashes;
    std::multiset<double> before;
    const auto result = only_result();
    for (const auto& op : result["OPAT"]["opat_tuned_operators"]) {
      if (model.find("conv") == 0) {
        EXPECT_EQ(op["op_type"], "Conv") << op.dump();
      }
      hashes.insert(op["signature_hash"].get<std::string>());
      before.insert(op["performance_before_tune(us)"].get<double>());
    }
    EXPECT_TRUE(result["OPAT"]["unsupported_operators"].empty()) << result["OPAT"].dump();
    for (const auto& f : result_files()) std::filesystem::remove(f);
    return std::make_pair(hashes, before);
  };
  const auto [tf_conv, tf_conv_times] = hashes_and_times("conv_block.pb", {"--framework", "3"});
  const auto [onnx_conv, onnx_conv_times] = hashes_and_times("conv_block.onnx", {});
  EXPECT_EQ(tf_conv.size(), 2u);
  for (const auto& h : tf_conv) EXPECT_EQ(onnx_conv.count(h), 0u) << "the layout is part of the bank key";
  EXPECT_EQ(tf_conv_times, onnx_conv_times);
  EXPECT_EQ(hashes_and_times("mlp.pb", {"--framework", "3"}).first, hashes_and_times("mlp.onnx", {}).first);

  // A .pb without --framework 3, a graph with an op aoe does not read, and a node reading no node.
  const auto unflagged = aoe_host({"--model", model("mlp.pb").string(), "--budget", "4"});
  EXPECT_EQ(unflagged.exit_code, 2) << unflagged.err;
  EXPECT_NE(unflagged.err.find("is a TensorFlow graph: pass --framework 3"), std::string::npos) << unflagged.err;
  const auto graph_file = [&](const std::string& name, const std::string& bytes) {
    const auto p = dir_ / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p.string();
  };
  // GraphDef { node { name: "n" op: "Foo" } }, and { node { name: "n" op: "Relu" input: "gone" } }.
  const auto unknown = aoe_host({"--framework", "3", "--model", graph_file("foo.pb", std::string("\x0a\x08\x0a\x01n\x12\x03" "Foo", 10))});
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_NE(unknown.err.find("TensorFlow node 'n' (Foo)"), std::string::npos) << unknown.err;
  const auto dangling = aoe_host({"--framework", "3", "--model",
                                  graph_file("gone.pb", std::string("\x0a\x0f\x0a\x01n\x12\x04Relu\x1a\x04gone", 17))});
  EXPECT_NE(dangling.exit_code, 0);
  EXPECT_NE(dangling.err.find("TensorFlow node 'n' (Relu)"), std::string::npos) << dangling.err;
  EXPECT_NE(dangling.err.find("no node 'gone'"), std::string::npos) << dangling.err;
}

}  // namespace
}  // namespace aoe::test
