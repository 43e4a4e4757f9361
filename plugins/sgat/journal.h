// Every measurement of an SGAT job, appended to a file in its workspace as it
// is made, so `--reload` continues an interrupted job without measuring again:
// the searcher, given the same seed and the same results, proposes the same
// configs, and the journal answers them.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "aoe/sdk/measurement.h"
#include "aoe/sdk/tuning_space.h"

namespace aoe::sgat {

class Journal {
 public:
  // Reads what an earlier run wrote when `reload`, else starts the file afresh.
  Journal(std::filesystem::path file, bool reload);

  struct Known {
    aoe::sdk::Measurement result;
    bool earlier_run = false;  // read back on reload, not measured by this run
  };
  // The recorded result of a config of the subgraph `repo_key`, if any.
  std::optional<Known> find(const std::string& repo_key, const aoe::sdk::Config& config) const;
  void record(const std::string& repo_key, const aoe::sdk::Config& config, const aoe::sdk::Measurement& result);
  size_t loaded() const { return loaded_; }

 private:
  std::filesystem::path file_;
  std::map<std::pair<std::string, aoe::sdk::Config>, Known> known_;
  std::ofstream out_;
  size_t loaded_ = 0;
};

}  // namespace aoe::sgat
