// GDAT: gradient allreduce split tuning. The model's gradients, in the order
// backward makes them ready, are cut into contiguous allreduce segments so
// communication overlaps backward and leaves the shortest tail. The split is
// searched by a searcher plugin and solved exactly by dynamic programming
// under the cluster's cost model, compared with what frameworks do by default,
// measured under mpirun when launched there, and kept in the bank.
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>

#include "aoe/sdk/atomic_file.h"
#include "aoe/sdk/plugin.h"
#include "baselines.h"
#include "chrome_trace.h"
#include "cluster.h"
#include "gdat_bank.h"
#include "gdat_report.h"
#include "measure_protocol.h"
#include "mpi_measure.h"
#include "optimal_split.h"
#include "profile_source.h"
#include "split_search.h"
#include "units.h"

namespace aoe::gdat {
namespace {

using aoe::sdk::Error;
using aoe::sdk::StatusCode;
using nlohmann::json;

const std::set<std::string>& baseline_names() {
  static const std::set<std::string> names = {"no_fusion",        "single_bucket",       "ddp_25mb",
                                              "horovod_64mb_5ms", "horovod_128mb_1ms",   "hccl_default",
                                              "mindspore_auto_64mb", "mindspore_85_160"};
  return names;
}

// The cluster files shipped beside the plugin, at AOE_PLUGIN_DATA_DIR from its folder.
std::filesystem::path shipped_clusters() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&shipped_clusters), &info) || !info.dli_fname) return {};
  return (std::filesystem::absolute(info.dli_fname).parent_path() / AOE_PLUGIN_DATA_DIR).lexically_normal();
}

// A path, or the name of a shipped file: --cluster ascend910_8p_hccs.
std::string cluster_path(const std::string& value) {
  const std::filesystem::path given = value;
  if (value.find('/') != std::string::npos || given.extension() == ".yaml" || std::filesystem::exists(given))
    return value;
  const auto dir = shipped_clusters();
  const auto shipped = dir / (value + ".yaml");
  if (std::filesystem::exists(shipped)) return shipped.string();
  std::string names;
  if (std::filesystem::is_directory(dir))
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".yaml") names += (names.empty() ? "" : ", ") + e.path().stem().string();
  throw Error(StatusCode::invalid_argument, "cluster file " + value + ": not a file, nor one shipped in " +
                                                dir.string() + " (" + (names.empty() ? "none" : names) + ")");
}

Cluster cluster_of(const json& opts) {
  const std::string value = opts.value("cluster", std::string());
  if (value.empty())
    throw Error(StatusCode::invalid_argument,
                "gdat needs --cluster cluster.yaml: ranks, topology, links and algorithm, or a measured allreduce "
                "table (or the name of a shipped one: share/aoe/gdat/clusters)");
  const std::string path = cluster_path(value);
  Cluster c = load_cluster(path);
  // A host that passes the limits as options overrides the file.
  if (opts.contains("max_segments") && opts["max_segments"].is_number_integer())
    c.limits.max_segments = std::max(0, opts["max_segments"].get<int>());
  if (opts.contains("max_bucket_bytes") && opts["max_bucket_bytes"].is_number())
    c.limits.max_bucket_bytes = std::max(0.0, opts["max_bucket_bytes"].get<double>());
  if (!baseline_names().count(c.limits.baseline)) {
    std::string list;
    for (const auto& n : baseline_names()) list += (list.empty() ? "" : ", ") + n;
    throw Error(StatusCode::invalid_argument, "cluster file " + path + ": key 'tuning.baseline': unknown baseline '" +
                                                  c.limits.baseline + "' (expected one of: " + list + ")");
  }
  return c;
}

bool fits(const Split& split, const std::vector<uint64_t>& prefix, const SplitLimits& limits) {
  if (limits.max_segments > 0 && split.size() > static_cast<size_t>(limits.max_segments)) return false;
  if (limits.max_bucket_bytes <= 0) return true;
  size_t first = 0;
  for (size_t end : split) {
    if (end > first && static_cast<double>(prefix[end + 1] - prefix[first]) > limits.max_bucket_bytes) return false;
    first = end + 1;
  }
  return true;
}

class GdatRun {
 public:
  GdatRun(const aoe::sdk::Job& job, const Launch& launch, MeasureDriver* driver, std::string why_not_measured)
      : job_(job),
        opts_(job.options()),
        speaks_(launch.rank == 0),
        launch_(launch),
        driver_(driver),
        why_not_measured_(std::move(why_not_measured)) {}

  json run() {
    o_.model = opts_.value("model_name", job_.graph().name);
    o_.cluster = cluster_of(opts_);
    const AllreduceCost cost(o_.cluster);
    cost_ = &cost;
    o_.cost_label = cost.label();
    log("cluster " + o_.cluster.name + " (" + o_.cluster.file + "): " + cost.label() + "; " + limits_text());
    o_.profile = gradient_profile(job_, [this](const std::string& line) { log(line); });
    prefix_ = o_.profile.prefix_bytes();

    compare_with_baselines();
    solve_exactly();
    const auto banked = look_up_bank();
    const bool reuse = banked && !opts_.value("repeat_tune", false);
    if (reuse) {
      o_.answer = candidate("bank", "the bank's split for this profile and cluster", *banked);
      o_.answer_from = "bank hit (REPEAT_TUNE=True tunes again)";
    }
    publish("tuning incomplete");
    if (!reuse) search();
    publish("tuning incomplete");
    if (driver_ && !reuse && !job_.host().cancelled()) measure();
    else o_.measure_note = reuse ? "bank hit: reused without measuring" : why_not_measured_;
    const bool cancelled = job_.host().cancelled();
    if (speaks_ && !cancelled) {
      o_.repo = record(banked, reuse);
      log("bank " + o_.cluster.name + "/" + o_.bank_hash + ": " + (o_.repo.empty() ? "not stored" : o_.repo));
    }
    if (!speaks_) o_.measure_note += "; rank " + std::to_string(launch_.rank) + " writes neither the bank nor the workspace";
    if (speaks_) write_artifacts();
    for (const auto& line : summary_lines(o_)) log(line);
    const std::string status = cancelled ? "tuning incomplete" : "tuning successful";
    json report = gdat_report(o_, status);
    if (driver_)
      driver_->finish({{"status", status},
                       {"model_baseline_performance(ms)", report["model_baseline_performance(ms)"]},
                       {"model_result_performance(ms)", report["model_result_performance(ms)"]},
                       {"model_performance_improvement", report["model_performance_improvement"]}});
    return report;
  }

 private:
  void log(const std::string& line) const { speaks_ ? job_.host().info(line) : job_.host().debug(line); }
  void publish(const std::string& status) const {
    if (speaks_) job_.publish(gdat_report(o_, status));
  }

  std::string limits_text() const {
    const auto& l = o_.cluster.limits;
    std::string out = l.max_segments > 0 ? "at most " + std::to_string(l.max_segments) + " segments" : "any number of segments";
    if (l.max_bucket_bytes > 0) out += ", buckets up to " + format_bytes(l.max_bucket_bytes);
    return out + ", compared with " + l.baseline;
  }

  Candidate candidate(const std::string& name, const std::string& description, const Split& split,
                      const std::vector<double>& release = {}) const {
    return {name, description, split, simulate(o_.profile, *cost_, split, release), fits(split, prefix_, o_.cluster.limits)};
  }

  void compare_with_baselines() {
    for (const auto& b : all_baselines(o_.profile, *cost_))
      o_.baselines.push_back(candidate(b.name, b.description, b.split, b.release));
    o_.baseline = o_.cluster.limits.baseline;
    const bool present = std::any_of(o_.baselines.begin(), o_.baselines.end(),
                                     [&](const Candidate& c) { return c.name == o_.baseline; });
    if (!present) {
      job_.host().warn("baseline " + o_.baseline + " does not apply to " + std::to_string(o_.profile.size()) +
                       " gradients (ResNet-50 has 161): comparing with hccl_default");
      o_.baseline = "hccl_default";
    }
  }

  const Candidate& baseline() const {
    for (const auto& b : o_.baselines)
      if (b.name == o_.baseline) return b;
    return o_.baselines.front();
  }

  void solve_exactly() {
    const auto& l = o_.cluster.limits;
    const auto dp = optimal_split(o_.profile, *cost_, l.max_segments, l.max_bucket_bytes);
    if (dp.split.empty())
      throw Error(StatusCode::invalid_argument,
                  "cluster file " + o_.cluster.file + ": keys 'tuning.max_segments' and 'tuning.max_bucket': no split of " +
                      std::to_string(o_.profile.size()) + " gradients (" +
                      format_bytes(static_cast<double>(o_.profile.total_bytes())) + ") fits " +
                      std::to_string(l.max_segments) + " segments of at most " + format_bytes(l.max_bucket_bytes) +
                      ": raise either");
    o_.optimum = candidate("dp_optimum", "dynamic programming: exact under the cost model, within the limits", dp.split);
    const auto free = optimal_split(o_.profile, *cost_, 0, l.max_bucket_bytes);
    o_.optimum_unlimited = candidate("dp_unlimited", "dynamic programming without a segment limit", free.split);
    o_.answer = o_.optimum;
    o_.answer_from = "dp_optimum: exact under the cost model";
  }

  std::optional<Split> look_up_bank() {
    const json key = bank_key(o_.profile, o_.cluster);
    key_ = key;
    o_.bank_hash = key["hash"];
    try {
      const auto entry = job_.host().bank_lookup(key);
      if (!entry) return std::nullopt;
      auto split = banked_split(*entry, o_.profile.size());
      if (!split) job_.host().warn("bank entry " + o_.bank_hash + " holds no usable split: tuning again");
      return split;
    } catch (const Error& e) {
      job_.host().warn(std::string(e.what()) + ": tuning without the bank");
      return std::nullopt;
    }
  }

  void search() {
    SearchSummary s;
    s.searcher = job_.searcher_name("AllReduce");
    const auto& l = o_.cluster.limits;
    const SplitSpace space(o_.profile.size(), l.max_segments, baseline().split);
    const uint64_t budget = opts_.value("budget", uint64_t{64});
    if (space.knobs() == 0 || budget == 0) {
      s.stop_reason = space.knobs() == 0 ? "one gradient: nothing to search" : "budget 0";
      o_.search = s;
      return;
    }
    auto searcher = job_.searcher("AllReduce");
    auto evaluate = [&](const Split& split) -> std::optional<double> {
      if (!fits(split, prefix_, l)) return std::nullopt;
      return comm_end(o_.profile, prefix_, *cost_, split);
    };
    auto cancelled = [&] { return job_.host().cancelled(); };
    // Evaluations take microseconds: a tenth of the budget per line is enough.
    const uint64_t every = std::max<uint64_t>(1, budget / 10);
    uint64_t next_report = every;
    auto progress = [&](uint64_t done, double best_us) {
      if (done < next_report && done < budget) return;
      next_report = (done / every + 1) * every;
      job_.host().progress("search", done, budget, "best communication end " + ms_text(best_us));
    };
    const SearchLimits limits{budget, opts_.value("seed", uint64_t{0}),
                              static_cast<uint32_t>(std::max<uint64_t>(1, opts_.value("parallel_num", uint64_t{8})))};
    const auto r = search_split(*searcher, space, evaluate, limits, cancelled, progress);
    s.evaluations = r.evaluations;
    s.refused = r.refused;
    s.stop_reason = r.stop_reason;
    if (!r.best.empty()) s.best = candidate("searcher_best", "the searcher's best split in its budget", r.best);
    o_.search = s;
    if (s.best)
      log("searcher " + s.searcher + ": " + std::to_string(s.evaluations) + " evaluations (" + s.stop_reason +
          "), best tail " + ms_text(s.best->timeline.tail_us()) + ", optimum " + ms_text(o_.optimum.timeline.tail_us()));
  }

  // The model's best few, measured: the DP on the calibrated cost, the DP on
  // the file's, the searcher's best, the baseline, then other baselines.
  std::vector<Candidate> measurement_candidates(const AllreduceCost& calibrated) const {
    const auto& l = o_.cluster.limits;
    std::vector<Candidate> pool;
    const auto dp = optimal_split(o_.profile, calibrated, l.max_segments, l.max_bucket_bytes);
    pool.push_back(candidate("dp_calibrated", "dynamic programming on the calibrated cost", dp.split));
    pool.push_back(o_.optimum);
    if (o_.search && o_.search->best) pool.push_back(*o_.search->best);
    std::vector<Candidate> others;
    for (const auto& b : o_.baselines)
      if (b.name != o_.baseline && b.fits) others.push_back(b);
    std::sort(others.begin(), others.end(), [&](const Candidate& a, const Candidate& b) {
      return comm_end(o_.profile, prefix_, calibrated, a.split) < comm_end(o_.profile, prefix_, calibrated, b.split);
    });
    pool.insert(pool.end(), others.begin(), others.end());
    std::vector<Candidate> out;
    std::set<Split> seen = {baseline().split};
    for (const auto& c : pool) {
      if (out.size() >= static_cast<size_t>(o_.cluster.measure.candidates)) break;
      if (seen.insert(c.split).second) out.push_back(c);
    }
    out.push_back(baseline());  // always measured: the improvement is against it
    return out;
  }

  void measure() {
    const auto& m = o_.cluster.measure;
    const int ranks = launch_.size;
    if (ranks != o_.cluster.ranks)
      job_.host().warn("measuring on " + std::to_string(ranks) + " ranks; " + o_.cluster.file + " describes " +
                       std::to_string(o_.cluster.ranks));
    driver_->send_profile(o_.profile);
    std::vector<double> sizes;
    for (double s = 4096; s < static_cast<double>(o_.profile.total_bytes()); s *= 4) sizes.push_back(s);
    sizes.push_back(static_cast<double>(o_.profile.total_bytes()));
    log("measuring under mpirun on " + std::to_string(ranks) + " ranks: allreduce sweep of " +
        std::to_string(sizes.size()) + " sizes");
    const auto table = driver_->calibrate(sizes, 3);
    const auto calibrated = AllreduceCost::from_table(table, 0, "calibrated on " + std::to_string(ranks) + " ranks");
    const auto fit = fit_alpha_beta(table);

    json rows = json::array();
    std::optional<Candidate> best;
    double best_end = 0, baseline_end = 0;
    const auto candidates = measurement_candidates(calibrated);
    for (size_t i = 0; i < candidates.size(); ++i) {
      const auto& c = candidates[i];
      job_.host().progress("measure", i + 1, candidates.size(), c.name);
      const auto r = driver_->replay(c.split, m.warmup, m.steps, [&] { return job_.host().cancelled(); });
      if (r.cancelled) break;
      const bool is_baseline = i + 1 == candidates.size();
      json steps = json::array();
      for (double s : r.steps_us) steps.push_back(s / 1000);
      rows.push_back({{"name", is_baseline ? o_.baseline : c.name},
                      {"segments", c.split.size()},
                      {"split_index", c.split},
                      {"fits_limits", c.fits},
                      {"predicted_communication_end(ms)", c.timeline.comm_end_us / 1000},
                      {"calibrated_communication_end(ms)", comm_end(o_.profile, prefix_, calibrated, c.split) / 1000},
                      {"measured_communication_end(ms)", r.comm_end_us / 1000},
                      {"measured_tail(ms)", r.tail_us / 1000},
                      {"steps(ms)", steps}});
      log("measured " + c.name + ": communication ends " + ms_text(r.comm_end_us) + ", tail " + ms_text(r.tail_us) +
          " (predicted " + ms_text(c.timeline.tail_us()) + ")");
      if (is_baseline) baseline_end = r.comm_end_us;
      if (c.fits && (!best || r.comm_end_us < best_end)) best = c, best_end = r.comm_end_us;
    }
    json points = json::array();
    for (const auto& p : table) points.push_back({p.bytes, p.us});
    o_.measured = {{"measured", true},
                   {"ranks", ranks},
                   {"cluster_ranks", o_.cluster.ranks},
                   {"warmup_steps", m.warmup},
                   {"timed_steps", m.steps},
                   {"replay", "backward replayed by its ready times; each segment's MPI_Iallreduce issued once its "
                              "last gradient is ready, requests polled until all complete"},
                   {"calibration",
                    {{"allreduce_table", points},
                     {"alpha(us)", fit.alpha_us},
                     {"beta(us_per_MiB)", fit.us_per_byte * 1048576}}},
                   {"candidates", rows}};
    if (!best || rows.size() < candidates.size()) {
      o_.measure_note = "measurement interrupted";
      return;
    }
    const auto step = [&](double end) { return o_.profile.forward_us + std::max(o_.profile.backward_us, end); };
    o_.answer = *best;
    o_.answer_from = "measured: fastest of " + std::to_string(candidates.size()) + " candidates on " +
                     std::to_string(ranks) + " ranks";
    o_.measured["chosen"] = best->name;
    o_.measured_answer_step_us = step(best_end);
    o_.measured_baseline_step_us = step(baseline_end);
    measured_ends_ = {best_end, baseline_end};
  }

  std::string record(const std::optional<Split>& banked, bool reuse) {
    if (reuse) return "hit";
    const Candidate& base = baseline();
    const double after_end = measured_ends_ ? measured_ends_->first : o_.answer.timeline.comm_end_us;
    const double before_end = measured_ends_ ? measured_ends_->second : base.timeline.comm_end_us;
    const bool improved = after_end < before_end - 1e-9 * std::max(1.0, before_end);
    if (!improved && !banked) return "unsatisfied";
    const double after = o_.measured_answer_step_us.value_or(o_.answer.timeline.step_us());
    const double before = o_.measured_baseline_step_us.value_or(base.timeline.step_us());
    const json entry = {{"key", key_},
                        {"model", o_.model},
                        {"split", o_.answer.split},
                        {"formats", split_formats(o_.answer.split, o_.profile)},
                        {"before_us", before},
                        {"after_us", after},
                        {"communication_end_us", after_end},
                        {"baseline", o_.baseline},
                        {"chosen_by", o_.answer_from},
                        {"source", measured_ends_ ? "measured" : "model"},
                        {"cost_model", o_.cost_label},
                        {"provenance",
                         {{"cluster_file", o_.cluster.file},
                          {"gradient_source", o_.profile.source},
                          {"searcher", job_.searcher_name("AllReduce")},
                          {"seed", opts_.value("seed", uint64_t{0})}}}};
    try {
      switch (job_.host().bank_record(entry)) {
        case aoe::sdk::BankOutcome::added: return "add";
        case aoe::sdk::BankOutcome::updated: return "update";
        case aoe::sdk::BankOutcome::kept_existing: return "reserved";
      }
    } catch (const Error& e) {
      job_.host().warn(std::string("not stored in the bank: ") + e.what());
    }
    return "";
  }

  void write_artifacts() const {
    const std::filesystem::path workspace = opts_.value("workspace", std::string());
    if (workspace.empty()) return;
    const auto dir = workspace / "tunespace" / "result";
    try {
      write_profile_csv(dir / (o_.model + "_gradient_profile.csv"), o_.profile);
      const json report = gdat_report(o_, "");
      aoe::sdk::write_atomically(
          dir / (o_.model + "_gdat_split.json"),
          json{{"model", o_.model}, {"cluster", o_.cluster.name}, {"result", report["result"]}}.dump(2) + "\n");
      // The chosen split's step beside the baseline it is compared with.
      aoe::sdk::write_atomically(dir / (o_.model + "_gdat_trace.json"),
                                 chrome_trace(o_.profile, {&o_.answer, &baseline()}).dump() + "\n");
    } catch (const std::exception& e) {
      job_.host().warn(std::string("workspace not written: ") + e.what());
    }
  }

  const aoe::sdk::Job& job_;
  const json& opts_;
  const bool speaks_;  // rank 0, or a run without mpirun: logs, bank and workspace
  const Launch launch_;
  MeasureDriver* driver_;
  std::string why_not_measured_;
  const AllreduceCost* cost_ = nullptr;
  std::vector<uint64_t> prefix_;
  json key_;
  GdatOutcome o_;
  std::optional<std::pair<double, double>> measured_ends_;  // answer, baseline
};

// Ranks other than 0 under mpirun: take part in rank 0's measurement.
json follow_rank0(const aoe::sdk::Job& job, const MpiWorld& world) {
  job.host().debug("rank " + std::to_string(world.rank()) + " of " + std::to_string(world.size()) +
                   ": following rank 0's measurement");
  const json summary = serve_measurements(world);
  json report = {{"gdat_tuning_result", summary.value("status", std::string("tuning successful"))},
                 {"mpi", {{"rank", world.rank()},
                          {"ranks", world.size()},
                          {"role", "measurement peer: rank 0 writes the result and the bank"}}}};
  for (const char* k : {"model_baseline_performance(ms)", "model_result_performance(ms)", "model_performance_improvement"})
    if (summary.contains(k)) report[k] = summary[k];
  return report;
}

class GdatMode : public aoe::sdk::TuningMode {
 public:
  json run(const aoe::sdk::Job& job) override {
    const Launch launch = launch_from_environment();
    std::string why_not;
    const auto world = MpiWorld::join(why_not);
    if (world && world->rank() != 0) return follow_rank0(job, *world);
    std::optional<MeasureDriver> driver;
    if (world) driver.emplace(*world);
    if (!world && launch.under_mpirun) job.host().warn("under mpirun but not measuring: " + why_not);
    try {
      return GdatRun(job, launch, driver ? &*driver : nullptr, why_not).run();
    } catch (const std::exception& e) {
      if (driver) driver->fail(e.what());
      throw;
    }
  }
};

}  // namespace
}  // namespace aoe::gdat

AOE_REGISTER_TUNING_MODE(aoe::gdat::GdatMode, "gdat",
                         "gradient allreduce split tuning: fusion points of the gradients, by cost model, DP and "
                         "measurement under mpirun");
