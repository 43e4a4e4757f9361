// --tune_ops_file: which fused ops to tune, by node name or op type, as
// AOE's {"tune_ops_name": [...], "tune_ops_type": [...]}.
#pragma once

#include <filesystem>
#include <set>
#include <string>

#include "aoe/sdk/fusion.h"

namespace aoe::opat {

using aoe::sdk::FusedOp;

class TuneOps {
 public:
  // Everything is tuned.
  TuneOps() = default;
  // Throws aoe::sdk::Error(invalid_argument) naming the file and the key.
  static TuneOps from_file(const std::filesystem::path& file);

  // Exact matches: a fused op is selected when any of its nodes is named,
  // or when it contains an op of a listed type.
  bool selects(const FusedOp& op) const;
  bool selects_all() const { return names_.empty() && types_.empty(); }

 private:
  std::set<std::string> names_, types_;
};

}  // namespace aoe::opat
