// Kernel Tuner's T1 problems as the cuda device reads them: the project's
// own, benchmark_hub's (through AOE_KERNEL_TUNER_DATA), and hostile ones,
// each refused naming the file and the key; then what a config makes of a
// problem (launch, source, arguments) and the cachefile a run writes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "aoe/sdk/error.h"
#include "argument_data.h"
#include "cachefile.h"
#include "cachefile_writer.h"
#include "kernel_source.h"
#include "t1_launch.h"
#include "parameter_space.h"
#include "t1_problem.h"

namespace aoe::cuda {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using nlohmann::ordered_json;
using replay::ParameterSpace;

const fs::path kProblems = AOE_T1_PROBLEMS_DIR;

fs::path kernel_tuner_data() {
  if (const char* env = std::getenv("AOE_KERNEL_TUNER_DATA"); env && *env) return env;
  return AOE_KERNEL_TUNER_DATA;
}

#define AOE_REQUIRE_KERNEL_TUNER_DATA()                                                                 \
  if (kernel_tuner_data().empty())                                                                      \
  GTEST_SKIP() << "needs Kernel Tuner's T1 problems (benchmark_hub): set AOE_KERNEL_TUNER_DATA to the " \
                  "folder holding kernels/convolution_milo.json and kernels/dedispersion_milo.json"

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The config of the named values, every other parameter at its Default.
std::vector<json> values_of(const T1Problem& p, const std::map<std::string, json>& chosen) {
  std::vector<json> out;
  for (const auto& parameter : p.parameters.parameters) {
    const auto it = chosen.find(parameter.name);
    out.push_back(it != chosen.end() ? it->second : parameter.default_value.value_or(parameter.values.front()));
  }
  return out;
}

// --- The project's own problems ---------------------------------------------

TEST(T1Problem, ReadsTheConvolution) {
  const T1Problem p = read_t1_problem(kProblems / "convolution_small.json");
  EXPECT_EQ(p.kernel_name, "convolution_kernel");
  EXPECT_EQ(p.kernel_file, fs::canonical(kProblems / "convolution_small.cu"));
  EXPECT_TRUE(contains(p.kernel_text, "__constant__ float d_filter"));
  EXPECT_EQ(p.compiler_options, std::vector<std::string>{"-std=c++11"});
  EXPECT_EQ(p.problem_size, (std::vector<uint64_t>{256, 256}));
  EXPECT_EQ(p.parameters.names(),
            (std::vector<std::string>{"block_size_x", "block_size_y", "tile_size_x", "tile_size_y", "read_only",
                                      "use_padding", "use_shmem", "filter_height", "filter_width"}));
  EXPECT_EQ(p.parameters.conditions.size(), 3u);
  ASSERT_EQ(p.arguments.size(), 3u);
  EXPECT_EQ(p.arguments[0].name, "output_image");
  EXPECT_TRUE(p.arguments[0].output);
  EXPECT_EQ(p.arguments[0].elements, 256u * 256u);
  EXPECT_EQ(p.arguments[0].fill, FillType::constant);
  EXPECT_EQ(p.arguments[1].elements, 260u * 260u);  // (256 + max(filter_width) - 1)^2
  EXPECT_EQ(p.arguments[1].fill, FillType::random);
  EXPECT_EQ(p.arguments[1].access, AccessType::read_only);
  EXPECT_EQ(p.arguments[2].name, "d_filter");
  EXPECT_TRUE(p.arguments[2].constant_memory);
  EXPECT_EQ(p.arguments[2].elements, 25u);
  EXPECT_EQ(p.argument_bytes(), 4u * (65536 + 67600 + 25));
}

TEST(T1Problem, ReadsTheVectorAddWithAScalar) {
  const T1Problem p = read_t1_problem(kProblems / "vector_add.json");
  EXPECT_EQ(p.kernel_name, "vector_add");
  ASSERT_EQ(p.arguments.size(), 4u);
  const T1Argument& n = p.arguments[3];
  EXPECT_TRUE(n.scalar);
  EXPECT_EQ(n.type, ElementType::int32);
  EXPECT_EQ(n.bytes(), 4u);
  const auto bytes = t1_initial_data(n, 0);
  int32_t value = 0;
  std::memcpy(&value, bytes.data(), sizeof value);
  EXPECT_EQ(value, 100000);
}

TEST(T1Problem, ItsParametersMakeTheTuningSpace) {
  const T1Problem p = read_t1_problem(kProblems / "convolution_small.json");
  const ParameterSpace space(p.parameters);
  EXPECT_EQ(space.space().size(), 4.0 * 5 * 3 * 3 * 2 * 2 * 2);
  const auto config = space.config_of(values_of(p, {}));
  ASSERT_TRUE(config);
  EXPECT_TRUE(space.check(*config).ok());
  const auto padded_global = space.config_of(values_of(p, {{"use_shmem", 0}, {"use_padding", 1}}));
  const auto verdict = space.check(*padded_global);
  EXPECT_FALSE(verdict.ok());
  EXPECT_TRUE(contains(verdict.message, "use_padding==0 or use_shmem != 0")) << verdict.message;
  EXPECT_EQ(space.describe(*config)["block_size_x"], 16);
}

// --- Benchmark_hub's problems ------------------------------------------------

// How many configs of the knobs' product the problem's conditions accept.
uint64_t accepted(const T1Problem& p) {
  const ParameterSpace space(p.parameters);
  uint64_t n = 0;
  sdk::for_each_config(space.space(), [&](const sdk::Config& c) { n += space.broken_condition(c) == nullptr; });
  return n;
}

TEST(T1Problem, ReadsBenchmarkHubsConvolution) {
  AOE_REQUIRE_KERNEL_TUNER_DATA();
  const T1Problem p = read_t1_problem(kernel_tuner_data() / "kernels" / "convolution_milo.json");
  EXPECT_EQ(p.kernel_name, "convolution_kernel");
  EXPECT_EQ(p.kernel_file.filename(), "convolution_milo.cu");
  EXPECT_EQ(p.parameters.parameters.size(), 10u);
  EXPECT_EQ(ParameterSpace(p.parameters).space().size(), 10240.0);
  EXPECT_EQ(accepted(p), 4362u);                      // exactly the configs Kernel Tuner recorded (the replay README)
  EXPECT_EQ(p.arguments[1].elements, 4110u * 4110u);  // (4096 + 15 - 1)^2
  EXPECT_EQ(p.arguments[2].elements, 225u);
  EXPECT_TRUE(p.arguments[2].constant_memory);

  // 48 x 3 threads' outputs across: ceil(4096 / 144) = 29 blocks; 4 x 2 down: ceil(4096 / 8) = 512.
  const auto g =
      t1_launch(p, values_of(p, {{"block_size_x", 48}, {"tile_size_x", 3}, {"block_size_y", 4}, {"tile_size_y", 2}}));
  EXPECT_EQ(g.grid, (std::array<unsigned, 3>{29, 512, 1}));
  EXPECT_EQ(g.block, (std::array<unsigned, 3>{48, 4, 1}));
  // Its kernel is not extern "C": Kernel Tuner wraps it so it is found by name.
  const std::string source = t1_kernel_source(p, values_of(p, {}), t1_launch(p, values_of(p, {})));
  EXPECT_EQ(source.rfind("extern \"C\" {\n#define grid_size_x 256\n", 0), 0u) << source.substr(0, 200);
}

TEST(T1Problem, ReadsBenchmarkHubsDedispersionAsWritten) {
  AOE_REQUIRE_KERNEL_TUNER_DATA();
  const T1Problem p = read_t1_problem(kernel_tuner_data() / "kernels" / "dedispersion_milo.json");
  EXPECT_EQ(p.kernel_name, "dedispersion_kernel");
  EXPECT_EQ(p.kernel_file.filename(), "dedispersion.cu.hip");  // the HIP spelling, as the file names it
  EXPECT_EQ(ParameterSpace(p.parameters).space().size(), 22272.0);
  EXPECT_EQ(accepted(p), 11130u);
  EXPECT_EQ(p.arguments[0].elements, 1u);  // "Size": "1", as written
  EXPECT_EQ(p.arguments[1].elements, 25000u * 2048u);

  // x: 16 x 2 -> ceil(25000 / 32) = 782; y: 32 x 3 -> ceil(2048 / 96) = 22; z: no GridDivZ, block_size_z 1.
  const auto values =
      values_of(p, {{"block_size_x", 16}, {"tile_size_x", 2}, {"block_size_y", 32}, {"tile_size_y", 3}});
  const auto g = t1_launch(p, values);
  EXPECT_EQ(g.grid, (std::array<unsigned, 3>{782, 22, 1}));
  EXPECT_EQ(g.block, (std::array<unsigned, 3>{16, 32, 1}));
  // loop_unroll_factor_channel 0: Kernel Tuner removes the pragma and defines nothing.
  const std::string source = t1_kernel_source(p, values, g);
  EXPECT_FALSE(contains(source, "loop_unroll_factor_channel\n#"));
  EXPECT_FALSE(contains(source, "#pragma unroll loop_unroll_factor_channel"));
  EXPECT_FALSE(contains(source, "#define loop_unroll_factor_channel"));
  EXPECT_TRUE(contains(t1_compile_options(p).back(), "std=") || contains(t1_compile_options(p).front(), "std="));
}

// --- Launch geometry ------------------------------------------------------------

TEST(T1Launch, DividesTheProblemByTheGridDivisorsRoundingUp) {
  const T1Problem conv = read_t1_problem(kProblems / "convolution_small.json");
  // 32 x 2 across: 256 / 64 = 4; 4 x 2 down: 256 / 8 = 32.
  auto g = t1_launch(
      conv, values_of(conv, {{"block_size_x", 32}, {"tile_size_x", 2}, {"block_size_y", 4}, {"tile_size_y", 2}}));
  EXPECT_EQ(g.grid, (std::array<unsigned, 3>{4, 32, 1}));
  EXPECT_EQ(g.block, (std::array<unsigned, 3>{32, 4, 1}));
  EXPECT_EQ(g.shared_bytes, 0u);
  // 128 x 4 = 512 across: 256 / 512 rounds up to 1.
  g = t1_launch(conv, values_of(conv, {{"block_size_x", 128}, {"tile_size_x", 4}}));
  EXPECT_EQ(g.grid[0], 1u);

  const T1Problem add = read_t1_problem(kProblems / "vector_add.json");
  // 256 x 4 = 1024 per block: ceil(100000 / 1024) = 98; y and z: 1, block_size_y/z absent.
  g = t1_launch(add, values_of(add, {{"block_size_x", 256}, {"tile_size_x", 4}}));
  EXPECT_EQ(g.grid, (std::array<unsigned, 3>{98, 1, 1}));
  EXPECT_EQ(g.block, (std::array<unsigned, 3>{256, 1, 1}));
}

// --- Sources ------------------------------------------------------------------

TEST(T1Source, PrependsKernelTunersDefinesToTheFile) {
  const T1Problem p = read_t1_problem(kProblems / "convolution_small.json");
  const auto values = values_of(p, {{"block_size_x", 32}, {"tile_size_x", 2}, {"block_size_y", 4}, {"tile_size_y", 2}});
  const std::string source = t1_kernel_source(p, values, t1_launch(p, values));
  const std::string expected_prefix =
      "#define grid_size_x 4\n#define grid_size_y 32\n#define grid_size_z 1\n"
      "#define block_size_x 32\n#define block_size_y 4\n#define block_size_z 1\n"
      "#define tile_size_x 2\n#define tile_size_y 2\n#define read_only 0\n#define use_padding 0\n"
      "#define use_shmem 1\n#define filter_height 5\n#define filter_width 5\n#define kernel_tuner 1\n#line 1\n";
  EXPECT_EQ(source, expected_prefix + p.kernel_text);  // the file has extern "C": no wrapping

  const auto options = t1_compile_options(p);
  EXPECT_EQ(options, (std::vector<std::string>{"-std=c++11", "-I" + p.kernel_file.parent_path().string()}));
}

// --- Arguments' data ------------------------------------------------------------

TEST(T1Data, FillsConstantAndSeededRandomData) {
  const T1Problem p = read_t1_problem(kProblems / "convolution_small.json");
  const auto zeros = t1_initial_data(p.arguments[0], 1);
  ASSERT_EQ(zeros.size(), p.arguments[0].bytes());
  std::vector<float> f(p.arguments[0].elements, 1.0f);
  std::memcpy(f.data(), zeros.data(), zeros.size());
  for (float v : f) ASSERT_EQ(v, 0.0f);

  const auto a = t1_initial_data(p.arguments[1], 7);
  EXPECT_EQ(a, t1_initial_data(p.arguments[1], 7));
  EXPECT_NE(a, t1_initial_data(p.arguments[1], 8));
  std::vector<float> r(p.arguments[1].elements);
  std::memcpy(r.data(), a.data(), a.size());
  double sum = 0;
  for (float v : r) {
    ASSERT_GE(v, 0.0f);
    ASSERT_LT(v, 1.0f);
    sum += v;
  }
  EXPECT_NEAR(sum / static_cast<double>(r.size()), 0.5, 0.01);
}

TEST(T1Data, HalvesRoundToNearestEven) {
  EXPECT_EQ(to_half(1.0f), 0x3c00);
  EXPECT_EQ(to_half(-2.0f), 0xc000);
  EXPECT_EQ(to_half(65504.0f), 0x7bff);
  EXPECT_EQ(to_half(70000.0f), 0x7c00);
  EXPECT_EQ(to_half(0.0f), 0x0000);
  EXPECT_EQ(to_half(0x1.0p-24f), 0x0001);
  EXPECT_EQ(to_half(1.0f + 0x1.0p-11f), 0x3c00);  // halfway: to even
  EXPECT_EQ(to_half(1.0f + 0x1.8p-11f), 0x3c01);
}

// --- Hostile problems -----------------------------------------------------------

class HostileT1 : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("aoe_t1_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "problem");
    fs::copy_file(kProblems / "vector_add.cu", dir_ / "problem" / "vector_add.cu");
    std::ifstream in(kProblems / "vector_add.json");
    doc_ = ordered_json::parse(in);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The error reading the problem after `edit`; the test fails when it reads.
  std::string error(const std::function<void(ordered_json&)>& edit, uint64_t max_bytes = kDefaultMaxArgumentBytes) {
    ordered_json doc = doc_;
    edit(doc);
    const fs::path file = dir_ / "problem" / "vector_add.json";
    std::ofstream(file) << doc.dump(2);
    try {
      read_t1_problem(file, max_bytes);
    } catch (const sdk::Error& e) {
      EXPECT_EQ(e.code(), sdk::StatusCode::invalid_argument);
      EXPECT_TRUE(contains(e.what(), file.string())) << e.what();
      return e.what();
    }
    ADD_FAILURE() << "read: " << doc.dump();
    return {};
  }

  ordered_json& argument(ordered_json& doc, size_t i) { return doc["KernelSpecification"]["Arguments"][i]; }

  fs::path dir_;
  ordered_json doc_;
};

TEST_F(HostileT1, UnknownKeysAreRefusedByName) {
  auto e = error([](ordered_json& d) { d["KernelSpecification"]["GridSize"] = 1; });
  EXPECT_TRUE(contains(e, "KernelSpecification.GridSize is not a key of the T1 format")) << e;
  e = error([&](ordered_json& d) { argument(d, 1)["Fill"] = "Random"; });
  EXPECT_TRUE(contains(e, "KernelSpecification.Arguments[1] (a).Fill is not a key")) << e;
  e = error([](ordered_json& d) { d["Tuning"] = ordered_json::object(); });
  EXPECT_TRUE(contains(e, ": Tuning is not a key")) << e;
}

TEST_F(HostileT1, MissingAndMistypedKeysAreRefusedByName) {
  auto e = error([](ordered_json& d) { d["KernelSpecification"].erase("KernelName"); });
  EXPECT_TRUE(contains(e, "KernelSpecification.KernelName is missing")) << e;
  e = error([](ordered_json& d) { d["KernelSpecification"].erase("ProblemSize"); });
  EXPECT_TRUE(contains(e, "KernelSpecification.ProblemSize is missing")) << e;
  e = error([](ordered_json& d) { d["KernelSpecification"]["KernelName"] = 5; });
  EXPECT_TRUE(contains(e, "KernelSpecification.KernelName is 5, not a non-empty string")) << e;
  e = error([](ordered_json& d) { d["KernelSpecification"]["ProblemSize"] = {100, "n"}; });
  EXPECT_TRUE(contains(e, "KernelSpecification.ProblemSize[1] is \"n\", not a whole number")) << e;
  e = error([&](ordered_json& d) { argument(d, 0).erase("Size"); });
  EXPECT_TRUE(contains(e, "Arguments[0] (c).Size is missing")) << e;
  e = error([&](ordered_json& d) { argument(d, 3).erase("FillValue"); });
  EXPECT_TRUE(contains(e, "Arguments[3] (n).FillValue is missing")) << e;
  e = error([&](ordered_json& d) { argument(d, 3)["FillValue"] = 1.5; });
  EXPECT_TRUE(contains(e, "Arguments[3] (n).FillValue is 1.5, which a int32 cannot hold")) << e;
  e = error([&](ordered_json& d) { argument(d, 1)["Type"] = "float4"; });
  EXPECT_TRUE(contains(e, "Arguments[1] (a).Type is 'float4'")) << e;
  e = error([&](ordered_json& d) { argument(d, 1)["FillType"] = "Script"; });
  EXPECT_TRUE(contains(e, "Arguments[1] (a).FillType is 'Script'")) << e;
  e = error([&](ordered_json& d) { argument(d, 1)["MemoryType"] = "Local"; });
  EXPECT_TRUE(contains(e, "Arguments[1] (a).MemoryType is 'Local'")) << e;
  e = error([](ordered_json& d) { d["KernelSpecification"]["Language"] = "OpenCL"; });
  EXPECT_TRUE(contains(e, "KernelSpecification.Language is 'OpenCL': the cuda device compiles CUDA only")) << e;
  e = error([](ordered_json& d) { d["ConfigurationSpace"]["TuningParameters"][0]["Type"] = "integer"; });
  EXPECT_TRUE(contains(e, "ConfigurationSpace.TuningParameters[0].Type is 'integer'")) << e;
  e = error([](ordered_json& d) { d["ConfigurationSpace"]["TuningParameters"][0]["Name"] = "grid_size_x"; });
  EXPECT_TRUE(contains(e, "'grid_size_x', a name Kernel Tuner keeps")) << e;
}

TEST_F(HostileT1, BadExpressionsAreRefusedNamingTheKey) {
  auto e = error([&](ordered_json& d) { argument(d, 1)["Size"] = "ProblemSize[0] *"; });
  EXPECT_TRUE(contains(e, "Arguments[1] (a).Size: cannot parse expression \"ProblemSize[0] *\"")) << e;
  e = error([&](ordered_json& d) { argument(d, 1)["Size"] = "ProblemSize[1]"; });
  EXPECT_TRUE(contains(e, "ProblemSize has 1 entries")) << e;
  e = error([&](ordered_json& d) { argument(d, 1)["Size"] = "ProblemSize[0] * block_size_x"; });
  EXPECT_TRUE(contains(e, "'block_size_x' has many values here: write max(block_size_x)")) << e;
  e = error([&](ordered_json& d) { argument(d, 1)["Size"] = "2 ** 70"; });
  EXPECT_TRUE(contains(e, "past 64 bits")) << e;
  e = error([&](ordered_json& d) { argument(d, 1)["Size"] = "ProblemSize[0] // 0"; });
  EXPECT_TRUE(contains(e, "division or modulo by zero")) << e;
  e = error([&](ordered_json& d) { argument(d, 1)["Size"] = "1 - ProblemSize[0]"; });
  EXPECT_TRUE(contains(e, "a Size is at least 1 element")) << e;
  e = error([&](ordered_json& d) { argument(d, 1)["Size"] = "open(x)"; });
  EXPECT_TRUE(contains(e, "calls such as 'open(...)' are not supported")) << e;
  e = error([](ordered_json& d) { d["KernelSpecification"]["GridDivX"] = {"block_size_x *"}; });
  EXPECT_TRUE(contains(e, "KernelSpecification.GridDivX: cannot parse")) << e;
  e = error([](ordered_json& d) {
    d["ConfigurationSpace"]["Conditions"] = {{{"Expression", "block_size_x >"}, {"Parameters", {"block_size_x"}}}};
  });
  EXPECT_TRUE(contains(e, "cannot parse condition \"block_size_x >\"")) << e;
}

TEST_F(HostileT1, SizesPastTheLimitAreRefusedBeforeAllocating) {
  // 3 x 100000 floats: 1.2 MB; a 1 MB limit refuses the third, naming it and its size.
  auto e = error([](ordered_json&) {}, 1000000);
  EXPECT_TRUE(contains(e, "Arguments[2] (b) takes 100000 elements of float")) << e;
  EXPECT_TRUE(contains(e, "past the limit of 1000000 bytes")) << e;
  e = error([&](ordered_json& d) { argument(d, 1)["Size"] = "ProblemSize[0] ** 4"; });
  EXPECT_TRUE(contains(e, "Arguments[1] (a) takes 100000000000000000000") || contains(e, "past 64 bits")) << e;
  e = error([&](ordered_json& d) { argument(d, 1)["Size"] = "ProblemSize[0] ** 3"; });
  EXPECT_TRUE(contains(e, "Arguments[1] (a) takes 1000000000000000 elements")) << e;
}

TEST_F(HostileT1, AKernelFileOutsideTheFolderIsRefused) {
  std::ofstream(dir_ / "outside.cu") << "extern \"C\" __global__ void vector_add() {}\n";
  auto e = error([](ordered_json& d) { d["KernelSpecification"]["KernelFile"] = "../outside.cu"; });
  EXPECT_TRUE(contains(e, "KernelSpecification.KernelFile '../outside.cu' leaves the problem's folder")) << e;
  e = error([&](ordered_json& d) { d["KernelSpecification"]["KernelFile"] = (dir_ / "outside.cu").string(); });
  EXPECT_TRUE(contains(e, "is an absolute path")) << e;
  fs::create_symlink(dir_ / "outside.cu", dir_ / "problem" / "linked.cu");
  e = error([](ordered_json& d) { d["KernelSpecification"]["KernelFile"] = "linked.cu"; });
  EXPECT_TRUE(contains(e, "KernelSpecification.KernelFile 'linked.cu' is a link that leaves the problem's folder"))
      << e;
  e = error([](ordered_json& d) { d["KernelSpecification"]["KernelFile"] = "missing.cu"; });
  EXPECT_TRUE(contains(e, "KernelSpecification.KernelFile 'missing.cu' is not a file in")) << e;
}

// --- Size expressions -------------------------------------------------------------

TEST(SizeExpression, ReadsProblemSizeAndTheParametersExtremes) {
  replay::ExpressionNames names;
  names.sequences["ProblemSize"] = {replay::Number::of(int64_t{4096}), replay::Number::of(int64_t{2048})};
  names.domains["filter_width"] = {replay::Number::of(int64_t{3}), replay::Number::of(int64_t{15}),
                                   replay::Number::of(int64_t{7})};
  const auto eval = [&](const std::string& text) { return replay::Expression(text, names, "test").evaluate({}); };
  EXPECT_EQ(eval("(ProblemSize[0]+max(filter_width)-1) * ProblemSize[1]").i, (4096 + 14) * 2048);
  EXPECT_EQ(eval("min(filter_width)").i, 3);
  EXPECT_EQ(eval("ProblemSize[0] / 2").f, 2048.0);
}

// --- Cachefiles --------------------------------------------------------------------

TEST(CachefileWriter, WritesWhatTheReplayReaderReadsBack) {
  const fs::path file = fs::temp_directory_path() / ("aoe_t1_cache_" + std::to_string(::getpid()) + ".json");
  replay::Cachefile header;
  header.device_name = "NVIDIA H100";
  header.kernel_name = "vector_add";
  header.problem_size = json::array({100000});
  header.objective = "time";
  header.keys = {"block_size_x", "tile_size_x"};
  header.domains = {{32, 64}, {1, 2}};
  replay::CachefileWriter writer(file, header);

  std::vector<replay::Record> records(4);
  records[0].values = {32, 1};
  records[0].time_ms = 0.5;
  records[0].times_ms = {0.4, 0.5, 0.6};
  records[0].compile_ms = 120;
  records[0].benchmark_ms = 3.5;
  records[0].framework_ms = 0.25;
  records[0].verification_ms = 1;
  records[1].values = {32, 2};
  records[1].outcome = replay::Outcome::compile_failed;
  records[1].compile_ms = 80;
  records[2].values = {64, 1};
  records[2].outcome = replay::Outcome::runtime_failed;
  records[3].values = {64, 2};
  records[3].outcome = replay::Outcome::invalid;
  for (const auto& r : records) writer.add(r);
  records[0].time_ms = 0.45;  // measured again: replaces the entry, keeps its place
  writer.add(records[0]);
  writer.save();

  const replay::Cachefile back = replay::read_cachefile(file);
  fs::remove(file);
  EXPECT_EQ(back.device_name, "NVIDIA H100");
  EXPECT_EQ(back.kernel_name, "vector_add");
  EXPECT_EQ(back.problem_size, json::array({100000}));
  EXPECT_EQ(back.objective, "time");
  EXPECT_EQ(back.keys, header.keys);
  EXPECT_EQ(back.domains, header.domains);
  ASSERT_EQ(back.records.size(), records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    const auto& a = records[i];
    const auto& b = back.records[i];
    EXPECT_EQ(b.key, replay::cache_key(a.values));
    EXPECT_EQ(b.values, a.values);
    EXPECT_EQ(b.outcome, a.outcome);
    EXPECT_EQ(b.time_ms, a.time_ms);
    EXPECT_EQ(b.times_ms, a.times_ms);
    EXPECT_EQ(b.compile_ms, a.compile_ms);
    EXPECT_EQ(b.benchmark_ms, a.benchmark_ms);
    EXPECT_EQ(b.framework_ms, a.framework_ms);
    EXPECT_EQ(b.verification_ms, a.verification_ms);
  }
  EXPECT_EQ(back.records[0].key, "32,1");
  EXPECT_EQ(replay::cache_key({16, 1.5, true, "x"}), "16,1.5,True,x");
}

}  // namespace
}  // namespace aoe::cuda
