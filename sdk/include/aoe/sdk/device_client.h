// A device behind its C table, as C++ objects: used by the host and by
// tuning-mode plugins alike.
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <vector>

#include "aoe/abi/device.h"
#include "aoe/sdk/host.h"
#include "aoe/sdk/measurement.h"
#include "aoe/sdk/op_task.h"
#include "aoe/sdk/sink.h"
#include "aoe/sdk/tuning_space.h"

namespace aoe::sdk {

class TaskClient {
 public:
  TaskClient(aoe_device_ref device, void* task, TuningSpace space, Host host)
      : device_(device), task_(task), space_(std::move(space)), host_(host) {}
  TaskClient(const TaskClient&) = delete;
  TaskClient& operator=(const TaskClient&) = delete;
  ~TaskClient() { device_.vtable->release_task(device_.self, task_); }

  const TuningSpace& space() const { return space_; }

  Measurement check(const Config& config) const {
    aoe_measurement out = to_abi(Measurement{});
    host_.check(device_.vtable->check(device_.self, task_, config.data(), size32(config), &out), "check");
    return from_abi(out);
  }

  // Builds every config, times those that built, in one batch; a config that
  // fails to build comes back with its failure.
  std::vector<Measurement> evaluate(const std::vector<Config>& configs, const MeasureOptions& options) const {
    std::vector<Measurement> results(configs.size());
    Candidates built(device_);
    std::vector<size_t> slot;
    for (size_t i = 0; i < configs.size(); ++i) {
      aoe_measurement out = to_abi(Measurement{});
      void* candidate = nullptr;
      host_.check(device_.vtable->build(device_.self, task_, configs[i].data(), size32(configs[i]), &candidate, &out),
                  "build");
      if (candidate) {
        built.handles.push_back(candidate);
        slot.push_back(i);
      } else {
        results[i] = from_abi(out);
      }
    }
    if (built.handles.empty()) return results;
    std::vector<aoe_measurement> timed(built.handles.size(), to_abi(Measurement{}));
    const aoe_measure_options abi_options = to_abi(options);
    host_.check(device_.vtable->measure(device_.self, task_, built.handles.data(), size32(built.handles),
                                        &abi_options, timed.data()),
                "measure");
    for (size_t j = 0; j < slot.size(); ++j) results[slot[j]] = from_abi(timed[j]);
    return results;
  }

 private:
  // Releases built candidates however evaluate() leaves.
  struct Candidates {
    explicit Candidates(aoe_device_ref d) : device(d) {}
    ~Candidates() {
      for (void* c : handles) device.vtable->release_candidate(device.self, c);
    }
    aoe_device_ref device;
    std::vector<void*> handles;
  };
  template <class V>
  static uint32_t size32(const V& v) { return static_cast<uint32_t>(v.size()); }

  aoe_device_ref device_;
  void* task_;
  TuningSpace space_;
  Host host_;
};

class DeviceClient {
 public:
  DeviceClient(aoe_device_ref device, Host host) : device_(device), host_(host) {}

  nlohmann::json describe() const {
    StringSink out;
    host_.check(device_.vtable->describe(device_.self, out.get()), "describe");
    return nlohmann::json::parse(out.str());
  }

  // Throws Error(unsupported) when the device cannot run the op.
  std::unique_ptr<TaskClient> prepare(const OpTask& task) const {
    StringSink space;
    void* handle = nullptr;
    const std::string task_json = nlohmann::json(task).dump();
    host_.check(device_.vtable->prepare(device_.self, task_json.c_str(), &handle, space.get()));
    auto parsed = nlohmann::json::parse(space.str()).get<TuningSpace>();
    return std::make_unique<TaskClient>(device_, handle, std::move(parsed), host_);
  }

  const aoe_device_ref& ref() const { return device_; }

 private:
  aoe_device_ref device_;
  Host host_;
};

}  // namespace aoe::sdk
