#include "tuned_plan.h"

#include <unistd.h>

#include <fstream>

#include "aoe/sdk/error.h"

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

void write_plan(const std::filesystem::path& file, const nlohmann::json& plan) {
  std::filesystem::create_directories(file.parent_path());
  const auto temp = file.string() + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::trunc);
    out << plan.dump(2) << "\n";
    if (!out.flush())
      throw aoe::sdk::Error(aoe::sdk::StatusCode::io, "cannot write the tuned plan " + temp);
  }
  std::filesystem::rename(temp, file);
}

}  // namespace aoe::opat
