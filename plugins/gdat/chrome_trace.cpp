#include "chrome_trace.h"

#include <cstdio>

namespace aoe::gdat {
namespace {

using nlohmann::json;

constexpr int kComputeThread = 1;
constexpr int kAllreduceThread = 2;

json name_event(const char* kind, int pid, int tid, const std::string& name) {
  json e = {{"name", kind}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", name}}}};
  if (tid) e["tid"] = tid;
  return e;
}

json span(const std::string& name, const char* cat, double ts, double dur, int pid, int tid, json args = json::object()) {
  return {{"name", name}, {"cat", cat}, {"ph", "X"}, {"ts", ts}, {"dur", dur},
          {"pid", pid},   {"tid", tid}, {"args", std::move(args)}};
}

}  // namespace

json chrome_trace(const GradientProfile& profile, const std::vector<const Candidate*>& candidates) {
  json events = json::array();
  int pid = 0;
  for (const Candidate* c : candidates) {
    ++pid;
    const Timeline& t = c->timeline;
    char step[32];
    std::snprintf(step, sizeof step, "%.3f ms", t.step_us() / 1000);
    events.push_back(name_event("process_name", pid, 0, c->name + ": step " + step));
    events.push_back(name_event("thread_name", pid, kComputeThread, "compute"));
    events.push_back(name_event("thread_name", pid, kAllreduceThread, "allreduce"));
    events.push_back(span("forward", "compute", 0, t.forward_us, pid, kComputeThread));
    events.push_back(span("backward", "compute", t.forward_us, t.backward_us, pid, kComputeThread));
    for (size_t i = 0; i < t.segments.size(); ++i) {
      const Segment& s = t.segments[i];
      json args = {{"bytes", s.bytes},
                   {"gradients", s.last - s.first + 1},
                   {"first_gradient", profile.grads.at(s.first).name},
                   {"last_gradient", profile.grads.at(s.last).name},
                   {"ready_us", t.forward_us + s.ready_us}};
      events.push_back(span("bucket " + std::to_string(i), "allreduce", t.forward_us + s.start_us, s.end_us - s.start_us,
                            pid, kAllreduceThread, std::move(args)));
    }
  }
  return {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
}

}  // namespace aoe::gdat
