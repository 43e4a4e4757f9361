// Every measurement of an SGAT job, appended to a file in its workspace as it
// is made, so `--reload` continues an interrupted job without measuring again:
// the searcher, given the same seed and the same results, proposes the same
// configs, and the journal answers them. Each line is keyed by the model,
// the device, the SoC and the subgraph's space version: a reload on another
// device or after the space changed keeps those lines but answers nothing from them.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "aoe/sdk/measurement.h"
#include "aoe/sdk/tuning_space.h"

namespace aoe::sgat {

// What a measurement holds for: the same subgraph measures differently elsewhere.
struct JournalContext {
  std::string model, device, soc_version;
};

class Journal {
 public:
  // Reads what an earlier run wrote when `reload`, else starts the file afresh.
  Journal(std::filesystem::path file, bool reload, JournalContext context);

  struct Known {
    aoe::sdk::Measurement result;
    bool earlier_run = false;  // read back on reload, not measured by this run
  };
  // The recorded result of a config of the subgraph `repo_key` in the space
  // of `space_version`, if any.
  std::optional<Known> find(const std::string& repo_key, const std::string& space_version,
                            const aoe::sdk::Config& config) const;
  void record(const std::string& repo_key, const std::string& space_version, const aoe::sdk::Config& config,
              const aoe::sdk::Measurement& result);
  size_t loaded() const { return loaded_; }
  // Lines of an earlier run on another model, device or SoC, kept and not used.
  size_t foreign() const { return foreign_; }

 private:
  using Key = std::tuple<std::string, std::string, aoe::sdk::Config>;  // repo_key, space_version, config
  std::filesystem::path file_;
  JournalContext context_;
  std::map<Key, Known> known_;
  std::ofstream out_;
  size_t loaded_ = 0;
  size_t foreign_ = 0;
};

}  // namespace aoe::sgat
