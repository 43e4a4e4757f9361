#include "tuned_plan.h"

namespace aoe::opat {

nlohmann::json tuned_plan(const std::string& model, const std::vector<TunedTask>& tasks) {
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& t : tasks) {
    const auto& r = t.result;
    const bool runs = r.outcome != Outcome::failed && r.outcome != Outcome::unsupported &&
                      r.outcome != Outcome::interrupted;
    for (const auto& instance : t.group.node_names) {
      nlohmann::json op = {{"op_name", instance},
                           {"op_type", t.group.task.op_type},
                           {"fused_ops", t.group.task.fused_ops},
                           {"signature", t.group.task.signature()},
                           {"signature_hash", t.group.task.hash()},
                           {"status", to_string(r.outcome)}};
      if (runs) {
        op["config"] = r.config;
        op["time_before_us"] = r.before_us;
        op["time_after_us"] = r.after_us;
      } else if (!r.reason.empty()) {
        op["reason"] = r.reason;
      }
      ops.push_back(std::move(op));
    }
  }
  return {{"model", model}, {"ops", ops}};
}

}  // namespace aoe::opat
