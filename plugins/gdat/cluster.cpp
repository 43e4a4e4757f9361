#include "cluster.h"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <set>
#include <sstream>

#include "aoe/sdk/error.h"
#include "aoe/sdk/path_component.h"
#include "units.h"

namespace aoe::gdat {
namespace {

using aoe::sdk::Error;
using aoe::sdk::StatusCode;

// Reads one YAML map, naming the file and the dotted key in every error.
class Reader {
 public:
  Reader(YAML::Node node, std::string origin, std::string path)
      : node_(std::move(node)), origin_(std::move(origin)), path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& why) const {
    throw Error(StatusCode::invalid_argument, "cluster file " + origin_ + ": key '" + dotted(key) + "': " + why);
  }
  std::string dotted(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

  void only(const std::set<std::string>& allowed) const {
    for (const auto& item : node_) {
      const auto key = item.first.as<std::string>();
      if (!allowed.count(key)) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        fail(key, "unknown key (expected one of: " + list + ")");
      }
    }
  }
  bool has(const std::string& key) const { return node_[key].IsDefined() && !node_[key].IsNull(); }
  YAML::Node raw(const std::string& key) const { return node_[key]; }

  std::string text(const std::string& key) const {
    const auto v = node_[key];
    if (!v.IsScalar()) fail(key, "expected a value, got " + kind(v));
    return v.Scalar();
  }
  std::string text_or(const std::string& key, const std::string& fallback) const {
    return has(key) ? text(key) : fallback;
  }
  long long integer(const std::string& key, long long lo, long long hi) const {
    const auto s = text(key);
    size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != s.size() || used == 0) fail(key, "expected an integer, got '" + s + "'");
    if (v < lo || v > hi) fail(key, std::to_string(v) + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return v;
  }
  template <class Parse>
  double quantity(const std::string& key, Parse parse) const {
    try {
      return parse(text(key));
    } catch (const std::invalid_argument& e) {
      fail(key, e.what());
    }
  }
  Reader child(const std::string& key) const {
    const auto v = node_[key];
    if (!v.IsMap()) fail(key, "expected a map, got " + kind(v));
    return Reader(v, origin_, dotted(key));
  }

  static std::string kind(const YAML::Node& v) {
    switch (v.Type()) {
      case YAML::NodeType::Map: return "a map";
      case YAML::NodeType::Sequence: return "a list";
      case YAML::NodeType::Scalar: return "'" + v.Scalar() + "'";
      default: return "nothing";
    }
  }

 private:
  YAML::Node node_;
  std::string origin_;
  std::string path_;
};

Link read_link(const Reader& r, const std::string& key) {
  const Reader link = r.child(key);
  link.only({"bandwidth", "latency", "name"});
  if (!link.has("bandwidth")) link.fail("bandwidth", "missing (e.g. '25 Gb/s' or '30 GB/s')");
  Link out;
  out.bytes_per_us = link.quantity("bandwidth", parse_bandwidth);
  out.latency_us = link.has("latency") ? link.quantity("latency", parse_duration_us) : 0.0;
  return out;
}

std::vector<TablePoint> read_table(const Reader& r) {
  const auto rows = r.raw("allreduce_table");
  if (!rows.IsSequence() || rows.size() < 2)
    r.fail("allreduce_table", "expected a list of at least two [size, time] rows, e.g. [64 MiB, 5.2 ms]");
  std::vector<TablePoint> out;
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string key = "allreduce_table[" + std::to_string(i) + "]";
    const auto row = rows[i];
    YAML::Node size, time;
    if (row.IsSequence() && row.size() == 2) {
      size = row[0], time = row[1];
    } else if (row.IsMap() && row["size"] && row["time"]) {
      size = row["size"], time = row["time"];
    } else {
      r.fail(key, "expected [size, time] or {size: ..., time: ...}");
    }
    if (!size.IsScalar() || !time.IsScalar()) r.fail(key, "expected [size, time] or {size: ..., time: ...}");
    TablePoint p;
    try {
      p.bytes = parse_bytes(size.Scalar());
      p.us = parse_duration_us(time.Scalar());
    } catch (const std::invalid_argument& e) {
      r.fail(key, e.what());
    }
    if (!out.empty() && p.bytes <= out.back().bytes) r.fail(key, "sizes must increase row by row");
    // The DP is exact only for an allreduce time that never falls as the message grows.
    if (!out.empty() && p.us < out.back().us)
      r.fail(key, "time falls as the size grows; allreduce time must be non-decreasing in size");
    out.push_back(p);
  }
  return out;
}

void read_limits(const Reader& r, SplitLimits& limits) {
  const Reader t = r.child("tuning");
  t.only({"max_segments", "max_bucket", "baseline"});
  if (t.has("max_segments")) limits.max_segments = static_cast<int>(t.integer("max_segments", 0, 1 << 20));
  if (t.has("max_bucket")) limits.max_bucket_bytes = t.quantity("max_bucket", parse_bytes);
  if (t.has("baseline")) limits.baseline = t.text("baseline");
}

void read_measure(const Reader& r, MeasureSettings& m) {
  const Reader t = r.child("measure");
  t.only({"steps", "warmup", "candidates"});
  if (t.has("steps")) m.steps = static_cast<int>(t.integer("steps", 1, 100000));
  if (t.has("warmup")) m.warmup = static_cast<int>(t.integer("warmup", 0, 100000));
  if (t.has("candidates")) m.candidates = static_cast<int>(t.integer("candidates", 1, 64));
}

Algorithm algorithm_of(const Reader& r, Topology topology) {
  if (!r.has("algorithm")) return topology == Topology::hierarchical ? Algorithm::hierarchical : Algorithm::ring;
  const auto a = r.text("algorithm");
  if (a == "ring") return Algorithm::ring;
  if (a == "tree") return Algorithm::tree;
  if (a == "recursive_doubling") return Algorithm::recursive_doubling;
  if (a == "auto") return Algorithm::automatic;
  if (a == "hierarchical") {
    if (topology != Topology::hierarchical) r.fail("algorithm", "'hierarchical' needs topology: hierarchical");
    return Algorithm::hierarchical;
  }
  r.fail("algorithm", "expected ring, tree, recursive_doubling, hierarchical or auto, got '" + a + "'");
}

Cluster read_cluster(const YAML::Node& root, const std::string& origin, const std::string& default_name) {
  if (!root.IsMap()) throw Error(StatusCode::invalid_argument, "cluster file " + origin + ": expected a YAML map of keys");
  const Reader r(root, origin, "");
  r.only({"name", "description", "ranks", "topology", "ranks_per_node", "algorithm", "link", "intra_node",
          "inter_node", "reduce_bandwidth", "overhead", "allreduce_table", "tuning", "measure"});
  Cluster c;
  c.file = origin;
  c.name = r.text_or("name", default_name);
  if (!aoe::sdk::safe_path_component(c.name))
    r.fail("name", "expected letters, digits and . _ - + alone, 1 to 128, not starting with '.' (it names the bank "
                   "folder), got '" + c.name.substr(0, 160) + "'");
  if (!r.has("ranks")) r.fail("ranks", "missing: how many processes allreduce the gradients");
  c.ranks = static_cast<int>(r.integer("ranks", 2, 1 << 20));
  const auto topology = r.text_or("topology", "flat");
  if (topology == "flat") {
    c.topology = Topology::flat;
    if (r.has("ranks_per_node")) r.fail("ranks_per_node", "only for topology: hierarchical");
  } else if (topology == "hierarchical") {
    c.topology = Topology::hierarchical;
    if (!r.has("ranks_per_node")) r.fail("ranks_per_node", "missing: topology hierarchical needs the ranks of one node");
    c.ranks_per_node = static_cast<int>(r.integer("ranks_per_node", 1, c.ranks));
    if (c.ranks % c.ranks_per_node != 0)
      r.fail("ranks_per_node", std::to_string(c.ranks_per_node) + " does not divide ranks " + std::to_string(c.ranks));
  } else {
    r.fail("topology", "expected flat or hierarchical, got '" + topology + "'");
  }
  c.algorithm = algorithm_of(r, c.topology);
  if (r.has("allreduce_table")) c.table = read_table(r);
  if (c.topology == Topology::flat) {
    if (r.has("intra_node") || r.has("inter_node"))
      r.fail(r.has("intra_node") ? "intra_node" : "inter_node", "topology flat takes one 'link'");
    if (r.has("link")) c.intra = c.inter = read_link(r, "link");
    else if (c.table.empty()) r.fail("link", "missing: give link {bandwidth, latency} or an allreduce_table");
  } else {
    if (r.has("link")) r.fail("link", "topology hierarchical takes intra_node and inter_node");
    for (const char* key : {"intra_node", "inter_node"})
      if (!r.has(key) && c.table.empty()) r.fail(key, "missing: give {bandwidth, latency} or an allreduce_table");
    if (r.has("intra_node")) c.intra = read_link(r, "intra_node");
    if (r.has("inter_node")) c.inter = read_link(r, "inter_node");
  }
  if (r.has("reduce_bandwidth")) c.reduce_bytes_per_us = r.quantity("reduce_bandwidth", parse_bandwidth);
  if (r.has("overhead")) c.overhead_us = r.quantity("overhead", parse_duration_us);
  if (r.has("tuning")) read_limits(r, c.limits);
  if (r.has("measure")) read_measure(r, c.measure);
  return c;
}

}  // namespace

const char* to_string(Topology t) { return t == Topology::flat ? "flat" : "hierarchical"; }

const char* to_string(Algorithm a) {
  switch (a) {
    case Algorithm::ring: return "ring";
    case Algorithm::tree: return "tree";
    case Algorithm::recursive_doubling: return "recursive_doubling";
    case Algorithm::hierarchical: return "hierarchical";
    case Algorithm::automatic: return "auto";
  }
  return "ring";
}

nlohmann::json Cluster::describe() const {
  nlohmann::json out = {{"name", name}, {"ranks", ranks}, {"topology", to_string(topology)},
                        {"algorithm", to_string(algorithm)}};
  if (topology == Topology::hierarchical) out["ranks_per_node"] = ranks_per_node;
  auto link = [](const Link& l) { return nlohmann::json{{"bytes_per_us", l.bytes_per_us}, {"latency_us", l.latency_us}}; };
  if (table.empty()) {
    if (topology == Topology::flat) out["link"] = link(intra);
    else out["intra_node"] = link(intra), out["inter_node"] = link(inter);
  } else {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& p : table) rows.push_back({p.bytes, p.us});
    out["allreduce_table"] = rows;
  }
  if (reduce_bytes_per_us > 0) out["reduce_bytes_per_us"] = reduce_bytes_per_us;
  if (overhead_us > 0) out["overhead_us"] = overhead_us;
  out["max_segments"] = limits.max_segments;
  out["max_bucket_bytes"] = limits.max_bucket_bytes;
  return out;
}

Cluster parse_cluster(const std::string& yaml_text, const std::string& origin) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    throw Error(StatusCode::invalid_argument, "cluster file " + origin + ": not YAML: " + e.what());
  }
  return read_cluster(root, origin, std::filesystem::path(origin).stem().string());
}

Cluster load_cluster(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw Error(StatusCode::invalid_argument, "cluster file " + file.string() + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  return parse_cluster(text.str(), file.string());
}

}  // namespace aoe::gdat
