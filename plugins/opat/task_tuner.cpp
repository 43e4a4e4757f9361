#include "task_tuner.h"

#include <algorithm>
#include <optional>
#include <set>

#include "bank_keys.h"
#include "report_fields.h"
#include "side_by_side.h"
#include "warm_start.h"

namespace aoe::opat {
namespace {

using aoe::modes::Best;
using aoe::sdk::Config;
using aoe::sdk::Error;
using aoe::sdk::Measurement;
using aoe::sdk::TaskClient;
using aoe::sdk::TuningSpace;
using nlohmann::json;

TaskResult failed(std::string reason, Outcome outcome = Outcome::failed) {
  return aoe::modes::ended<TaskResult>(std::move(reason), outcome);
}

// Ops whose output extents follow their input values, not their shapes
// (the boxes kept, the elements nonzero, the distinct values): a device
// sizes such a kernel by its inputs, so only they need to be known.
bool sized_by_values(const std::string& op_type) {
  return op_type == "NonMaxSuppression" || op_type == "NonZero" || op_type == "Unique";
}

bool shapes_known(const aoe::sdk::OpTask& task) {
  for (const auto& t : task.inputs)
    if (!t.fully_known()) return false;
  if (sized_by_values(task.op_type)) return true;
  for (const auto& t : task.outputs)
    if (!t.fully_known()) return false;
  return true;
}

// An integer or bool input of no elements beside outputs that have some is
// a list of parameters given empty (ReduceSum's axes: every axis), which
// the frontend has made an attribute; it is no data to compute from.
bool empty_parameter_list(const aoe::sdk::OpTask& task, const aoe::sdk::TensorDesc& input) {
  return !aoe::sdk::is_float(input.dtype) && std::all_of(task.outputs.begin(), task.outputs.end(),
                                [](const aoe::sdk::TensorDesc& t) { return t.elements() != 0; });
}

// Why an op valid in ONNX has nothing a device could tune: a tensor of no
// elements (an out-of-range Slice, a zero-size Split), or one of a type no
// device holds (strings). "" where there is none.
std::string nothing_to_tune(const aoe::sdk::OpTask& task) {
  for (const auto* side : {&task.inputs, &task.outputs})
    for (const auto& t : *side) {
      if (t.dtype == aoe::sdk::DType::undefined)
        return "tensor '" + t.name + "' is of a type no device holds (a string?); not tuned";
      if (t.elements() == 0 && !(side == &task.inputs && empty_parameter_list(task, t)))
        return "tensor '" + t.name + "' is empty (a dim of 0): nothing to compute; not tuned";
    }
  return {};
}

std::vector<std::string> changed_tags(const TuningSpace& space, const Config& from, const Config& to) {
  std::set<std::string> tags;
  for (size_t i = 0; i < space.knobs.size(); ++i)
    if (from[i] != to[i]) tags.insert(aoe::sdk::to_string(space.knobs[i].tag));
  return {tags.begin(), tags.end()};
}

std::vector<Config> seeds_for(const aoe::sdk::Job& job, const TaskClient& task, const aoe::sdk::OpTask& op,
                              const json& key, const TuneOptions& options) {
  if (!options.warm_start) return {};
  auto seeds = warm_start_seeds(job.host(), task, op, key, options.limits.budget);
  if (!seeds.empty())
    job.host().info("warm start: " + std::to_string(seeds.size()) + (seeds.size() == 1 ? " config" : " configs") +
                    " from banked " + op.op_type + " of nearby shapes");
  return seeds;
}

bool search(const aoe::sdk::Job& job, const TaskClient& task, const aoe::sdk::OpTask& op, const std::string& forward_op,
            const json& key,
            const TuneOptions& options, const SearchProgress& progress, Best& best, TaskResult& result) {
  const auto seeds = seeds_for(job, task, op, key, options);
  aoe::modes::SearchTally tally;
  const bool finished = aoe::modes::search_task(
      job, {op.op_type, op.name, op.hash(), forward_op}, options, task,
      [&](const std::vector<Config>& runnable) { return task.evaluate(runnable, {}, options.build_threads); },
      progress, best, tally, result.searcher, seeds);
  result.take(tally);
  result.warm_seeds = tally.seeds_measured;
  result.best_seed_us = tally.best_seed_us;
  return finished;
}

}  // namespace

TaskResult measure_task(const aoe::sdk::Job& job, const TaskGroup& group, const TuneOptions& options,
                        const SearchProgress& progress) {
  const auto& op = group.task;
  // Inputs' dims are fixed before tuning starts: what stays unknown is known
  // only as the model runs (a control-flow output, a data-dependent shape).
  // Such an op is listed as not tuned, not as a failure of the run.
  if (!shapes_known(op))
    return failed("a tensor of the op has dimensions known only as the model runs; not tuned", Outcome::unsupported);
  if (const std::string why = nothing_to_tune(op); !why.empty()) return failed(why, Outcome::unsupported);
  std::unique_ptr<TaskClient> task;
  try {
    task = job.device().prepare(op);
  } catch (const Error& e) {
    return failed(e.what(), e.code() == aoe::sdk::StatusCode::unsupported ? Outcome::unsupported : Outcome::failed);
  }
  const TuningSpace& space = task->space();
  const json key = aoe::modes::op_bank_key(op, options.soc_version, space.version);
  std::optional<json> entry;
  try {
    entry = job.host().bank_lookup(key);
  } catch (const Error& e) {
    return failed(e.what());
  }
  // The default and the bank's config, timed in one batch: the device
  // compares them side by side. The bank's is timed again here: the bank may
  // come from another machine.
  std::vector<Config> first = {space.default_config};
  const Config bank_values = entry ? entry->value("config_values", Config{}) : Config{};
  const bool has_bank_values = entry && space.in_domain(bank_values);
  if (has_bank_values && bank_values != space.default_config) first.push_back(bank_values);
  const auto timed = task->evaluate(first, {});
  const Measurement& base = timed.front();
  if (!base.ok()) return failed(std::string("the default config did not run: ") + to_string(base.status) + " " + base.message);
  std::optional<Best> banked;
  if (has_bank_values && timed.back().ok()) banked = Best{bank_values, timed.back().time_us};

  TaskResult result;
  result.before_us = base.time_us;
  result.bank_entry = op.hash();
  Best best = aoe::modes::search_start(banked ? *banked : Best{space.default_config, base.time_us}, base);
  if (!banked || options.repeat_tune) {
    if (!search(job, *task, op, group.forward_op(), key, options, progress, best, result)) {
      result.outcome = Outcome::interrupted;
      return result;
    }
  }
  // A win by the noise of its moment is not kept (side_by_side.h).
  const bool improved = aoe::modes::confirm_best(*task, banked, base, best, result.before_us);
  result.after_us = best.time_us;
  result.config = space.describe(best.config);
  result.changed_tags = changed_tags(space, space.default_config, best.config);

  if (!improved && (banked || !options.bank_default)) {
    result.outcome = banked ? Outcome::reserved : Outcome::unsatisfied;
    return result;
  }
  if (!improved) {  // bank_default: the default, as the best this search knows
    best = {space.default_config, result.before_us};
    result.after_us = result.before_us;
    result.config = space.describe(best.config);
    result.changed_tags.clear();
  }
  const json record = {{"key", key},
                       {"op_type", op.op_type},
                       {"config", result.config},
                       {"config_values", best.config},
                       {"before_us", result.before_us},
                       {"after_us", best.time_us},
                       {"provenance", aoe::modes::provenance(job.options().value("model_name", ""), "op_name",
                                                             op.name, result.searcher, result.evaluations,
                                                             options.seed)}};
  result.bank_record = record;
  result.improved = improved;
  result.outcome = Outcome::unsatisfied;  // until banked
  return result;
}

void bank_result(const aoe::sdk::Host& host, TaskResult& result) {
  if (result.bank_record.is_null()) return;
  const auto stored = host.bank_record(result.bank_record);
  result.outcome = result.improved ? aoe::modes::stored_as(stored) : Outcome::unsatisfied;
}

TaskResult tune_task(const aoe::sdk::Job& job, const TaskGroup& group, const TuneOptions& options,
                     const SearchProgress& progress) {
  TaskResult result = measure_task(job, group, options, progress);
  bank_result(job.host(), result);
  return result;
}

json to_json(const TaskResult& r) {
  json j = aoe::modes::to_json(r);
  j.update({{"changed_tags", r.changed_tags},
            {"warm_seeds", r.warm_seeds},
            {"best_seed_us", r.best_seed_us},
            {"bank_entry", r.bank_entry},
            {"improved", r.improved}});
  return j;
}

TaskResult task_result_from_json(const json& j) {
  TaskResult r;
  aoe::modes::read_json(j, r);
  r.changed_tags = j.at("changed_tags").get<std::vector<std::string>>();
  r.warm_seeds = j.at("warm_seeds").get<uint64_t>();
  r.best_seed_us = j.at("best_seed_us").get<double>();
  r.bank_entry = j.at("bank_entry").get<std::string>();
  r.improved = j.at("improved").get<bool>();
  return r;
}

}  // namespace aoe::opat
