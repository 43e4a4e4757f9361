#include "gdat_report.h"

#include <cmath>
#include <cstdio>

#include "report_fields.h"
#include "units.h"

namespace aoe::gdat {
namespace {

using aoe::modes::percent;
using nlohmann::json;

double ms(double us) { return std::round(us * 10) / 1e4; }

std::vector<uint64_t> sizes(const GradientProfile& p) {
  std::vector<uint64_t> out;
  for (const auto& g : p.grads) out.push_back(g.bytes);
  return out;
}

std::string list_text(const json& values) {
  std::string out;
  for (const auto& v : values) {
    std::string item = v.dump();
    if (v.is_number_float()) {
      char text[32];
      std::snprintf(text, sizeof text, "%.6g", v.get<double>());
      item = text;
    }
    out += (out.empty() ? "" : ", ") + item;
  }
  return "[" + out + "]";
}

const Candidate* find(const std::vector<Candidate>& all, const std::string& name) {
  for (const auto& c : all)
    if (c.name == name) return &c;
  return nullptr;
}

json timeline_json(const Candidate& c, const GradientProfile& p) {
  json segments = json::array();
  for (size_t k = 0; k < c.timeline.segments.size(); ++k) {
    const auto& s = c.timeline.segments[k];
    segments.push_back({{"segment", k + 1},
                        {"first_index", s.first},
                        {"last_index", s.last},
                        {"first_tensor", p.grads[s.first].name},
                        {"last_tensor", p.grads[s.last].name},
                        {"bytes", s.bytes},
                        {"ready(ms)", ms(s.ready_us)},
                        {"allreduce_start(ms)", ms(s.start_us)},
                        {"allreduce_end(ms)", ms(s.end_us)}});
  }
  return {{"backward_end(ms)", ms(c.timeline.backward_us)},
          {"communication_end(ms)", ms(c.timeline.comm_end_us)},
          {"segments", segments}};
}

json candidate_json(const Candidate& c, const Candidate& reference) {
  return {{"name", c.name},
          {"description", c.description},
          {"segments", c.split.size()},
          {"fits_limits", c.fits},
          {"split_index", c.split},
          {"predicted_tail(ms)", ms(c.timeline.tail_us())},
          {"predicted_step(ms)", ms(c.timeline.step_us())},
          {"communication_end(ms)", ms(c.timeline.comm_end_us)},
          {"answer_vs_this", percent(c.timeline.step_us(), reference.timeline.step_us())}};
}

}  // namespace

json split_formats(const Split& split, const GradientProfile& profile) {
  const auto bytes = sizes(profile);
  return {{"segments", split.size()},
          {"segment_text", segments_text(split)},
          {"hccl_set_split_strategy_by_idx", split},
          {"hccl_set_split_strategy_by_size", size_percentages(split, bytes)},
          {"mindspore_all_reduce_fusion_config", split},
          {"pytorch_ddp_bucket_cap_mb_list", ddp_caps_mb(split, bytes)},
          {"gradient_order", "ready order: backward, reverse of the model's parameter order"}};
}

json gdat_report(const GdatOutcome& o, const std::string& status) {
  const Candidate* base = find(o.baselines, o.baseline);
  const double before = o.measured_baseline_step_us.value_or(base ? base->timeline.step_us() : 0);
  const double after = o.measured_answer_step_us.value_or(o.answer.timeline.step_us());
  json baselines = json::array();
  for (const auto& b : o.baselines) baselines.push_back(candidate_json(b, o.answer));
  json report = {
      {"gdat_tuning_result", status},
      {"model_baseline_performance(ms)", ms(before)},
      {"model_result_performance(ms)", ms(after)},
      {"model_performance_improvement", percent(before, after)},
      {"baseline", o.baseline},
      {"performance_source", o.measured_answer_step_us ? "measured under mpirun" : "predicted by the cost model"},
      {"gradients",
       {{"count", o.profile.size()},
        {"bytes", o.profile.total_bytes()},
        {"forward(ms)", ms(o.profile.forward_us)},
        {"backward(ms)", ms(o.profile.backward_us)},
        {"source", o.profile.source}}},
      {"cluster", o.cluster.describe()},
      {"cluster_file", o.cluster.file},
      {"cost_model", o.cost_label},
      {"result",
       {{"chosen_by", o.answer_from},
        {"predicted_tail(ms)", ms(o.answer.timeline.tail_us())},
        {"predicted_step(ms)", ms(o.answer.timeline.step_us())},
        {"split", split_formats(o.answer.split, o.profile)},
        {"timeline", timeline_json(o.answer, o.profile)}}},
      {"optimum",
       {{"within_limits", candidate_json(o.optimum, o.answer)},
        {"unlimited_segments", candidate_json(o.optimum_unlimited, o.answer)},
        {"answer_tail_over_optimum(ms)", ms(o.answer.timeline.tail_us() - o.optimum.timeline.tail_us())}}},
      {"baselines", baselines},
  };
  if (o.search) {
    json s = {{"searcher", o.search->searcher},
              {"evaluations", o.search->evaluations},
              {"refused_configs", o.search->refused},
              {"stop_reason", o.search->stop_reason}};
    if (o.search->best) {
      s["best"] = candidate_json(*o.search->best, o.answer);
      s["tail_over_optimum(ms)"] = ms(o.search->best->timeline.tail_us() - o.optimum.timeline.tail_us());
    }
    report["search"] = s;
  }
  report["measurement"] = o.measured.is_null() ? json{{"measured", false}, {"reason", o.measure_note}} : o.measured;
  const bool hit = o.repo == "hit" || o.repo == "update" || o.repo == "reserved";
  report["repo_summary"] = {{"repo_add_num", o.repo == "add" ? 1 : 0},
                            {"repo_hit_num", hit ? 1 : 0},
                            {"repo_reserved_num", o.repo == "reserved" || o.repo == "hit" ? 1 : 0},
                            {"repo_unsatisfied_num", o.repo == "unsatisfied" ? 1 : 0},
                            {"repo_update_num", o.repo == "update" ? 1 : 0},
                            {"total_num", o.repo.empty() ? 0 : 1}};
  report["repo_entry"] = {{"hash", o.bank_hash}, {"soc_version", o.cluster.name}, {"outcome", o.repo}};
  return report;
}

std::vector<std::string> summary_lines(const GdatOutcome& o) {
  std::vector<std::string> out;
  char line[512];
  std::snprintf(line, sizeof line, "%-20s %8s %11s %11s", "split", "segments", "tail", "step");
  out.push_back(line);
  auto row = [&](const Candidate& c, const std::string& note) {
    std::snprintf(line, sizeof line, "%-20s %8zu %11s %11s%s", c.name.c_str(), c.split.size(),
                  ms_text(c.timeline.tail_us()).c_str(), ms_text(c.timeline.step_us()).c_str(), note.c_str());
    out.push_back(line);
  };
  for (const auto& b : o.baselines)
    row(b, std::string(b.name == o.baseline ? "  <- baseline" : "") + (b.fits ? "" : "  (over the limits)"));
  if (o.search && o.search->best) row(*o.search->best, "  (searcher: " + o.search->searcher + ")");
  row(o.optimum_unlimited, "  (no segment limit)");
  row(o.answer, "  <- result (" + o.answer_from + ")");
  const auto f = split_formats(o.answer.split, o.profile);
  out.push_back("segments " + f["segment_text"].get<std::string>());
  out.push_back("HCCL set_split_strategy_by_idx(" + list_text(f["hccl_set_split_strategy_by_idx"]) + ")");
  out.push_back("HCCL set_split_strategy_by_size(" + list_text(f["hccl_set_split_strategy_by_size"]) + ")");
  out.push_back("MindSpore all_reduce_fusion_config=" + list_text(f["mindspore_all_reduce_fusion_config"]));
  out.push_back("PyTorch DDP bucket_cap_mb_list=" + list_text(f["pytorch_ddp_bucket_cap_mb_list"]));
  for (size_t k = 0; k < o.answer.timeline.segments.size(); ++k) {
    const auto& s = o.answer.timeline.segments[k];
    std::snprintf(line, sizeof line, "  allreduce %zu: gradients %zu-%zu (%s) ready %s, runs %s -> %s", k + 1, s.first,
                  s.last, format_bytes(static_cast<double>(s.bytes)).c_str(), ms_text(s.ready_us).c_str(),
                  ms_text(s.start_us).c_str(), ms_text(s.end_us).c_str());
    out.push_back(line);
  }
  std::snprintf(line, sizeof line, "  backward ends %s, communication ends %s: tail %s",
                ms_text(o.answer.timeline.backward_us).c_str(), ms_text(o.answer.timeline.comm_end_us).c_str(),
                ms_text(o.answer.timeline.tail_us()).c_str());
  out.push_back(line);
  return out;
}

}  // namespace aoe::gdat
