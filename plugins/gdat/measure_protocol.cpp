#include "measure_protocol.h"

#include "aoe/sdk/error.h"

namespace aoe::gdat {

using nlohmann::json;

void MeasureDriver::send(const json& message) { world_.broadcast(message.dump()); }

void MeasureDriver::send_profile(const GradientProfile& profile) {
  json bytes = json::array(), ready = json::array();
  for (const auto& g : profile.grads) bytes.push_back(g.bytes), ready.push_back(g.ready_us);
  send({{"op", "profile"}, {"bytes", bytes}, {"ready_us", ready}, {"backward_us", profile.backward_us}});
  profile_ = profile;
}

std::vector<TablePoint> MeasureDriver::calibrate(const std::vector<double>& sizes, int repeats) {
  send({{"op", "calibrate"}, {"sizes", sizes}, {"repeats", repeats}});
  return world_.calibrate(sizes, repeats);
}

ReplayResult MeasureDriver::replay(const Split& split, int warmup, int steps, const std::function<bool()>& cancelled) {
  send({{"op", "replay"}, {"split", split}, {"warmup", warmup}, {"steps", steps}});
  return world_.replay(profile_, split, warmup, steps, cancelled);
}

void MeasureDriver::finish(const json& summary) {
  if (finished_) return;
  finished_ = true;
  send({{"op", "done"}, {"summary", summary}});
}

void MeasureDriver::fail(const std::string& message) {
  if (finished_) return;
  finished_ = true;
  send({{"op", "error"}, {"message", message}});
}

json serve_measurements(const MpiWorld& world) {
  GradientProfile profile;
  for (;;) {
    const json m = json::parse(world.broadcast({}));
    const std::string op = m.at("op");
    if (op == "profile") {
      profile = {};
      const auto bytes = m.at("bytes").get<std::vector<uint64_t>>();
      const auto ready = m.at("ready_us").get<std::vector<double>>();
      for (size_t i = 0; i < bytes.size(); ++i) profile.grads.push_back({"", bytes[i], ready[i]});
      profile.backward_us = m.at("backward_us");
    } else if (op == "calibrate") {
      world.calibrate(m.at("sizes").get<std::vector<double>>(), m.at("repeats"));
    } else if (op == "replay") {
      world.replay(profile, m.at("split").get<Split>(), m.at("warmup"), m.at("steps"), {});
    } else if (op == "done") {
      return m.at("summary");
    } else {
      throw aoe::sdk::Error(aoe::sdk::StatusCode::internal,
                            "rank 0 failed: " + m.value("message", std::string("no reason given")));
    }
  }
}

}  // namespace aoe::gdat
