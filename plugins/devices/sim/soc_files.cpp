#include "soc_files.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <set>
#include <sstream>

#include "aoe/sdk/error.h"
#include "aoe/sdk/path_component.h"

namespace aoe::sim {
namespace {

namespace fs = std::filesystem;
using sdk::Error;
using sdk::StatusCode;

const char* const kKeysHelp = "the keys are listed in the simulator's README";

// Reads one SoC file's keys, remembering which it read so that a misspelt
// extra key is caught instead of silently ignored.
class SocReader {
 public:
  explicit SocReader(fs::path file) : file_(std::move(file)) {
    try {
      root_ = YAML::LoadFile(file_.string());
    } catch (const YAML::BadFile&) {
      fail(StatusCode::not_found, "cannot be read; check the path and its permissions");
    } catch (const YAML::Exception& e) {
      fail(StatusCode::invalid_argument, "is not valid YAML (" + e.msg + " at line " + std::to_string(e.mark.line + 1) +
                                             "); fix the line");
    }
    if (!root_.IsMap()) fail(StatusCode::invalid_argument, "must be a map of key: value (" + std::string(kKeysHelp) + ")");
  }

  void text(const char* key, std::string& out) { out = scalar<std::string>(key, "a string"); }
  // A name that becomes a folder of the bank: refused unless it is one plain component.
  void folder_name(const char* key, std::string& out) {
    text(key, out);
    if (!aoe::sdk::safe_path_component(out))
      fail_key(key, "cannot name a bank folder: use letters, digits and . _ - + alone (1 to 128, not starting with '.')");
  }

  // Sizes, rates, counts and clocks: zero would divide or mean no hardware.
  template <class T>
  void positive(const char* key, T& out) {
    out = scalar<T>(key, "a number");
    if (!(out > 0)) fail_key(key, "must be > 0");
  }

  // Fixed costs may be zero, for a SoC whose overheads are not known.
  void cost(const char* key, double& out) {
    out = scalar<double>(key, "a number");
    if (!(out >= 0)) fail_key(key, "must be >= 0");
  }

  // A cost the first SoC files lacked: absent, it is zero (not known), as
  // a file written before it was modelled meant.
  void cost_if_given(const char* key, double& out) {
    const YAML::Node& root = root_;
    if (root[key]) cost(key, out);
    else out = 0;
  }

  // A share in [0, 1] the first SoC files lacked: absent, it is zero.
  void share_if_given(const char* key, double& out) {
    cost_if_given(key, out);
    if (out > 1) fail_key(key, "must be <= 1 (a share)");
  }

  void reject_unknown_keys() const {
    for (const auto& entry : root_) {
      const auto key = entry.first.as<std::string>();
      if (!read_.count(key)) fail_key(key, "is not a key of a SoC file; remove it or fix its spelling (" +
                                               std::string(kKeysHelp) + ")");
    }
  }

  const fs::path& file() const { return file_; }

 private:
  template <class T>
  T scalar(const char* key, const char* kind) {
    read_.insert(key);
    const YAML::Node node = root_[key];
    if (!node || node.IsNull()) fail_key(key, std::string("is missing; add it (") + kKeysHelp + ")");
    if (!node.IsScalar()) fail_key(key, std::string("must be ") + kind);
    try {
      return node.as<T>();
    } catch (const YAML::Exception&) {
      fail_key(key, std::string("must be ") + kind + ", not '" + node.Scalar() + "'");
    }
  }

  [[noreturn]] void fail(StatusCode code, const std::string& what) const {
    throw Error(code, "SoC file " + file_.string() + " " + what);
  }
  [[noreturn]] void fail_key(const std::string& key, const std::string& what) const {
    throw Error(StatusCode::invalid_argument, "SoC file " + file_.string() + ": key '" + key + "' " + what);
  }

  fs::path file_;
  YAML::Node root_;
  std::set<std::string> read_;
};

// Where the plugin's shipped files lie: none until the plugin says (a
// program that links the simulator's code, a bench or a test, has none).
fs::path& shipped_soc_dir() {
  static fs::path dir;
  return dir;
}

bool is_path(std::string_view name) {
  return name.find('/') != std::string_view::npos || fs::path(name).extension() == ".yaml";
}

std::string joined(const std::vector<fs::path>& dirs) {
  std::string out;
  for (const auto& d : dirs) out += (out.empty() ? "" : ", ") + d.string();
  return out.empty() ? "(none)" : out;
}

}  // namespace

void set_shipped_soc_dir(std::filesystem::path dir) { shipped_soc_dir() = std::move(dir); }

std::vector<fs::path> soc_search_path() {
  std::vector<fs::path> dirs;
  if (const char* env = std::getenv("AOE_SIM_SOC_PATH")) {
    std::istringstream in(env);
    for (std::string dir; std::getline(in, dir, ':');)
      if (!dir.empty()) dirs.emplace_back(dir);
  }
  if (auto shipped = shipped_soc_dir(); !shipped.empty()) dirs.push_back(std::move(shipped));
  return dirs;
}

Soc load_soc_file(const fs::path& file) {
  SocReader r(file);
  Soc s;
  r.text("target", s.target);
  r.folder_name("soc_version", s.soc_version);
  r.positive("ai_cores", s.ai_cores);
  r.positive("clock_ghz", s.clock_ghz);
  r.positive("cube_m", s.cube_m);
  r.positive("cube_k", s.cube_k);
  r.positive("cube_n", s.cube_n);

  r.positive("l0a_bytes", s.l0a_bytes);
  r.positive("l0b_bytes", s.l0b_bytes);
  r.positive("l0c_bytes", s.l0c_bytes);
  r.positive("l1_bytes", s.l1_bytes);
  r.positive("ub_bytes", s.ub_bytes);
  r.positive("l2_bytes", s.l2_bytes);
  r.positive("l0_align_bytes", s.l0_align_bytes);

  r.positive("hbm_gbps", s.hbm_gbps);
  r.positive("hbm_bytes", s.hbm_bytes);
  r.positive("gm_to_l1_rate", s.gm_to_l1_rate);
  r.positive("ddr_rate", s.ddr_rate);
  r.positive("l1_to_l0a_rate", s.l1_to_l0a_rate);
  r.positive("l1_to_l0b_rate", s.l1_to_l0b_rate);
  r.positive("l0c_to_ub_rate", s.l0c_to_ub_rate);
  r.positive("ub_to_gm_rate", s.ub_to_gm_rate);
  r.positive("ub_to_l2_rate", s.ub_to_l2_rate);
  r.positive("vector_bytes_per_cycle", s.vector_bytes_per_cycle);
  r.positive("transcendental_elems_per_cycle", s.transcendental_elems_per_cycle);

  r.cost("launch_us", s.launch_us);
  r.cost("block_launch_us", s.block_launch_us);
  r.cost("dma_cycles", s.dma_cycles);
  r.cost("mte1_cycles", s.mte1_cycles);
  r.cost("mmad_cycles", s.mmad_cycles);
  r.cost("vector_latency_cycles", s.vector_latency_cycles);
  r.cost("transcendental_latency_cycles", s.transcendental_latency_cycles);
  r.cost_if_given("index_cycles", s.index_cycles);
  r.share_if_given("ub_contention", s.ub_contention);
  r.reject_unknown_keys();

  // Files are looked up by name, so a file named after another target would
  // never be found under its own.
  if (s.target != file.stem().string())
    throw Error(StatusCode::invalid_argument, "SoC file " + file.string() + ": key 'target' is '" + s.target +
                                                  "' but the file is named " + file.filename().string() +
                                                  "; rename the file to " + s.target + ".yaml");
  return s;
}

Soc load_soc(std::string_view name) {
  if (is_path(name)) return load_soc_file(fs::path(name));
  const auto dirs = soc_search_path();
  for (const auto& dir : dirs) {
    const auto file = dir / (std::string(name) + ".yaml");
    if (fs::is_regular_file(file)) return load_soc_file(file);
  }
  throw Error(StatusCode::not_found, "no simulated SoC named '" + std::string(name) + "': no " + std::string(name) +
                                         ".yaml in " + joined(dirs) +
                                         "; add one to a directory of AOE_SIM_SOC_PATH");
}

const Soc& ascend910() {
  static const Soc soc = load_soc("ascend910");
  return soc;
}

}  // namespace aoe::sim
