// Runs a command as a child process and captures what it prints.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace aoe::test {

struct ProcessResult {
  int exit_code = -1;  // 128 + signal when killed
  std::string out;
  std::string err;
};

// env entries are added to (or override) this process's environment.
ProcessResult run_process(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                          const std::map<std::string, std::string>& env = {});

}  // namespace aoe::test
