// A scratch working directory, bank and HOME per test, and aoe-host run in it.
#pragma once

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "../common/aoe_result.h"
#include "child_process.h"

namespace aoe::test {

inline nlohmann::json read_json(const std::filesystem::path& file) {
  std::ifstream in(file);
  return nlohmann::json::parse(in);
}

// Every line of every measurements.jsonl under `dir` (a run's workspace or its parent).
inline std::vector<nlohmann::json> measurement_lines(const std::filesystem::path& dir) {
  std::vector<nlohmann::json> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.path().filename() == "measurements.jsonl") {
      std::ifstream in(e.path());
      for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
    }
  return out;
}

inline std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class AoeHostTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // aoe-host with args, in the scratch dir, with TUNE_BANK_PATH and HOME there.
  ProcessResult aoe_host(const std::vector<std::string>& args, std::map<std::string, std::string> env = {}) const;
  // The same, started and left running.
  std::unique_ptr<ChildProcess> start_aoe_host(const std::vector<std::string>& args,
                                               std::map<std::string, std::string> env = {}) const;
  // A tuning run of a bundled model on the simulator with a small budget.
  ProcessResult tune(const std::string& model, std::vector<std::string> extra = {},
                     std::map<std::string, std::string> env = {}) const;

  static std::vector<std::string> tune_args(const std::string& model, std::vector<std::string> extra = {});

  std::vector<std::filesystem::path> result_files() const;
  // The result file's sections by name ("basic", "OPAT", ...); fails the
  // test unless exactly one result file exists.
  nlohmann::json only_result() const;
  // The same file as written: AOE's list of one-key sections.
  nlohmann::json only_result_file() const;

  static std::filesystem::path model(const std::string& name);

  std::filesystem::path dir_;
  std::filesystem::path bank_;
};

}  // namespace aoe::test
