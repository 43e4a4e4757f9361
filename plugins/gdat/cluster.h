// The cluster a model trains on, as the user describes it in YAML: ranks,
// topology, links and the allreduce algorithm, or a measured table of
// allreduce time by message size; and the limits the split must respect.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace aoe::gdat {

enum class Topology { flat, hierarchical };
enum class Algorithm { ring, tree, recursive_doubling, hierarchical, automatic };

const char* to_string(Topology t);
const char* to_string(Algorithm a);

struct Link {
  double bytes_per_us = 0;
  double latency_us = 0;  // per message step
};

struct TablePoint {
  double bytes = 0;
  double us = 0;
};

// What the split must fit: HCCL takes at most 8 segments.
struct SplitLimits {
  int max_segments = 8;         // 0: no limit (DDP, MindSpore index mode)
  double max_bucket_bytes = 0;  // 0: no limit; a single tensor may still exceed it
  std::string baseline = "hccl_default";  // what the result is compared with
};

// The real-measurement run under mpirun.
struct MeasureSettings {
  int steps = 10;      // timed steps per candidate; the median counts
  int warmup = 2;      // untimed steps first
  int candidates = 4;  // the model's best few, measured
};

struct Cluster {
  std::string name;  // the bank's soc_version for this mode
  std::string file;
  int ranks = 0;
  Topology topology = Topology::flat;
  int ranks_per_node = 0;  // hierarchical only
  Algorithm algorithm = Algorithm::ring;
  Link intra;  // flat: the one link
  Link inter;  // flat: the same as intra
  double reduce_bytes_per_us = 0;  // the reduction's own rate (gamma); 0: free
  double overhead_us = 0;          // fixed cost of each allreduce call: launch, negotiation
  std::vector<TablePoint> table;   // measured; when present it replaces the formula
  SplitLimits limits;
  MeasureSettings measure;

  int nodes() const { return topology == Topology::hierarchical ? ranks / ranks_per_node : 1; }
  // Everything that decides an allreduce's time and the split's limits, canonical.
  nlohmann::json describe() const;
};

// Throws aoe::sdk::Error(invalid_argument) naming the file and the key.
Cluster load_cluster(const std::filesystem::path& file);
// The same from YAML text; origin names it in errors.
Cluster parse_cluster(const std::string& yaml_text, const std::string& origin);

}  // namespace aoe::gdat
