#include "host_runner.h"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "child_process.h"

namespace aoe::bench {

Run run_host(std::vector<std::string> args, const std::filesystem::path& dir, const std::filesystem::path& bank) {
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  test::ChildOptions options;
  options.cwd = dir;
  options.output_dir = dir;
  options.env = {{"TUNE_BANK_PATH", bank.string()}, {"ASCEND_WORK_PATH", dir.string()}};
  // The settings a caller's environment could slip into a run and so skew it.
  options.env_removed = {"ASCEND_CACHE_PATH", "REPEAT_TUNE", "TUNING_PARALLEL_NUM", "TE_PARALLEL_COMPILER", "AOE_MODE"};
  // No timeout a benchmark would hit: a run is waited for as long as it takes.
  const auto r = test::ChildProcess(args, options).wait(1e9);
  return Run{r.exit_code, r.wall_s, r.cpu_s, dir};
}

std::filesystem::path on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty() && ::access((std::filesystem::path(dir) / name).c_str(), X_OK) == 0)
      return std::filesystem::path(dir) / name;
  return {};
}

std::filesystem::path default_onnxruntime_dir() {
  const char* env = std::getenv("AOE_ONNXRUNTIME_NODE");
  return env && *env ? env : "node_modules";
}

bool onnxruntime_ready(const std::filesystem::path& dir) {
  const bool have_node = !on_path("node").empty();
  if (have_node && std::filesystem::exists(dir / "onnxruntime-node")) {
    ::setenv("AOE_ONNXRUNTIME_NODE", std::filesystem::absolute(dir).c_str(), 1);
    return true;
  }
  std::printf("ONNX Runtime: skipped, %s (npm install --ignore-scripts onnxruntime-node)\n",
              have_node ? ("no onnxruntime-node under " + std::filesystem::absolute(dir).string()).c_str()
                        : "no node on PATH");
  return false;
}

std::filesystem::path make_scratch(const std::string& name) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = (std::filesystem::path(tmp && *tmp ? tmp : "/tmp") / (name + ".XXXXXX")).string();
  if (!mkdtemp(pattern.data())) throw std::runtime_error(std::string("mkdtemp failed: ") + std::strerror(errno));
  return pattern;
}

void require_models(const std::filesystem::path& dir, const std::vector<std::string>& models) {
  for (const auto& model : models)
    if (!std::filesystem::exists(dir / (model + ".onnx")))
      throw std::invalid_argument("no model " + (dir / (model + ".onnx")).string() +
                                  "; build the aoe_models target, or pick from that directory");
}

}  // namespace aoe::bench
