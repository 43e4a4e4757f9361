// A chip's measured kernel profile read, mapped to the simulator's models
// (cann_kernels.h) and scored by sim_fidelity_bench: rows as CANN's profiler
// writes them, hostile ones included.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <utility>

#include "aoe/sdk/error.h"
#include "cann_kernels.h"
#include "child_process.h"
#include "data_move_model.h"
#include "epilogue.h"
#include "kernel_profile.h"
#include "op_model.h"
#include "reduce_model.h"
#include "soc_files.h"

namespace {

namespace fs = std::filesystem;
using aoe::sim::modelled_kernel;
using aoe::sim::parse_profiled_tensor;
using aoe::sim::ProfiledKernel;
using aoe::sim::read_kernel_profile;

const char* kHeader = "op_name,op_type,block_dim,inputs,outputs,measured_us\n";
// ResNet-50's stem: a 7x7 stride-2 conv with batch-norm statistics fused in.
const char* kStem =
    "conv1,FusionOp_Conv2D_BNTrainingReduce,30,\"NC1HWC0:float:32,1,224,224,16|FracZ:float:49,4,16,16\","
    "\"NC1HWC0:float:32,4,112,112,16|NC1HWC0:float16:1,4,1,1,16|NC1HWC0:float16:1,4,1,1,16\",365.3\n";
// Batch-norm's update with ReLU fused: x, six per-channel vectors (sum,
// square sum, scale, offset, running mean and variance); four per-channel
// outputs, y and ReLU's bit mask.
const char* kBnRelu =
    "bn1,FusionOp_BNTrainingUpdate_ReLUV2,30,\"NC1HWC0:float:32,4,56,56,16|NC1HWC0:float16:1,4,1,1,16|"
    "NC1HWC0:float16:1,4,1,1,16|NC1HWC0:float16:1,4,1,1,16|NC1HWC0:float16:1,4,1,1,16|NC1HWC0:float16:1,4,1,1,16|"
    "NC1HWC0:float16:1,4,1,1,16\",\"NC1HWC0:float16:1,4,1,1,16|NC1HWC0:float16:1,4,1,1,16|NC1HWC0:float16:1,4,1,1,16|"
    "NC1HWC0:float16:1,4,1,1,16|NC1HWC0:float:32,4,56,56,16|DefaultFormat:uint:32,4,56,56,2\",48.1\n";
const char* kMatMul =
    "fc,MatMul,32,\"FRACTAL_NZ:float:48,1024,16,16|FRACTAL_NZ:float:48,48,16,16|DefaultFormat:float:768\","
    "\"FRACTAL_NZ:float:48,1024,16,16\",295.3\n";
const char* kClean = "clean,AtomicAddrClean,1,\"NC1HWC0:float:32,4,112,112,16\",,1.6\n";
const char* kUnknown = "odd,Frobnicate,2,DefaultFormat:float16:8,DefaultFormat:float16:8,2.5\n";

struct Profile {
  fs::path dir;
  fs::path file;
  explicit Profile(const std::string& rows, const std::string& header = kHeader, const std::string& name = "step.csv") {
    dir = fs::temp_directory_path() / ("aoe_profile_" + std::to_string(::getpid()) + "_" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" + name);
    fs::create_directories(dir);
    file = dir / name;
    std::ofstream(file) << header << rows;
  }
  ~Profile() { fs::remove_all(dir); }
};

ProfiledKernel only_row(const std::string& row) {
  Profile p(row);
  auto kernels = read_kernel_profile(p.file).kernels;
  EXPECT_EQ(kernels.size(), 1u);
  return kernels.at(0);
}

TEST(KernelProfile, ReadsRowsAsTheProfilerWritesThem) {
  Profile p(std::string(kStem) + kClean + "\n" + kUnknown);
  const auto profile = read_kernel_profile(p.file);
  EXPECT_TRUE(profile.skipped.empty());
  EXPECT_EQ(profile.time_columns, (std::map<std::string, int64_t>{{"measured_us", 3}}));
  const auto& kernels = profile.kernels;
  ASSERT_EQ(kernels.size(), 3u);
  EXPECT_EQ(kernels[0].op_type, "FusionOp_Conv2D_BNTrainingReduce");
  EXPECT_EQ(kernels[0].block_dim, 30);
  EXPECT_DOUBLE_EQ(kernels[0].measured_us, 365.3);
  ASSERT_EQ(kernels[0].inputs.size(), 2u);
  EXPECT_EQ(kernels[0].inputs[1].format, "FracZ");
  EXPECT_EQ(kernels[0].inputs[1].dims, (std::vector<int64_t>{49, 4, 16, 16}));
  EXPECT_TRUE(kernels[1].outputs.empty());
  EXPECT_EQ(kernels[2].line, 5);  // a blank line counts
}

TEST(KernelProfile, TensorsOfEveryForm) {
  const auto scalar = parse_profiled_tensor("DefaultFormat:float16:");
  EXPECT_TRUE(scalar.dims.empty());
  EXPECT_EQ(scalar.dtype, aoe::sdk::DType::f16);
  const auto mask = parse_profiled_tensor("DefaultFormat:uint:32,16,56,56,2");
  EXPECT_EQ(mask.dtype, aoe::sdk::DType::undefined);
  EXPECT_EQ(mask.dtype_name, "uint");
  EXPECT_EQ(parse_profiled_tensor("ND:int32:0").dims, (std::vector<int64_t>{0}));
}

void expect_error_naming(const std::string& rows, const std::vector<std::string>& words,
                         const std::string& header = kHeader) {
  Profile p(rows, header);
  try {
    read_kernel_profile(p.file);
    ADD_FAILURE() << "read: " << rows;
  } catch (const aoe::sdk::Error& e) {
    EXPECT_EQ(e.code(), aoe::sdk::StatusCode::invalid_argument);
    for (const auto& w : words) EXPECT_NE(std::string(e.what()).find(w), std::string::npos) << e.what() << " lacks " << w;
  }
}

TEST(KernelProfile, HostileRowsNameFileLineAndColumn) {
  expect_error_naming(std::string(kStem) + "x,Cast,30,\"ND:float16:32,three\",ND:float:32,1.0\n",
                      {"step.csv:3", "'inputs'", "three"});
  expect_error_naming("x,Cast,30,ND:float16:-4,ND:float:4,1.0\n", {"step.csv:2", "'-4'"});
  expect_error_naming("x,Cast,30,ND:float16:99999999999999999999,ND:float:4,1.0\n", {"step.csv:2", "not a size"});
  // Each dim a size, but together past any chip's memory: their product would wrap int64.
  expect_error_naming("x,Cast,30,\"ND:float16:1099511627776,1099511627776\",ND:float:4,1.0\n",
                      {"step.csv:2", "'inputs'", "more than 2^40 elements"});
  expect_error_naming("x,Cast,30,ND:float16:4,float:4,1.0\n", {"'outputs'", "format:dtype:shape"});
  expect_error_naming("x,Cast,many,ND:float16:4,ND:float:4,1.0\n", {"'block_dim'", "many"});
  expect_error_naming("x,Cast,30,ND:float16:4,ND:float:4,fast\n", {"'measured_us'", "fast"});
  expect_error_naming("x,Cast,30,ND:float16:4,ND:float:4,nan\n", {"'measured_us'"});
  expect_error_naming("x,Cast,30\n", {"step.csv:2", "no value"});
  expect_error_naming("x,Cast,30,1.0\n", {"neither a compact profile's", "inputs", "Op Name"},
                      "op_name,op_type,block_dim,measured_us\n");
  expect_error_naming("", {"step.csv", "no AI-core kernel row"});
  EXPECT_THROW(read_kernel_profile("/nonexistent/step.csv"), aoe::sdk::Error);
}

double default_time(const aoe::sdk::OpTask& t);

// The same kernels as CANN's profiler writes them: msprof's op_summary_*.csv
// (a spreadsheet's byte-order mark, tab-prefixed start times, DT_ and
// FORMAT_ names, `;` between tensors, N/A where a column was not collected)
// and torch_npu's kernel_details.csv.
const char* kSummaryHeader =
    "\xEF\xBB\xBF" "Device_id,Model ID,Task ID,Stream ID,Op Name,OP Type,OP State,Task Type,Task Start Time(us),"
    "Task Duration(us),Task Wait Time(us),Block Dim,Mix Block Dim,HF32 Eligible,Input Shapes,Input Data Types,"
    "Input Formats,Output Shapes,Output Data Types,Output Formats,Context ID,aicore_time(us),aic_total_cycles\n";
const char* kSummaryStem =
    "0,1,7,2,conv1,FusionOp_Conv2D_BNTrainingReduce,static,AI_CORE,\"\t1697614536418.1\",366.1,0.2,30,N/A,N/A,"
    "\"32,1,224,224,16;49,4,16,16\",\"DT_FLOAT;DT_FLOAT\",\"FORMAT_NC1HWC0;FORMAT_FRACTAL_Z\","
    "\"32,4,112,112,16;1,4,1,1,16;1,4,1,1,16\",\"DT_FLOAT;DT_FLOAT16;DT_FLOAT16\",\"NC1HWC0;NC1HWC0;NC1HWC0\",N/A,365.3,"
    "328770\n";
const char* kSummaryCpu =
    "0,1,8,2,gather,GatherV2,static,AI_CPU,\"\t1697614536790.3\",40.5,0.3,N/A,N/A,N/A,\"128;1\",\"INT32;INT32\","
    "\"ND;ND\",\"128\",\"INT32\",\"ND\",N/A,N/A,N/A\n";
// Collected with --task-time only: no aicore_time, so the task's duration.
const char* kSummaryMatMul =
    "0,1,9,2,fc,MatMul,static,AI_CORE,\"\t1697614536801.0\",295.3,0.1,32,N/A,N/A,"
    "\"48,1024,16,16;48,48,16,16;768\",\"FLOAT;FLOAT;FLOAT\",\"FRACTAL_NZ;FRACTAL_NZ;ND\",\"48,1024,16,16\","
    "\"FLOAT\",\"FRACTAL_NZ\",N/A,N/A,N/A\n";

// `stem`, read from a profiler's own layout, is the compact kStem row: the
// same tensors, one task, one time.
void expect_reads_as_compact_stem(const ProfiledKernel& stem) {
  const ProfiledKernel compact = only_row(kStem);
  for (const auto& [got, want] : {std::pair{&stem.inputs, &compact.inputs}, std::pair{&stem.outputs, &compact.outputs}}) {
    ASSERT_EQ(got->size(), want->size());
    for (size_t i = 0; i < got->size(); ++i) {
      EXPECT_EQ((*got)[i].format, (*want)[i].format);
      EXPECT_EQ((*got)[i].dtype, (*want)[i].dtype);
      EXPECT_EQ((*got)[i].dims, (*want)[i].dims);
    }
  }
  const auto a = modelled_kernel(stem), b = modelled_kernel(compact);
  ASSERT_EQ(a.tasks.size(), 1u) << a.uncovered;
  ASSERT_EQ(b.tasks.size(), 1u) << b.uncovered;
  EXPECT_DOUBLE_EQ(default_time(a.tasks[0]), default_time(b.tasks[0]));
}

TEST(KernelProfile, ReadsCannsOpSummaryAsMsprofWritesIt) {
  Profile p(std::string(kSummaryStem) + kSummaryCpu + kSummaryMatMul, kSummaryHeader);
  const auto profile = read_kernel_profile(p.file);
  EXPECT_EQ(profile.skipped, (std::map<std::string, int64_t>{{"AI_CPU", 1}}));
  EXPECT_EQ(profile.time_columns, (std::map<std::string, int64_t>{{"aicore_time(us)", 1}, {"Task Duration(us)", 1}}));
  ASSERT_EQ(profile.kernels.size(), 2u);
  const auto& stem = profile.kernels[0];
  EXPECT_EQ(stem.line, 2);
  EXPECT_DOUBLE_EQ(stem.measured_us, 365.3);
  EXPECT_DOUBLE_EQ(profile.kernels[1].measured_us, 295.3);
  EXPECT_EQ(profile.kernels[1].line, 4);
  ASSERT_EQ(stem.outputs.size(), 3u);
  EXPECT_EQ(stem.outputs[1].dtype, aoe::sdk::DType::f16);
  expect_reads_as_compact_stem(stem);

  // torch_npu's names for the same columns; a scalar's shape is empty.
  Profile torch_npu(
      "mul,Muls,AI_VECTOR_CORE,12.0,2,\"8,16;\",\"FLOAT16;FLOAT16\",\"ND;ND\",\"8,16\",\"FLOAT16\",\"ND\"\n",
      "Name,Type,Accelerator Core,Duration(us),Block Dim,Input Shapes,Input Data Types,Input Formats,Output Shapes,"
      "Output Data Types,Output Formats\n");
  const auto muls = read_kernel_profile(torch_npu.file);
  ASSERT_EQ(muls.kernels.size(), 1u);
  EXPECT_EQ(muls.time_columns, (std::map<std::string, int64_t>{{"Duration(us)", 1}}));
  ASSERT_EQ(muls.kernels[0].inputs.size(), 2u);
  EXPECT_TRUE(muls.kernels[0].inputs[1].dims.empty());
  EXPECT_EQ(muls.kernels[0].block_dim, 2);
}

// MindSpore's profiler output: framework_raw_<N>.csv (op_info a JSON of
// each tensor) timed by aicore_intermediate_<N>_detail.csv beside it (ms).
const char* kRawHeader = "task_id,stream_id,block_dim,full_op_name,op_name,op_type,subgraph,op_info\n";
std::string raw_tensor(const std::string& key, const std::string& format, const std::string& dtype, const std::string& shape) {
  return "\"\"" + key + "\"\": {\"\"format\"\": \"\"" + format + "\"\", \"\"data_type\"\": \"\"NUMBER_TYPE_" + dtype +
         "\"\", \"\"shape\"\": \"\"" + shape + "\"\"}";
}
// The stem as a profiler whose type names match the framework's writes it
// (`map` FLOAT32), and as MindSpore 1.x's wrote it, each name the type's
// before it (`map` FLOAT for float16 maps, FLOAT16 for float32 statistics).
std::string raw_stem(const std::string& map) {
  return "3,14,30,Default/net/conv1/FusionOp_Conv2D_BNTrainingReduce-op9132,FusionOp_Conv2D_BNTrainingReduce-op9132,"
         "FusionOp_Conv2D_BNTrainingReduce,Default,\"{" +
         raw_tensor("input_0", "NC1HWC0", map, "32,1,224,224,16") + ", " + raw_tensor("input_1", "FracZ", map, "49,4,16,16") +
         ", " + raw_tensor("output_0", "NC1HWC0", map, "32,4,112,112,16") + ", " +
         raw_tensor("output_1", "NC1HWC0", "FLOAT16", "1,4,1,1,16") + ", " +
         raw_tensor("output_2", "NC1HWC0", "FLOAT16", "1,4,1,1,16") + "}\"\n";
}
const std::string kRawStem = raw_stem("FLOAT32");
// Run on the AI CPU: the detail file does not time it.
const std::string kRawCpu = "4,14,1,Default/net/DropoutGenMask-op12,DropoutGenMask-op12,DropoutGenMask,Default,\"{" +
                            raw_tensor("input_0", "DefaultFormat", "INT32", "2") + "}\"\n";
const std::string kRawClean = "5,14,1,Default/AtomicAddrClean-op7,AtomicAddrClean-op7,AtomicAddrClean,Default,\"{" +
                              raw_tensor("input_0", "NC1HWC0", "FLOAT16", "32,4,112,112,16") + "}\"\n";
const char* kDetail =
    "full_op_name,execution_time\nDefault/net/conv1/FusionOp_Conv2D_BNTrainingReduce-op9132,0.3653\n"
    "Default/AtomicAddrClean-op7,0.0016\n";

struct MindSporeProfile : Profile {
  explicit MindSporeProfile(const std::string& rows, const std::string& detail = kDetail,
                            const std::string& name = "framework_raw_0.csv")
      : Profile(rows, kRawHeader, name) {
    if (!detail.empty()) std::ofstream(dir / "aicore_intermediate_0_detail.csv") << detail;
  }
};

TEST(KernelProfile, ReadsMindSporesFrameworkRawTimedByTheDetailBesideIt) {
  MindSporeProfile p(kRawStem + kRawCpu + kRawClean);
  const auto profile = read_kernel_profile(p.file);
  EXPECT_EQ(profile.skipped, (std::map<std::string, int64_t>{{"not in aicore_intermediate_0_detail.csv", 1}}));
  EXPECT_EQ(profile.time_columns,
            (std::map<std::string, int64_t>{{"aicore_intermediate_0_detail.csv execution_time", 2}}));
  ASSERT_EQ(profile.kernels.size(), 2u);
  const auto& stem = profile.kernels[0];
  EXPECT_EQ(stem.name, "FusionOp_Conv2D_BNTrainingReduce-op9132");
  EXPECT_EQ(stem.block_dim, 30);
  EXPECT_NEAR(stem.measured_us, 365.3, 1e-9);  // written in ms
  EXPECT_EQ(profile.kernels[1].line, 4);
  expect_reads_as_compact_stem(stem);

  // Named otherwise, the profile takes the one detail file beside it.
  MindSporeProfile renamed(kRawStem, kDetail, "resnet50.csv");
  EXPECT_EQ(read_kernel_profile(renamed.file).kernels.size(), 1u);
}

// A type no tensor of a MindSpore step has (the generic FLOAT, UINT, INT, the
// enum's BEGIN, or INT16; in a compact profile converted from such a file,
// uint, int, begin or int16) shows the shifted table: every label is read one type on. Without one, or
// when asked, labels are read as written.
TEST(KernelProfile, MindSporesShiftedTypeLabelsAreReadOneTypeOn) {
  MindSporeProfile raw(raw_stem("FLOAT"));
  const auto shifted = read_kernel_profile(raw.file);
  EXPECT_EQ(shifted.labels_shifted_by, "float");
  const auto& stem = shifted.kernels.at(0);
  EXPECT_EQ(stem.inputs[0].dtype_name, "float16");
  EXPECT_EQ(stem.inputs[0].dtype, aoe::sdk::DType::f16);
  EXPECT_EQ(stem.outputs[1].dtype_name, "float32");
  EXPECT_EQ(stem.outputs[1].dtype, aoe::sdk::DType::f32);
  const auto written = read_kernel_profile(raw.file, aoe::sim::DtypeLabels::as_written);
  EXPECT_TRUE(written.labels_shifted_by.empty());
  EXPECT_EQ(written.kernels.at(0).inputs[0].dtype, aoe::sdk::DType::f32);
  EXPECT_EQ(written.kernels.at(0).outputs[1].dtype, aoe::sdk::DType::f16);

  // A compact profile keeps the generic uint of ReLU's mask.
  Profile compact(std::string(kStem) + kBnRelu);
  const auto read = read_kernel_profile(compact.file);
  EXPECT_EQ(read.labels_shifted_by, "uint");
  const auto& bn = read.kernels.at(1);
  EXPECT_EQ(bn.inputs[0].dtype, aoe::sdk::DType::f16);
  EXPECT_EQ(bn.inputs[1].dtype, aoe::sdk::DType::f32);
  EXPECT_EQ(bn.outputs.back().dtype_name, "uint8");
  EXPECT_EQ(read.kernels.at(0).inputs[0].dtype, aoe::sdk::DType::f16);

  // Nor an int16, which a step's indices and counters (int32) are written as.
  Profile gather(std::string(kStem) + "g,Gather,1,\"DefaultFormat:float:15625|DefaultFormat:int16:1\",DefaultFormat:float:1,1.2\n");
  const auto indexed = read_kernel_profile(gather.file);
  EXPECT_EQ(indexed.labels_shifted_by, "int16");
  EXPECT_EQ(indexed.kernels.at(1).inputs[1].dtype, aoe::sdk::DType::i32);

  // Without such a name, a compact float is CANN's float32.
  Profile plain(kStem);
  const auto as_is = read_kernel_profile(plain.file);
  EXPECT_TRUE(as_is.labels_shifted_by.empty());
  EXPECT_EQ(as_is.kernels.at(0).inputs[0].dtype, aoe::sdk::DType::f32);
}

TEST(KernelProfile, HostileMindSporeFilesNameTheFileTheRowAndTheColumn) {
  // No detail beside it: nothing times the rows.
  {
    MindSporeProfile p(kRawStem, "");
    try {
      read_kernel_profile(p.file);
      ADD_FAILURE() << "read without its detail";
    } catch (const aoe::sdk::Error& e) {
      EXPECT_NE(std::string(e.what()).find("aicore_intermediate_0_detail.csv"), std::string::npos) << e.what();
    }
  }
  auto expect_naming = [](const MindSporeProfile& p, const std::vector<std::string>& words) {
    try {
      read_kernel_profile(p.file);
      ADD_FAILURE() << "read " << p.file;
    } catch (const aoe::sdk::Error& e) {
      EXPECT_EQ(e.code(), aoe::sdk::StatusCode::invalid_argument);
      for (const auto& w : words) EXPECT_NE(std::string(e.what()).find(w), std::string::npos) << e.what() << " lacks " << w;
    }
  };
  expect_naming(MindSporeProfile("3,14,30,Default/AtomicAddrClean-op7,AtomicAddrClean-op7,AtomicAddrClean,Default,{oops\n"),
                {"framework_raw_0.csv:2", "'op_info'", "JSON"});
  expect_naming(MindSporeProfile("3,14,30,Default/AtomicAddrClean-op7,AtomicAddrClean-op7,AtomicAddrClean,Default,\"{" +
                                 raw_tensor("input_0", "NC1HWC0", "FLOAT16", "32,x") + "}\"\n"),
                {"framework_raw_0.csv:2", "'op_info'", "'x'"});
  expect_naming(MindSporeProfile("3,14,30,Default/AtomicAddrClean-op7,AtomicAddrClean-op7,AtomicAddrClean,Default,"
                                 "\"{\"\"input_0\"\": 4}\"\n"),
                {"framework_raw_0.csv:2", "input_0"});
  expect_naming(MindSporeProfile(kRawClean, "full_op_name,execution_time\nDefault/AtomicAddrClean-op7,soon\n"),
                {"aicore_intermediate_0_detail.csv:2", "'execution_time'", "soon"});
  expect_naming(MindSporeProfile(kRawClean, "full_op_name,time\n"), {"aicore_intermediate_0_detail.csv", "execution_time"});
  // Two detail files beside a profile its name does not tie to either.
  MindSporeProfile two(kRawClean, kDetail, "step.csv");
  std::ofstream(two.dir / "aicore_intermediate_1_detail.csv") << kDetail;
  expect_naming(two, {"aicore_intermediate_0_detail.csv", "aicore_intermediate_1_detail.csv", "framework_raw_<N>.csv"});
}

TEST(KernelProfile, HostileOpSummaryRowsNameFileLineAndColumn) {
  const std::string row = "0,1,9,2,fc,MatMul,static,AI_CORE,0,295.3,0.1,32,N/A,N/A,";
  expect_error_naming(row + "\"48,1024,16,16;48,48,16,16\",FLOAT,\"ND;ND\",\"4\",FLOAT,ND,N/A,N/A,N/A\n",
                      {"step.csv:2", "'Input Shapes'", "list 2, 1 and 2 tensors"}, kSummaryHeader);
  expect_error_naming(row + "\"48,x\",FLOAT,ND,\"4\",FLOAT,ND,N/A,N/A,N/A\n", {"step.csv:2", "'Input Shapes'", "'x'"},
                      kSummaryHeader);
  expect_error_naming("0,1,9,2,fc,MatMul,static,AI_CORE,0,295.3,0.1,all,N/A,N/A,4,FLOAT,ND,4,FLOAT,ND,N/A,N/A,N/A\n",
                      {"step.csv:2", "'Block Dim'", "all"}, kSummaryHeader);
  expect_error_naming("0,1,9,2,fc,MatMul,static,AI_CORE,0,soon,0.1,1,N/A,N/A,4,FLOAT,ND,4,FLOAT,ND,N/A,N/A,N/A\n",
                      {"step.csv:2", "'Task Duration(us)'", "soon"}, kSummaryHeader);
  expect_error_naming("0,1,9,2,fc,N/A,static,AI_CORE,0,1.0,0.1,1,N/A,N/A,4,FLOAT,ND,4,FLOAT,ND,N/A,N/A,N/A\n",
                      {"step.csv:2", "'OP Type'"}, kSummaryHeader);
  // Nothing ran on AI cores: no kernel to score, and the rows it skipped said.
  expect_error_naming(kSummaryCpu, {"no AI-core kernel row", "AI_CPU 1"}, kSummaryHeader);
}

TEST(CannKernels, AnUnknownTypeOrAMisfitRowIsUncoveredNotAnError) {
  const auto unknown = modelled_kernel(only_row(kUnknown));
  EXPECT_TRUE(unknown.tasks.empty());
  EXPECT_NE(unknown.uncovered.find("Frobnicate"), std::string::npos);
  // A conv whose weights are not Fractal Z.
  const auto misfit = modelled_kernel(
      only_row("c,Conv2D,30,\"NC1HWC0:float16:1,1,8,8,16|ND:float16:3,3\",\"NC1HWC0:float16:1,1,8,8,16\",2.0\n"));
  EXPECT_TRUE(misfit.tasks.empty());
  EXPECT_NE(misfit.uncovered.find("Fractal Z"), std::string::npos) << misfit.uncovered;
  // Tensors of too few dims for their type, each read past its end were it not checked.
  for (const char* row : {"c,Conv2D,30,\"ND:float16:8|FracZ:float16:1,1,16,16\",\"ND:float16:8\",2.0\n",
                          "dw,Conv2DBackpropFilter,30,\"ND:float16:8|ND:float16:8\",\"FracZ:float16:1,1,16,16\",2.0\n",
                          "s,SquareSumV1,30,ND:float16:,ND:float16:,2.0\n", "l,LayerNorm,30,ND:float16:,ND:float16:,2.0\n"}) {
    const auto m = modelled_kernel(only_row(row));
    EXPECT_TRUE(m.tasks.empty()) << row;
    EXPECT_FALSE(m.uncovered.empty()) << row;
  }
}

TEST(CannKernels, TheStemConvIsASevenBySevenStrideTwoConvWithTheStatisticsFused) {
  const auto m = modelled_kernel(only_row(kStem));
  ASSERT_EQ(m.tasks.size(), 1u) << m.uncovered;
  const auto& t = m.tasks[0];
  EXPECT_EQ(t.op_type, "Conv");
  EXPECT_EQ(t.inputs[0].shape, (std::vector<int64_t>{32, 16, 224, 224}));  // C padded to C0
  EXPECT_EQ(t.inputs[1].shape, (std::vector<int64_t>{64, 16, 7, 7}));
  EXPECT_EQ(t.inputs[0].dtype, aoe::sdk::DType::f16);  // the cube's only float type
  EXPECT_EQ(t.attrs["strides"], nlohmann::json({2, 2}));
  EXPECT_EQ(t.attrs["pads"], nlohmann::json({2, 2, 3, 3}));  // 5 in all: (112 - 1) x 2 + 7 - 224
  EXPECT_EQ(t.fused_ops, (std::vector<std::string>{"BNTrainingReduce"}));
}

// Batch-norm's statistics fused into a conv are summed in fp32, the dtype
// they are kept in, on the sums before the cast to the fp16 output: their
// three passes (add, mul, add) run at fp32's width, half fp16's lanes.
TEST(CannKernels, BatchNormStatisticsFusedIntoAConvAreSummedInFp32) {
  const aoe::sim::Soc soc = aoe::sim::load_soc("ascend910_30c");
  aoe::sim::Epilogue stats, relus;
  aoe::sim::add_fused_op(stats, "BNTrainingReduce", nullptr, soc.target);
  EXPECT_EQ(stats.accumulator_passes, 3);
  EXPECT_EQ(stats.simple_passes, 0);
  for (int i = 0; i < 3; ++i) aoe::sim::add_fused_op(relus, "Relu", nullptr, soc.target);
  const int64_t tile = 128 * 256;
  EXPECT_DOUBLE_EQ(stats.vector_cycles(soc, tile, 2), 3 * aoe::sim::vector_pass_cycles(soc, tile, 4));
  EXPECT_GT(stats.vector_cycles(soc, tile, 2), 1.8 * relus.vector_cycles(soc, tile, 2));
}

TEST(CannKernels, TheWeightGradientFindsItsOperandsInEitherOrder) {
  // dW of a 1x1 conv, 512 -> 2048 channels, at 7x7: dy (2048) and x (512).
  for (const char* inputs : {"\"NC1HWC0:float:32,128,7,7,16|NC1HWC0:float:32,32,7,7,16\"",
                             "\"NC1HWC0:float:32,32,7,7,16|NC1HWC0:float:32,128,7,7,16\""}) {
    const auto m =
        modelled_kernel(only_row(std::string("dw,Conv2DBackpropFilter,16,") + inputs + ",\"FracZ:float16:32,128,16,16\",41.7\n"));
    ASSERT_EQ(m.tasks.size(), 1u) << m.uncovered;
    const auto& t = m.tasks[0];
    EXPECT_EQ(t.op_type, "Conv2DBackpropFilter");  // x, dy -> dw as the step lists them
    EXPECT_EQ(t.inputs[0].shape, (std::vector<int64_t>{32, 512, 7, 7}));
    EXPECT_EQ(t.inputs[1].shape, (std::vector<int64_t>{32, 2048, 7, 7}));
    EXPECT_EQ(t.outputs[0].shape, (std::vector<int64_t>{2048, 512, 1, 1}));
    EXPECT_EQ(t.attrs["kernel_shape"], nlohmann::json({1, 1}));
  }
}

TEST(CannKernels, FractalNzOperandsAreRowsByColumnsAndTheBiasIsFused) {
  const auto m = modelled_kernel(only_row(kMatMul));
  ASSERT_EQ(m.tasks.size(), 1u) << m.uncovered;
  const auto& t = m.tasks[0];
  EXPECT_EQ(t.inputs[0].shape, (std::vector<int64_t>{16384, 768}));
  EXPECT_EQ(t.inputs[1].shape, (std::vector<int64_t>{768, 768}));
  EXPECT_EQ(t.outputs[0].shape, (std::vector<int64_t>{16384, 768}));
  EXPECT_EQ(t.fused_ops, (std::vector<std::string>{"Add"}));
}

TEST(CannKernels, ABatchNormUpdateIsTheStepsKernelWithItsStatisticsPerChannel) {
  const auto m = modelled_kernel(only_row(kBnRelu));
  ASSERT_EQ(m.tasks.size(), 1u) << m.uncovered;
  const auto& t = m.tasks[0];
  EXPECT_EQ(t.op_type, "BNTrainingUpdate");
  EXPECT_EQ(t.fused_ops, (std::vector<std::string>{"Relu"}));
  // x, sum, square_sum, scale, offset; y, batch_mean, batch_invstd.
  ASSERT_EQ(t.inputs.size(), 5u);
  EXPECT_EQ(t.inputs[0].shape, (std::vector<int64_t>{32, 64, 56, 56}));
  for (size_t i = 1; i < 5; ++i) EXPECT_EQ(t.inputs[i].shape, (std::vector<int64_t>{64}));
  ASSERT_EQ(t.outputs.size(), 3u);
  EXPECT_EQ(t.outputs[0].elements(), 32 * 64 * 56 * 56);
  EXPECT_EQ(t.outputs[1].shape, (std::vector<int64_t>{64}));
}

TEST(CannKernels, LayoutChangesStreamAndHeadMovesAreTransposes) {
  // ND -> FRACTAL_NZ: a 100 x 2048 matrix, rows padded to 112, streamed as
  // TransData streams NCHW into NC1HWC0.
  const auto nz = modelled_kernel(only_row("t,TransData,30,\"DefaultFormat:float:100,2048\",\"FRACTAL_NZ:float:128,7,16,16\",5.8\n"));
  ASSERT_EQ(nz.tasks.size(), 1u) << nz.uncovered;
  EXPECT_EQ(nz.tasks[0].op_type, "TransData");
  EXPECT_EQ(nz.tasks[0].inputs[0].shape, (std::vector<int64_t>{112, 2048}));
  EXPECT_EQ(nz.tasks[0].outputs[0].shape, (std::vector<int64_t>{112, 2048}));
  EXPECT_EQ(nz.tasks[0].inputs[0].dtype, aoe::sdk::DType::f32);
  // Back to ND, of a batch of matrices: the batch dims lead.
  const auto nd = modelled_kernel(only_row("t,TransData,30,\"FRACTAL_NZ:float16:2,48,192,16,16\",\"DefaultFormat:float16:2,3072,768\",15.3\n"));
  ASSERT_EQ(nd.tasks.size(), 1u) << nd.uncovered;
  EXPECT_EQ(nd.tasks[0].op_type, "TransData");
  EXPECT_EQ(nd.tasks[0].inputs[0].shape, (std::vector<int64_t>{2, 3072, 768}));
  EXPECT_EQ(nd.tasks[0].inputs[0].dtype, aoe::sdk::DType::f16);
  // The heads of an attention moved back to rows: (B, H, S, D) -> (B, S, H x D).
  const auto back = modelled_kernel(only_row(
      "c,ConfusionTransposeD,128,\"FRACTAL_NZ:float:128,12,4,8,16,16\",\"FRACTAL_NZ:float:48,1024,16,16\",46.8\n"));
  ASSERT_EQ(back.tasks.size(), 1u) << back.uncovered;
  EXPECT_EQ(back.tasks[0].inputs[0].shape, (std::vector<int64_t>{128, 12, 128, 64}));
  EXPECT_EQ(back.tasks[0].outputs[0].shape, (std::vector<int64_t>{128, 128, 12, 64}));
}

// A fill is as big as what it writes: BERT's OneHot of 2560 labels over
// 21128 classes writes 216 MB (fp32, the labels read one type on), which
// takes at least that many bytes at HBM's rate; a StridedSliceGrad pads dy
// with zeros to its output.
TEST(CannKernels, AFillIsSizedByTheOutputItWrites) {
  const auto one_hot = modelled_kernel(only_row(
      "o,OneHot,20,\"DefaultFormat:int16:2560|DefaultFormat:float16:|DefaultFormat:float16:\","
      "\"DefaultFormat:float16:2560,21128\",238.3\n"));
  ASSERT_EQ(one_hot.tasks.size(), 1u) << one_hot.uncovered;
  EXPECT_EQ(one_hot.tasks[0].op_type, "OneHot");
  ASSERT_EQ(one_hot.tasks[0].outputs.size(), 1u);
  EXPECT_EQ(one_hot.tasks[0].outputs[0].shape, (std::vector<int64_t>{2560, 21128}));
  EXPECT_EQ(one_hot.tasks[0].outputs[0].dtype, aoe::sdk::DType::f32);
  const auto soc = aoe::sim::load_soc("ascend910_30c");
  const auto model = aoe::sim::op_model(soc, one_hot.tasks[0]);
  EXPECT_GE(model->time_us(model->space().default_config), 2560.0 * 21128 * 4 / soc.hbm_bytes_per_us());
  const auto slice_grad = modelled_kernel(only_row(
      "s,StridedSliceGrad,30,\"DefaultFormat:float16:128,1,768\",\"DefaultFormat:float16:128,128,768\",52.7\n"));
  ASSERT_EQ(slice_grad.tasks.size(), 1u) << slice_grad.uncovered;
  EXPECT_EQ(slice_grad.tasks[0].op_type, "Pad");
  EXPECT_EQ(slice_grad.tasks[0].inputs[0].shape, (std::vector<int64_t>{128, 1, 768}));
  EXPECT_EQ(slice_grad.tasks[0].outputs[0].shape, (std::vector<int64_t>{128, 128, 768}));
}

// ResNet-50's global mean over 7 x 7 maps: the output keeps the input's
// rank, so the axes it has 1 on are summed, H x W lane by lane under the
// C0 channels NC1HWC0 keeps innermost.
TEST(CannKernels, AGlobalMeanOverNc1hwc0MapsSumsTheirPositionsLaneByLane) {
  const auto m = modelled_kernel(only_row(
      "r,ReduceMean,30,\"NC1HWC0:float16:32,128,7,7,16\",\"NC1HWC0:float16:32,128,1,1,16\",32.8\n"));
  ASSERT_EQ(m.tasks.size(), 1u) << m.uncovered;
  const auto& t = m.tasks[0];
  EXPECT_EQ(t.op_type, "ReduceSum");
  EXPECT_EQ(t.inputs[0].shape, (std::vector<int64_t>{32 * 128, 49, 16}));
  EXPECT_EQ(t.outputs[0].shape, (std::vector<int64_t>{32 * 128, 1, 16}));
  EXPECT_EQ(t.attrs["axes"], nlohmann::json({1}));
  // An output of the input's rank that keeps part of an axis is no reduction.
  const auto odd = modelled_kernel(only_row(
      "r,ReduceMean,30,\"DefaultFormat:float16:8,6,5\",\"DefaultFormat:float16:8,3,1\",2.0\n"));
  EXPECT_TRUE(odd.tasks.empty());
  EXPECT_NE(odd.uncovered.find("keeps 3 of an axis of 6"), std::string::npos) << odd.uncovered;
}

// A profile row builds the step's op task, timed by the same model as a
// task the step derives: the two give one time.
double default_time(const aoe::sdk::OpTask& t) {
  static const aoe::sim::Soc soc = aoe::sim::load_soc("ascend910_30c");
  const auto model = aoe::sim::op_model(soc, t);
  return model->time_us(model->space().default_config);
}

// A task's time as given, and with its first input in ND.
std::pair<double, double> given_and_nd_times(aoe::sdk::OpTask t) {
  const double given = default_time(t);
  t.inputs[0].format = "ND";
  return {given, default_time(t)};
}

aoe::sdk::TensorDesc desc(std::vector<int64_t> shape, aoe::sdk::DType dtype, const std::string& format = "ND") {
  aoe::sdk::TensorDesc t;
  t.shape = std::move(shape);
  t.dtype = dtype;
  t.format = format;
  return t;
}

TEST(CannKernels, AProfileRowAndTheStepsTaskGiveOneTime) {
  using aoe::sdk::DType;
  const nlohmann::json one_by_one = {{"kernel_shape", {1, 1}}, {"strides", {1, 1}}, {"pads", {0, 0, 0, 0}},
                                     {"dilations", {1, 1}}, {"group", 1}};
  // The weight gradient of a 1x1 conv, 512 -> 2048 channels at 7x7.
  const auto dw = modelled_kernel(only_row("dw,Conv2DBackpropFilter,16,\"NC1HWC0:float:32,128,7,7,16|"
                                           "NC1HWC0:float:32,32,7,7,16\",\"FracZ:float16:32,128,16,16\",41.7\n"));
  ASSERT_EQ(dw.tasks.size(), 1u) << dw.uncovered;
  aoe::sdk::OpTask filter;
  filter.op_type = "Conv2DBackpropFilter";
  filter.inputs = {desc({32, 512, 7, 7}, DType::f16), desc({32, 2048, 7, 7}, DType::f16)};
  filter.outputs = {desc({2048, 512, 1, 1}, DType::f16)};
  filter.attrs = one_by_one;
  EXPECT_DOUBLE_EQ(default_time(dw.tasks[0]), default_time(filter));

  // Batch-norm's statistics gradient: dy and x, the batch mean and invstd per channel.
  const auto bn = modelled_kernel(only_row(
      "g,BNTrainingUpdateGrad,30,\"NC1HWC0:float:32,32,7,7,16|NC1HWC0:float:32,32,7,7,16|NC1HWC0:float16:1,32,1,1,16|"
      "NC1HWC0:float16:1,32,1,1,16\",\"NC1HWC0:float16:1,32,1,1,16|NC1HWC0:float16:1,32,1,1,16\",30.2\n"));
  ASSERT_EQ(bn.tasks.size(), 1u) << bn.uncovered;
  aoe::sdk::OpTask grad;
  grad.op_type = "BNTrainingUpdateGrad";
  grad.inputs = {desc({32, 512, 7, 7}, DType::f32), desc({32, 512, 7, 7}, DType::f32), desc({512}, DType::f16),
                 desc({512}, DType::f16)};
  grad.outputs = {desc({512}, DType::f16), desc({512}, DType::f16)};
  EXPECT_DOUBLE_EQ(default_time(bn.tasks[0]), default_time(grad));

  // FusedDbnDw: one task, the vector pass then the weight gradient.
  const auto fused = modelled_kernel(only_row(
      "f,FusedDbnDw,32,\"NC1HWC0:float:32,8,28,28,16|NC1HWC0:float:32,32,28,28,16|NC1HWC0:float:32,32,28,28,16|"
      "NC1HWC0:float16:1,32,1,1,16|NC1HWC0:float16:1,32,1,1,16|NC1HWC0:float16:1,32,1,1,16|NC1HWC0:float16:1,32,1,1,16|"
      "NC1HWC0:float16:1,32,1,1,16\",\"NC1HWC0:float:32,32,28,28,16|FracZ:float16:8,32,16,16\",179.6\n"));
  ASSERT_EQ(fused.tasks.size(), 1u) << fused.uncovered;
  EXPECT_EQ(fused.tasks[0].op_type, "BNTrainingReduceGrad");
  EXPECT_EQ(fused.tasks[0].fused_ops, (std::vector<std::string>{"Conv2DBackpropFilter"}));
  aoe::sdk::OpTask dbn_dw;
  dbn_dw.op_type = "BNTrainingReduceGrad";
  dbn_dw.fused_ops = {"Conv2DBackpropFilter"};
  const auto map = desc({32, 512, 28, 28}, DType::f32);
  const auto stat = desc({512}, DType::f16);
  dbn_dw.inputs = {map, map, stat, stat, stat, stat, stat, desc({32, 128, 28, 28}, DType::f16)};
  dbn_dw.outputs = {map, desc({512, 128, 1, 1}, DType::f16)};
  dbn_dw.attrs = {{"fused_attrs", {one_by_one}}};  // the conv's, as fusion keeps a follower's
  EXPECT_DOUBLE_EQ(default_time(fused.tasks[0]), default_time(dbn_dw));
}

// Operands that fit a chip's memory, batch dims that broadcast past int64:
// the row is refused by name, not modelled on a wrapped count.
TEST(CannKernels, BatchDimsBroadcastPastAnyMemoryAreRefusedByName) {
  const auto k = modelled_kernel(only_row(
      "bm,BatchMatMul,30,\"FRACTAL_NZ:float16:2147483648,1,1,1,16,16|FRACTAL_NZ:float16:1,2147483648,1,1,16,16\","
      "\"FRACTAL_NZ:float16:1,1,1,1,16,16\",20.0\n"));
  ASSERT_EQ(k.tasks.size(), 1u) << k.uncovered;
  try {
    default_time(k.tasks[0]);
    ADD_FAILURE() << "timed";
  } catch (const aoe::sdk::Error& e) {
    EXPECT_EQ(e.code(), aoe::sdk::StatusCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("more than 2^40 elements"), std::string::npos) << e.what();
  }
  // A task built by hand, as a mode builds one, is refused the same way.
  aoe::sdk::OpTask huge;
  huge.name = "huge";
  huge.op_type = "Relu";
  huge.inputs = {desc({int64_t{1} << 30, int64_t{1} << 30}, aoe::sdk::DType::f16)};
  huge.outputs = huge.inputs;
  EXPECT_THROW(default_time(huge), aoe::sdk::Error);
}

std::string bench() { return AOE_FIDELITY_BENCH; }

TEST(SimFidelityBench, ScoresAProfileAndListsWhatItDoesNotModel) {
  Profile p(std::string(kStem) + kBnRelu + kMatMul + kClean + kUnknown);
  const auto r = aoe::test::run_process({bench(), "--json", p.file.string()}, p.dir);
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const auto report = nlohmann::json::parse(r.out);
  ASSERT_EQ(report["files"].size(), 1u);
  const auto& file = report["files"][0];
  const auto& step = file["step"];
  EXPECT_EQ(step["kernels"], 5);
  EXPECT_EQ(step["modelled_kernels"], 4);
  const double measured = 365.3 + 48.1 + 295.3 + 1.6 + 2.5;
  EXPECT_NEAR(step["measured_us"].get<double>(), measured, 1e-9);
  EXPECT_NEAR(step["coverage"].get<double>(), (measured - 2.5) / measured, 1e-12);
  EXPECT_GT(step["modelled_us"].get<double>(), 0);
  EXPECT_LE(std::abs(step["spearman_rho"].get<double>()), 1.0);
  EXPECT_EQ(file["soc"], "ascend910_30c");
  ASSERT_EQ(file["uncovered"].size(), 1u);
  EXPECT_NE(file["uncovered"][0]["reason"].get<std::string>().find("Frobnicate"), std::string::npos);
  // The table: one row per op type, then the file's figures.
  const auto text = aoe::test::run_process({bench(), p.file.string()}, p.dir);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (const char* word : {"FusionOp_Conv2D_BNTrainingReduce", "coverage", "Spearman rho", "block_dim", "uncovered 1"})
    EXPECT_NE(text.out.find(word), std::string::npos) << word << " missing from:\n" << text.out;
}

TEST(SimFidelityBench, KernelsListsEachKernelAsScored) {
  Profile p(std::string(kStem) + kClean + kUnknown);
  const auto r = aoe::test::run_process({bench(), "--kernels", p.file.string()}, p.dir);
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const auto kernels = nlohmann::json::parse(r.out)["files"][0]["kernels"];
  ASSERT_EQ(kernels.size(), 3u);
  EXPECT_EQ(kernels[0]["op_type"], "FusionOp_Conv2D_BNTrainingReduce");
  EXPECT_EQ(kernels[0]["block_dim"], 30);
  EXPECT_GT(kernels[0]["modelled_us"].get<double>(), 0);
  EXPECT_GT(kernels[0]["default_block_dim"].get<int64_t>(), 0);
  EXPECT_EQ(kernels[1]["op_name"], "clean");
  EXPECT_EQ(kernels[1]["default_block_dim"], 1);  // two statistics of 64 channels: one core
  EXPECT_DOUBLE_EQ(kernels[2]["modelled_us"].get<double>(), 0);  // not modelled
}

TEST(SimFidelityBench, AFitMovesOnlyInferredConstantsAndNeverWorsensItsOwnLoss) {
  Profile p(std::string(kStem) + kBnRelu + kMatMul + kClean + kUnknown);
  const auto r = aoe::test::run_process({bench(), "--json", "--fit", p.file.string(), p.file.string()}, p.dir);
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const auto report = nlohmann::json::parse(r.out);
  EXPECT_LE(report["fit_loss"]["after"].get<double>(), report["fit_loss"]["before"].get<double>());
  ASSERT_FALSE(report["moved"].empty());  // four kernels, ten constants: something moves
  for (const auto& m : report["moved"]) {
    const std::string name = m["constant"];
    EXPECT_TRUE(name != "ai_cores" && name != "clock_ghz" && name.find("bytes") == std::string::npos) << name;
    EXPECT_LE(m["to"].get<double>(), 8 * m["from"].get<double>() + 1e-9);
    EXPECT_GE(m["to"].get<double>(), m["from"].get<double>() / 8 - 1e-9);
  }
}

TEST(SimFidelityBench, CannsOpSummaryScoresAsItsCompactForm) {
  Profile summary(std::string(kSummaryStem) + kSummaryCpu + kSummaryMatMul, kSummaryHeader);
  Profile compact(std::string(kStem) + kMatMul, kHeader, "compact.csv");
  const auto a = aoe::test::run_process({bench(), "--json", summary.file.string()}, summary.dir);
  const auto b = aoe::test::run_process({bench(), "--json", compact.file.string()}, compact.dir);
  ASSERT_EQ(a.exit_code, 0) << failure_text(a);
  ASSERT_EQ(b.exit_code, 0) << failure_text(b);
  const auto fa = nlohmann::json::parse(a.out)["files"][0], fb = nlohmann::json::parse(b.out)["files"][0];
  for (const char* figure : {"kernels", "measured_us", "modelled_us", "median_abs_error", "block_dim_equal_share"})
    EXPECT_EQ(fa["step"][figure], fb["step"][figure]) << figure;
  EXPECT_EQ(fa["skipped_rows"], nlohmann::json({{"AI_CPU", 1}}));
  const auto text = aoe::test::run_process({bench(), summary.file.string()}, summary.dir);
  ASSERT_EQ(text.exit_code, 0) << failure_text(text);
  for (const char* words : {"skipped 1 rows not run on AI cores (AI_CPU)", "times from Task Duration(us) (1 rows) aicore_time(us) (1 rows)"})
    EXPECT_NE(text.out.find(words), std::string::npos) << words << " missing from:\n" << text.out;
}

TEST(SimFidelityBench, MindSporesProfilerOutputScoresAsItsCompactForm) {
  MindSporeProfile raw(kRawStem + kRawCpu + kRawClean);
  Profile compact(std::string(kStem) + "clean,AtomicAddrClean,1,\"NC1HWC0:float16:32,4,112,112,16\",,1.6\n", kHeader,
                  "compact.csv");
  const auto a = aoe::test::run_process({bench(), "--json", raw.file.string()}, raw.dir);
  const auto b = aoe::test::run_process({bench(), "--json", compact.file.string()}, compact.dir);
  ASSERT_EQ(a.exit_code, 0) << failure_text(a);
  ASSERT_EQ(b.exit_code, 0) << failure_text(b);
  const auto fa = nlohmann::json::parse(a.out)["files"][0], fb = nlohmann::json::parse(b.out)["files"][0];
  for (const char* figure : {"kernels", "modelled_us", "block_dim_equal_share"})
    EXPECT_EQ(fa["step"][figure], fb["step"][figure]) << figure;
  EXPECT_NEAR(fa["step"]["measured_us"].get<double>(), fb["step"]["measured_us"].get<double>(), 1e-9);
  const auto text = aoe::test::run_process({bench(), raw.file.string()}, raw.dir);
  ASSERT_EQ(text.exit_code, 0) << failure_text(text);
  for (const char* words : {"skipped 1 rows not run on AI cores (not in aicore_intermediate_0_detail.csv)",
                            "times from aicore_intermediate_0_detail.csv execution_time (2 rows)"})
    EXPECT_NE(text.out.find(words), std::string::npos) << words << " missing from:\n" << text.out;
}

TEST(SimFidelityBench, SaysWhenItReadsMindSporesShiftedLabelsOneTypeOn) {
  Profile p(std::string(kStem) + kBnRelu);
  const auto shifted = aoe::test::run_process({bench(), "--json", p.file.string()}, p.dir);
  const auto written = aoe::test::run_process({bench(), "--json", "--labels-as-written", p.file.string()}, p.dir);
  ASSERT_EQ(shifted.exit_code, 0) << failure_text(shifted);
  ASSERT_EQ(written.exit_code, 0) << failure_text(written);
  const auto a = nlohmann::json::parse(shifted.out)["files"][0], b = nlohmann::json::parse(written.out)["files"][0];
  EXPECT_EQ(a["labels_shifted_by"], "uint");
  EXPECT_EQ(b["labels_shifted_by"], "");
  // float16 maps move half the bytes of float32 ones.
  EXPECT_LT(a["step"]["modelled_us"].get<double>(), b["step"]["modelled_us"].get<double>());
  const auto text = aoe::test::run_process({bench(), p.file.string()}, p.dir);
  ASSERT_EQ(text.exit_code, 0) << failure_text(text);
  for (const char* words : {"dtype labels read one type on", "'uint'", "--labels-as-written"})
    EXPECT_NE(text.out.find(words), std::string::npos) << words << " missing from:\n" << text.out;
}

TEST(SimFidelityBench, ABadRowStopsItNamingTheRow) {
  Profile p(std::string(kStem) + "x,Cast,30,ND:float16:4,ND:float:4,soon\n");
  const auto r = aoe::test::run_process({bench(), p.file.string()}, p.dir);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("step.csv:3"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("measured_us"), std::string::npos) << r.err;
}

// Kernels of other models' steps (VGG's pools, MobileNet's ReLU6, YOLO's
// concats, transposes and loss, Inception's RMSProp, Adam) and CANN's versioned names map to the simulator's models.
TEST(CannKernels, OtherModelsKernelsMapToTheSimulatorsModels) {
  const std::vector<std::string> rows = {
      "p,MaxPool,30,\"NC1HWC0:float16:32,4,224,224,16\",\"NC1HWC0:float16:32,4,112,112,16\",90.0\n",
      "g,AvgPool,30,\"NC1HWC0:float16:32,128,7,7,16\",\"NC1HWC0:float16:32,128,1,1,16\",9.0\n",
      "r6,Relu6,30,\"NC1HWC0:float16:32,2,112,112,16\",\"NC1HWC0:float16:32,2,112,112,16\",40.0\n",
      "rg,ReluGrad,30,\"NC1HWC0:float16:32,4,56,56,16|NC1HWC0:float16:32,4,56,56,16\",\"NC1HWC0:float16:32,4,56,56,16\",30.0\n",
      "sg,SigmoidGrad,30,\"ND:float16:4096,768|ND:float16:4096,768\",\"ND:float16:4096,768\",9.0\n",
      "c,ConcatD,30,\"NC1HWC0:float16:32,8,13,13,16|NC1HWC0:float16:32,16,13,13,16\",\"NC1HWC0:float16:32,24,13,13,16\",12.0\n",
      "s,SplitD,30,\"ND:float16:4096,2304\",\"ND:float16:4096,768|ND:float16:4096,768|ND:float16:4096,768\",20.0\n",
      "e,GatherV2,30,\"ND:float:21128,768|ND:int32:4096|ND:int32:\",\"ND:float:4096,768\",15.0\n",
      "sm,SoftmaxV2,30,\"ND:float16:49152,128\",\"ND:float16:49152,128\",25.0\n",
      "rs,ReduceSumD,30,\"ND:float:4096,768\",\"ND:float:768\",8.0\n",
      "ag,ApplyAdagradD,30,\"ND:float:768,768|ND:float:768,768|ND:float:|ND:float:768,768\",\"ND:float:768,768|ND:float:768,768\",9.0\n",
      "a,ApplyAdamD,30,\"ND:float:768,768|ND:float:768,768|ND:float:768,768|ND:float:|ND:float:|ND:float:|ND:float:|"
      "ND:float:|ND:float:|ND:float:768,768\",\"ND:float:768,768|ND:float:768,768|ND:float:768,768\",20.0\n",
      "m,MatMulV2,30,\"FRACTAL_NZ:float16:48,256,16,16|FRACTAL_NZ:float16:48,48,16,16\",\"FRACTAL_NZ:float16:48,256,16,16\",60.0\n",
      "bm,BatchMatMulV2,30,\"FRACTAL_NZ:float16:32,12,4,8,16,16|FRACTAL_NZ:float16:32,12,4,8,16,16\","
      "\"FRACTAL_NZ:float16:32,12,8,8,16,16\",20.0\n",
      // A later chip's names, its products on ND operands.
      "m3,MatMulV3,24,\"ND:float16:4096,768|ND:float16:768,3072\",\"ND:float16:4096,3072\",60.0\n",
      "rn,RmsNorm,24,\"ND:float16:4096,768|ND:float16:768\",\"ND:float16:4096,768|ND:float:4096,1\",9.0\n",
      // YOLO's head: a transpose of its anchors' outputs, its loss and gradient, its upsampling's gradient.
      "t,Transpose,30,\"ND:float16:16,3,85,80,80\",\"ND:float16:16,3,80,80,85\",1000.0\n",
      "sce,SigmoidCrossEntropyWithLogits,30,\"ND:float:16,3,80,80,85|ND:float:16,3,80,80,85\",\"ND:float:16,3,80,80,85\",90.0\n",
      "scg,SigmoidCrossEntropyWithLogitsGrad,30,\"ND:float:16,3,80,80,85|ND:float:16,3,80,80,85|ND:float:16,3,80,80,85\","
      "\"ND:float:16,3,80,80,85\",90.0\n",
      "rg2,ResizeNearestNeighborGrad,30,\"NC1HWC0:float16:16,16,80,80,16\",\"NC1HWC0:float16:16,16,40,40,16\",200.0\n",
      // Inception's: RMSProp over each weight, an average pool's gradient.
      "rms,ApplyRMSPropD,30,\"ND:float:768,768|ND:float:768,768|ND:float:768,768|ND:float:|ND:float:768,768\","
      "\"ND:float:768,768|ND:float:768,768|ND:float:768,768\",9.0\n",
      // DeepFM's: its embeddings tiled over its fields, their squares summed along them.
      "ti,Tile,30,\"ND:float16:12000,1,80\",\"ND:float16:12000,39,80\",240.0\n",
      "ss,SquareSumV1,30,\"ND:float16:12000,39,80\",\"ND:float16:12000,80\",200.0\n",
      "apg,AvgPoolGradVm,30,\"NC1HWC0:float16:16,48,8,8,16|NC1HWC0:float16:16,48,8,8,16\",\"NC1HWC0:float16:16,48,17,17,16\",40.0\n",
  };
  std::map<std::string, aoe::sim::ModelledKernel> by_type;
  for (const auto& row : rows) {
    const ProfiledKernel k = only_row(row);
    const auto m = modelled_kernel(k);
    ASSERT_FALSE(m.tasks.empty()) << k.op_type << ": " << m.uncovered;
    EXPECT_GT(default_time(m.tasks[0]), 0) << k.op_type;
    by_type[k.op_type] = m;
  }
  // A row carries no attributes: the window is the stride the sizes give; a
  // global pool's the whole map; one that keeps the map's size 3x3, padded.
  EXPECT_EQ(by_type["MaxPool"].tasks[0].attrs["kernel_shape"], nlohmann::json({2, 2}));
  EXPECT_EQ(by_type["MaxPool"].tasks[0].attrs["strides"], nlohmann::json({2, 2}));
  EXPECT_EQ(by_type["AvgPool"].tasks[0].attrs["kernel_shape"], nlohmann::json({7, 7}));
  const auto same = modelled_kernel(
      only_row("a,AvgPool,30,\"NC1HWC0:float16:16,18,35,35,16\",\"NC1HWC0:float16:16,18,35,35,16\",40.0\n"));
  ASSERT_EQ(same.tasks.size(), 1u) << same.uncovered;
  EXPECT_EQ(same.tasks[0].attrs["kernel_shape"], nlohmann::json({3, 3}));  // a 1x1 pool would be a copy
  EXPECT_EQ(same.tasks[0].attrs["pads"], nlohmann::json({1, 1, 1, 1}));
  EXPECT_GT(default_time(same.tasks[0]), 0);
  // A concat moves all it writes; a split all it reads; a gather the rows it picks, not the table.
  EXPECT_EQ(by_type["ConcatD"].tasks[0].inputs[0].elements(), int64_t{32} * 24 * 16 * 13 * 13);
  EXPECT_EQ(by_type["SplitD"].tasks[0].inputs[0].elements(), int64_t{4096} * 2304);
  const auto& gather = by_type["GatherV2"].tasks[0];
  EXPECT_EQ(gather.op_type, "Gather");
  const auto picked = aoe::sim::data_move_problem(gather, aoe::sim::load_soc("ascend910_30c"));
  EXPECT_EQ(picked.out_elements, int64_t{4096} * 768);
  EXPECT_EQ(picked.indices, 4096);
  // Adam reads the weight, its moments and the gradient; the scalars are folded.
  ASSERT_EQ(by_type["ApplyAdamD"].tasks[0].inputs.size(), 4u);
  EXPECT_EQ(by_type["ApplyAdamD"].tasks[0].op_type, "ApplyAdam");
  EXPECT_EQ(by_type["ApplyAdagradD"].tasks[0].op_type, "ApplyAdagrad");
  EXPECT_EQ(by_type["ApplyAdagradD"].tasks[0].inputs.size(), 3u);
  // A tile writes its whole output, however small its input.
  EXPECT_EQ(by_type["Tile"].tasks[0].inputs[0].elements(), int64_t{12000} * 39 * 80);
  EXPECT_EQ(by_type["SquareSumV1"].tasks[0].op_type, "ReduceSum");
  EXPECT_EQ(by_type["SquareSumV1"].tasks[0].attrs["axes"], nlohmann::json({1}));
  EXPECT_EQ(by_type["ApplyRMSPropD"].tasks[0].op_type, "ApplyRMSProp");
  EXPECT_EQ(by_type["ApplyRMSPropD"].tasks[0].inputs.size(), 4u);
  EXPECT_EQ(by_type["ApplyRMSPropD"].tasks[0].outputs.size(), 3u);
  // A row carries no perm: each output dim takes the first unused input dim of its extent.
  EXPECT_EQ(by_type["Transpose"].tasks[0].attrs["perm"], nlohmann::json({0, 1, 3, 4, 2}));
  EXPECT_FALSE(
      modelled_kernel(only_row("t2,TransposeD,30,\"ND:float16:16,3,85,80\",\"ND:float16:16,3,68,100\",9.0\n"))
          .uncovered.empty());
  // MobileNet's depthwise convs: a group per channel, the taps from the
  // C1HWNCoC0 weights; the gradients priced as the conv they come from.
  const std::string map = "NC1HWC0:float16:32,2,112,112,16", w = "C1HWNCoC0:float16:2,3,3,1,16,16";
  const auto dw = modelled_kernel(only_row("d,DepthwiseConv2D,30,\"" + map + "|" + w + "\",\"" + map + "\",50.0\n"));
  ASSERT_EQ(dw.tasks.size(), 1u) << dw.uncovered;
  EXPECT_EQ(dw.tasks[0].attrs["group"], 32);
  EXPECT_EQ(dw.tasks[0].attrs["kernel_shape"], nlohmann::json({3, 3}));
  EXPECT_EQ(dw.tasks[0].inputs[1].shape, (std::vector<int64_t>{32, 1, 3, 3}));
  const auto dx = modelled_kernel(
      only_row("dx,DepthwiseConv2DBackpropInputD,30,\"" + w + "|" + map + "\",\"" + map + "\",50.0\n"));
  const auto dwt = modelled_kernel(only_row("dwt,DepthwiseConv2DBackpropFilterD,30,\"" + map + "|" + map +
                                            "\",\"C1HWNCoC0:float:2,3,3,1,16,16\",50.0\n"));
  ASSERT_EQ(dx.tasks.size(), 1u) << dx.uncovered;
  ASSERT_EQ(dwt.tasks.size(), 1u) << dwt.uncovered;
  EXPECT_DOUBLE_EQ(default_time(dx.tasks[0]), default_time(dw.tasks[0]));
  EXPECT_DOUBLE_EQ(default_time(dwt.tasks[0]), default_time(dw.tasks[0]));
  const auto strided = modelled_kernel(only_row("d2,DepthwiseConv2D,30,\"" + map + "|" + w +
                                                "\",\"NC1HWC0:float16:32,2,56,56,16\",20.0\n"));
  ASSERT_EQ(strided.tasks.size(), 1u) << strided.uncovered;
  EXPECT_EQ(strided.tasks[0].attrs["strides"], nlohmann::json({2, 2}));
  EXPECT_FALSE(modelled_kernel(only_row("bad,DepthwiseConv2D,30,\"" + map + "|FracZ:float16:18,2,16,16\",\"" + map +
                                        "\",50.0\n"))
                   .uncovered.empty());

  // The versioned names time as the ones they version.
  const auto v1 = modelled_kernel(only_row(
      "m,MatMul,30,\"FRACTAL_NZ:float16:48,256,16,16|FRACTAL_NZ:float16:48,48,16,16\",\"FRACTAL_NZ:float16:48,256,16,16\",60.0\n"));
  EXPECT_DOUBLE_EQ(default_time(v1.tasks[0]), default_time(by_type["MatMulV2"].tasks[0]));
}

// ViT's and DeepFM's fusions the table does not list: an elementwise chain
// is one vector kernel, a product takes its followers into its epilogue (a
// bias first where it reads one more input), a reduction runs the chain in
// its pass; a fusion led by something else stays uncovered.
TEST(CannKernels, AnUnlistedFusionIsPricedAsItsChainOrItsLeadingKernel) {
  const std::string w = "ND:float16:768,3072";
  auto row = [](const std::string& type, const std::string& ins, const std::string& outs) {
    return modelled_kernel(only_row("f," + type + ",30,\"" + ins + "\",\"" + outs + "\",9.0\n"));
  };
  const auto square = row("FusionOp_Mul_Square", w + "|ND:float16:", w);
  const auto mul = row("Mul", w + "|ND:float16:", w);
  const auto div_sqrt = row("FusionOp_RealDiv_Sqrt", w + "|" + w, w);
  for (const auto* m : {&square, &mul, &div_sqrt}) ASSERT_EQ(m->tasks.size(), 1u) << m->uncovered;
  EXPECT_GT(default_time(square.tasks[0]), default_time(mul.tasks[0]));
  EXPECT_EQ(square.tasks[0].fused_ops.size(), 1u);     // two simple passes
  EXPECT_EQ(div_sqrt.tasks[0].fused_ops.size(), 2u);   // two exp-class ones
  const std::string x = "FRACTAL_NZ:float16:48,256,16,16", wt = "FRACTAL_NZ:float16:48,48,16,16";
  const auto relu = row("FusionOp_MatMul_ReLU", x + "|" + wt, x);
  ASSERT_EQ(relu.tasks.size(), 1u) << relu.uncovered;
  EXPECT_EQ(relu.tasks[0].op_type, "MatMul");
  EXPECT_EQ(relu.tasks[0].fused_ops, (std::vector<std::string>{"Relu"}));
  const auto biased = row("FusionOp_MatMul_ReLU", x + "|" + wt + "|ND:float16:768", x);
  ASSERT_EQ(biased.tasks.size(), 1u) << biased.uncovered;
  EXPECT_EQ(biased.tasks[0].fused_ops, (std::vector<std::string>{"Add", "Relu"}));
  const auto sum = row("FusionOp_ReduceSum_Square", "ND:float16:12000,39,16", "ND:float16:12000,16");
  ASSERT_EQ(sum.tasks.size(), 1u) << sum.uncovered;
  EXPECT_EQ(sum.tasks[0].op_type, "ReduceSum");
  EXPECT_NE(row("FusionOp_Frobnicate_Mul", w, w).uncovered.find("FusionOp_Frobnicate_Mul"), std::string::npos);
  EXPECT_FALSE(row("FusionOp_MatMul_Frobnicate", x + "|" + wt, x).uncovered.empty());
  // ViT's spellings of kernels the table names otherwise.
  EXPECT_FALSE(row("GeLU", w, w).tasks.empty());
  EXPECT_FALSE(row("ConfusionSoftmaxGrad", "ND:float16:768,12,64,64|ND:float16:768,12,64,64", "ND:float16:768,12,64,64").tasks.empty());
}

// A row gives a conv's taps, not its window: Inception's unpadded stride-2
// stem takes the smallest stride with pads short of the window, and 7 taps
// are a 1 x 7 (or 7 x 1) kernel, padded as "same" along its long axis.
TEST(CannKernels, AConvsWindowIsTheSmallestStrideAndTheMostSquareTapsThatFitTheMaps) {
  const auto stem = modelled_kernel(only_row(
      "s,Conv2D,30,\"NC1HWC0:float16:32,1,299,299,16|FracZ:float16:9,2,16,16\",\"NC1HWC0:float16:32,2,149,149,16\",90.0\n"));
  ASSERT_EQ(stem.tasks.size(), 1u) << stem.uncovered;
  EXPECT_EQ(stem.tasks[0].attrs["kernel_shape"], nlohmann::json({3, 3}));
  EXPECT_EQ(stem.tasks[0].attrs["strides"], nlohmann::json({2, 2}));
  EXPECT_EQ(stem.tasks[0].attrs["pads"], nlohmann::json({0, 0, 0, 0}));
  const auto valid = modelled_kernel(only_row(
      "v,Conv2D,30,\"NC1HWC0:float16:32,2,149,149,16|FracZ:float16:18,2,16,16\",\"NC1HWC0:float16:32,2,147,147,16\",90.0\n"));
  ASSERT_EQ(valid.tasks.size(), 1u) << valid.uncovered;
  EXPECT_EQ(valid.tasks[0].attrs["strides"], nlohmann::json({1, 1}));
  EXPECT_EQ(valid.tasks[0].attrs["pads"], nlohmann::json({0, 0, 0, 0}));
  const auto row7 = modelled_kernel(only_row(
      "r,Conv2D,30,\"NC1HWC0:float16:32,48,17,17,16|FracZ:float16:336,8,16,16\",\"NC1HWC0:float16:32,8,17,17,16\",90.0\n"));
  ASSERT_EQ(row7.tasks.size(), 1u) << row7.uncovered;
  EXPECT_EQ(row7.tasks[0].attrs["kernel_shape"], nlohmann::json({1, 7}));
  EXPECT_EQ(row7.tasks[0].attrs["pads"], nlohmann::json({0, 3, 0, 3}));
  EXPECT_EQ(row7.tasks[0].inputs[1].shape, (std::vector<int64_t>{128, 768, 1, 7}));
  EXPECT_GT(default_time(row7.tasks[0]), 0);
  EXPECT_GT(default_time(stem.tasks[0]), 0);
  // No stride and pads short of a 3 x 3 window take 17 to 19.
  EXPECT_FALSE(modelled_kernel(only_row("n,Conv2D,30,\"NC1HWC0:float16:32,48,17,17,16|FracZ:float16:432,8,16,16\","
                                        "\"NC1HWC0:float16:32,8,19,19,16\",9.0\n"))
                   .uncovered.empty());
}

TEST(CannKernels, AtomicAddrCleanClearsWhatItsFollowerAccumulates) {
  const auto soc = aoe::sim::load_soc("ascend910_30c");
  // Before a reduction over a map: the map's two per-channel statistics, in
  // fp32, whatever the map's size.
  const auto small = modelled_kernel(only_row(kClean));
  const auto large = modelled_kernel(only_row("clean,AtomicAddrClean,1,\"NC1HWC0:float:32,4,224,224,16\",,1.6\n"));
  ASSERT_EQ(small.tasks.size(), 1u) << small.uncovered;
  ASSERT_EQ(large.tasks.size(), 1u) << large.uncovered;
  const auto& t = small.tasks[0];
  EXPECT_EQ(t.op_type, "AtomicAddrClean");
  ASSERT_EQ(t.inputs.size(), 2u);
  EXPECT_EQ(t.inputs[0].shape, (std::vector<int64_t>{64}));
  EXPECT_EQ(t.inputs[0].dtype, aoe::sdk::DType::f32);
  EXPECT_DOUBLE_EQ(default_time(small.tasks[0]), default_time(large.tasks[0]));
  // Before a weight gradient whose K is split: the whole gradient, in fp32, on 29 cores.
  const auto dw = modelled_kernel(only_row("clean,AtomicAddrClean,29,\"FracZ:float16:32,128,16,16\",,6.3\n"));
  ASSERT_EQ(dw.tasks.size(), 1u) << dw.uncovered;
  EXPECT_EQ(dw.tasks[0].inputs.at(0).elements(), 32 * 128 * 16 * 16);
  EXPECT_EQ(dw.tasks[0].inputs[0].dtype, aoe::sdk::DType::f32);
  const auto m = aoe::sim::op_model(soc, dw.tasks[0]);
  EXPECT_EQ(m->space().default_config[0], 29);
  EXPECT_GT(default_time(dw.tasks[0]), default_time(small.tasks[0]));
}

TEST(CannKernels, ABiasGradientOverFractalNzSumsWholeColumnBlocks) {
  // 16384 x 768 stored as 48 column blocks of 16384 x 16.
  const auto m = modelled_kernel(
      only_row("db,BiasAddGrad,24,\"FRACTAL_NZ:float:48,1024,16,16\",\"DefaultFormat:float:768\",45.0\n"));
  ASSERT_EQ(m.tasks.size(), 1u) << m.uncovered;
  const auto& t = m.tasks[0];
  EXPECT_EQ(t.op_type, "ReduceSum");
  EXPECT_EQ(t.inputs[0].shape, (std::vector<int64_t>{48, 16384, 16}));
  EXPECT_EQ(t.attrs["axes"], nlohmann::json({1}));
  EXPECT_EQ(t.outputs[0].elements(), 768);
  const auto model = aoe::sim::op_model(aoe::sim::load_soc("ascend910_30c"), t);
  EXPECT_EQ(model->space().default_config[aoe::sim::ReduceModel::kBlockDim], 24);
}

TEST(CannKernels, ALayerNormParameterGradientOverFractalNzSumsBothMapsColumnBlocks) {
  // dy and the normalised x, 16384 x 768 each: 2 x 48 column blocks summed.
  const auto m = modelled_kernel(only_row(
      "dg,LayerNormBetaGammaBackpropV2,48,\"FRACTAL_NZ:float:48,1024,16,16|FRACTAL_NZ:float16:48,1024,16,16\","
      "\"DefaultFormat:float16:768|DefaultFormat:float16:768\",97.0\n"));
  ASSERT_EQ(m.tasks.size(), 1u) << m.uncovered;
  const auto& t = m.tasks[0];
  EXPECT_EQ(t.op_type, "ReduceSum");
  EXPECT_EQ(t.inputs[0].shape, (std::vector<int64_t>{96, 16384, 16}));
  EXPECT_EQ(t.attrs["axes"], nlohmann::json({1}));
  EXPECT_EQ(t.outputs[0].elements(), 2 * 768);
  // Rows of another layout are still the step's kernel, as are NZ maps that differ.
  const auto plain = modelled_kernel(only_row(
      "dg,LayerNormBetaGammaBackpropV2,16,\"DefaultFormat:float16:128,128,768|DefaultFormat:float16:128,128,768\","
      "\"DefaultFormat:float16:768|DefaultFormat:float16:768\",155.0\n"));
  ASSERT_EQ(plain.tasks.size(), 1u) << plain.uncovered;
  EXPECT_EQ(plain.tasks[0].op_type, "LayerNormBetaGammaBackpropV2");
  const auto misfit = modelled_kernel(only_row(
      "dg,LayerNormBetaGammaBackpropV2,48,\"FRACTAL_NZ:float:48,1024,16,16|FRACTAL_NZ:float16:48,512,16,16\","
      "\"DefaultFormat:float16:768|DefaultFormat:float16:768\",97.0\n"));
  EXPECT_TRUE(misfit.tasks.empty());
  EXPECT_NE(misfit.uncovered.find("FRACTAL_NZ input of its first's shape"), std::string::npos) << misfit.uncovered;
}

// A layer norm's data gradient over FRACTAL_NZ rows broadcasts four per-row
// values across each row 16 lanes at a time, an instruction per row per
// column block; over ND rows one instruction covers the row. CANN's kernel
// writes x^ (fp32) beside dx, which the profile lists as a second output.
TEST(CannKernels, ALayerNormGradientOverFractalNzBroadcastsItsRowValuesSixteenLanesAtATime) {
  const std::string ins = "\"FRACTAL_NZ:float16:48,1024,16,16|FRACTAL_NZ:float16:48,1024,16,16|"
                          "DefaultFormat:float:16384,1|DefaultFormat:float:16384,1|DefaultFormat:float16:768\"";
  const auto m = modelled_kernel(only_row("dx,LayerNormXBackpropV2,29," + ins +
                                          ",\"FRACTAL_NZ:float16:48,1024,16,16|FRACTAL_NZ:float:48,1024,16,16\",848.7\n"));
  ASSERT_EQ(m.tasks.size(), 1u) << m.uncovered;
  auto t = m.tasks[0];
  EXPECT_EQ(t.inputs[0].format, "FRACTAL_NZ");
  EXPECT_EQ(t.inputs[0].shape, (std::vector<int64_t>{16384, 768}));
  ASSERT_EQ(t.outputs.size(), 2u);
  EXPECT_EQ(t.outputs[1].dtype, aoe::sdk::DType::f32);
  const auto soc = aoe::sim::load_soc("ascend910_30c");
  const double broadcasts = 4.0 * 16384 * (768 / 16) * (1 + soc.vector_latency_cycles) / soc.ai_cores / soc.cycles_per_us();
  const auto [nz, nd] = given_and_nd_times(t);
  EXPECT_GT(nz - nd, 0.75 * broadcasts) << nz << " us on NZ rows, " << nd << " on ND";
  t.inputs[0].format = "ND";
  // x^ is written too: one output less writes less.
  t.outputs.pop_back();
  EXPECT_LT(default_time(t), nd);
}

// A product whose A (M x K) lies in FRACTAL_NZ has each 16 of K in a column
// block of its own; where the product outgrows L2, a tile's operands come at
// a core's DDR share. A transposed A (a weight gradient's, K along its rows)
// and a product that fits L2 read at L2's rate.
TEST(CannKernels, AProductWithKAcrossColumnBlocksOutgrowingL2ReadsAtTheDdrRate) {
  const auto forward = modelled_kernel(only_row(kMatMul));
  ASSERT_EQ(forward.tasks.size(), 1u) << forward.uncovered;
  EXPECT_EQ(forward.tasks[0].inputs[0].format, "FRACTAL_NZ");
  const auto [k_across, nd] = given_and_nd_times(forward.tasks[0]);
  EXPECT_GT(k_across, 2 * nd);

  const auto dw = modelled_kernel(only_row(
      "dw,MatMul,24,\"FRACTAL_NZ:float:48,1024,16,16|FRACTAL_NZ:float:192,1024,16,16\",\"FRACTAL_NZ:float:192,48,16,16\",459.3\n"));
  ASSERT_EQ(dw.tasks.size(), 1u) << dw.uncovered;
  EXPECT_EQ(dw.tasks[0].inputs[0].shape, (std::vector<int64_t>{768, 16384}));
  EXPECT_NE(dw.tasks[0].inputs[0].format, "FRACTAL_NZ");

  // 1024 x 768 by 768 x 768: 3.6 MB in all, within L2.
  const auto small = modelled_kernel(only_row(
      "fc,MatMul,30,\"FRACTAL_NZ:float:48,64,16,16|FRACTAL_NZ:float:48,48,16,16\",\"FRACTAL_NZ:float:48,64,16,16\",20.0\n"));
  ASSERT_EQ(small.tasks.size(), 1u) << small.uncovered;
  EXPECT_EQ(small.tasks[0].inputs[0].format, "FRACTAL_NZ");
  const auto [small_nz, small_nd] = given_and_nd_times(small.tasks[0]);
  EXPECT_DOUBLE_EQ(small_nz, small_nd);

  // Attention's batch of 1536 products, 128 x 64 by 64 x 128, 75 MB in all.
  const auto heads = modelled_kernel(only_row(
      "qk,BatchMatMul,30,\"FRACTAL_NZ:float:128,12,4,8,16,16|FRACTAL_NZ:float:128,12,4,8,16,16\","
      "\"FRACTAL_NZ:float:128,12,8,8,16,16\",92.1\n"));
  ASSERT_EQ(heads.tasks.size(), 1u) << heads.uncovered;
  EXPECT_EQ(heads.tasks[0].inputs[0].format, "FRACTAL_NZ");
  const auto [heads_nz, heads_nd] = given_and_nd_times(heads.tasks[0]);
  EXPECT_DOUBLE_EQ(heads_nz, heads_nd);
}


// A profile row's default time on the 30-core 910 with `index_cycles` as given.
double time_with_index_cycles(const aoe::sdk::OpTask& t, double index_cycles) {
  aoe::sim::Soc soc = aoe::sim::load_soc("ascend910_30c");
  soc.index_cycles = index_cycles;
  const auto model = aoe::sim::op_model(soc, t);
  return model->time_us(model->space().default_config);
}

// A gather and a segment sum follow an index per row: each index is a turn
// of a core's scalar unit (read it, form the row's address, issue the copy),
// so narrow rows cost their indices, not their bytes (DeepFM's lookups of
// one value per id: 468000 indices, 847 us measured). The indices spread
// over every core, however little they move.
TEST(CannKernels, AGatherAndASegmentSumPayAScalarTurnPerIndex) {
  const auto lookup = modelled_kernel(only_row(
      "g,Gather,30,\"DefaultFormat:float:184965,1|DefaultFormat:int32:12000,39\",\"DefaultFormat:float:12000,39,1\",847.9\n"));
  ASSERT_EQ(lookup.tasks.size(), 1u) << lookup.uncovered;
  const auto& g = lookup.tasks[0];
  EXPECT_EQ(g.op_type, "Gather");
  const aoe::sim::Soc soc = aoe::sim::load_soc("ascend910_30c");
  const double per_core = 12000.0 * 39 / soc.ai_cores;
  const double turns_us = per_core * soc.index_cycles / soc.cycles_per_us();
  EXPECT_GT(time_with_index_cycles(g, soc.index_cycles), turns_us);
  EXPECT_GT(time_with_index_cycles(g, soc.index_cycles) - time_with_index_cycles(g, 0), 0.9 * turns_us);

  const auto sum = modelled_kernel(only_row(
      "s,UnsortedSegmentSum,30,\"DefaultFormat:float:12000,39,8|DefaultFormat:int32:12000,39\",\"DefaultFormat:float:184965,8\","
      "4009.9\n"));
  ASSERT_EQ(sum.tasks.size(), 1u) << sum.uncovered;
  const auto& s = sum.tasks[0];
  EXPECT_EQ(s.op_type, "UnsortedSegmentSum");
  const auto p = aoe::sim::data_move_problem(s, soc);
  EXPECT_EQ(p.indices, 12000 * 39);
  EXPECT_EQ(p.out_elements, int64_t{12000} * 39 * 8);
  EXPECT_GT(time_with_index_cycles(s, soc.index_cycles) - time_with_index_cycles(s, 0), 0.9 * turns_us);

  // 128 position-embedding rows: a small output, yet every core takes indices.
  const auto small = modelled_kernel(only_row(
      "p,Gather,30,\"DefaultFormat:float:512,768|DefaultFormat:int32:128\",\"DefaultFormat:float:128,768\",5.6\n"));
  ASSERT_EQ(small.tasks.size(), 1u) << small.uncovered;
  EXPECT_EQ(aoe::sim::op_model(soc, small.tasks[0])->space().default_config[0], soc.ai_cores);

  // Ids that do not lead x's dims: not a segment sum of rows, timed as a copy.
  const auto odd = modelled_kernel(only_row(
      "o,UnsortedSegmentSum,30,\"DefaultFormat:float:64,8|DefaultFormat:int32:8\",\"DefaultFormat:float:16,8\",3.0\n"));
  ASSERT_EQ(odd.tasks.size(), 1u) << odd.uncovered;
  EXPECT_NE(odd.tasks[0].op_type, "UnsortedSegmentSum");
}

}  // namespace
