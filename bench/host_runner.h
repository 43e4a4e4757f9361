// Runs the built aoe-host as a user would, for the benchmarks that drive it:
// output to files in the run's directory, a bank the caller chooses.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "../tests/common/aoe_result.h"

namespace aoe::bench {

struct Run {
  int exit_code = -1;
  double wall_s = 0;
  double cpu_s = 0;  // the child's user + system time: what a busy machine's wall clock hides
  std::filesystem::path dir;  // holds stdout.txt, stderr.txt and the result file
};

// args[0] is the binary. `dir` starts empty and is the working directory and
// ASCEND_WORK_PATH; `bank` is TUNE_BANK_PATH and is left as it is, so runs can
// share a bank. Settings of the caller's environment that would skew a run
// (bank paths, REPEAT_TUNE, parallelism, AOE_MODE) are dropped.
Run run_host(std::vector<std::string> args, const std::filesystem::path& dir, const std::filesystem::path& bank);

// `name` found on PATH, as a shell finds it; empty when it is not there.
std::filesystem::path on_path(const std::string& name);

// Where onnxruntime-node is looked for by default: AOE_ONNXRUNTIME_NODE, else ./node_modules.
std::filesystem::path default_onnxruntime_dir();

// Whether node and onnxruntime-node under `dir` are there; when they are,
// AOE_ONNXRUNTIME_NODE is set to `dir` for the bench's scripts, and when
// not, the "ONNX Runtime: skipped, <why>" line is printed.
bool onnxruntime_ready(const std::filesystem::path& dir);

// A fresh directory <$TMPDIR or /tmp>/<name>.XXXXXX for a bench's runs.
std::filesystem::path make_scratch(const std::string& name);

// Throws std::invalid_argument naming the first of `models` (names without
// .onnx) that `dir` lacks, and what to do.
void require_models(const std::filesystem::path& dir, const std::vector<std::string>& models);

}  // namespace aoe::bench
