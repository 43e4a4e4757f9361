// SPDX-License-Identifier: Apache-2.0
// A device behind its C table, as C++ objects: used by the host and by
// tuning-mode plugins alike.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstddef>
#include <exception>
#include <memory>
#include <thread>
#include <vector>

#include "aoe/abi/device.h"
#include "aoe/sdk/graph_run.h"
#include "aoe/sdk/host.h"
#include "aoe/sdk/measurement.h"
#include "aoe/sdk/op_task.h"
#include "aoe/sdk/sink.h"
#include "aoe/sdk/subgraph_task.h"
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

  // Builds every config (on up to `build_threads` threads, for a device that
  // says in describe() it builds concurrently), then times those that built
  // in one batch; a config that fails to build comes back with its failure.
  std::vector<Measurement> evaluate(const std::vector<Config>& configs, const MeasureOptions& options,
                                    unsigned build_threads = 1) const {
    std::vector<Measurement> results(configs.size());
    Candidates built(device_, configs.size());
    build_all(configs, built.handles, results, std::max(1u, build_threads));
    std::vector<void*> batch;
    std::vector<size_t> slot;
    for (size_t i = 0; i < configs.size(); ++i) {
      if (!built.handles[i]) continue;
      batch.push_back(built.handles[i]);
      slot.push_back(i);
    }
    if (batch.empty()) return results;
    std::vector<aoe_measurement> timed(batch.size(), to_abi(Measurement{}));
    const aoe_measure_options abi_options = to_abi(options);
    host_.check(device_.vtable->measure(device_.self, task_, batch.data(), size32(batch), &abi_options, timed.data()),
                "measure");
    for (size_t j = 0; j < slot.size(); ++j) results[slot[j]] = from_abi(timed[j]);
    return results;
  }

 private:
  // Releases built candidates however evaluate() leaves.
  struct Candidates {
    Candidates(aoe_device_ref d, size_t count) : device(d), handles(count, nullptr) {}
    ~Candidates() {
      for (void* c : handles)
        if (c) device.vtable->release_candidate(device.self, c);
    }
    aoe_device_ref device;
    std::vector<void*> handles;
  };
  // Builds configs[i] into handles[i], or its failure into results[i].
  void build_all(const std::vector<Config>& configs, std::vector<void*>& handles, std::vector<Measurement>& results,
                 unsigned threads) const {
    auto build_one = [&](size_t i) {
      aoe_measurement out = to_abi(Measurement{});
      host_.check(device_.vtable->build(device_.self, task_, configs[i].data(), size32(configs[i]), &handles[i], &out),
                  "build");
      if (!handles[i]) results[i] = from_abi(out);
    };
    threads = static_cast<unsigned>(std::min<size_t>(threads, configs.size()));
    if (threads <= 1) {
      for (size_t i = 0; i < configs.size(); ++i) build_one(i);
      return;
    }
    std::vector<std::exception_ptr> errors(threads);
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        try {
          for (size_t i = t; i < configs.size(); i += threads) build_one(i);
        } catch (...) {
          errors[t] = std::current_exception();
        }
      });
    for (auto& th : pool) th.join();
    for (auto& e : errors)
      if (e) std::rethrow_exception(e);
  }

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
  std::unique_ptr<TaskClient> prepare(const OpTask& task) const { return prepare_json(nlohmann::json(task)); }
  // Throws Error(unsupported) when the device does not measure subgraphs.
  std::unique_ptr<TaskClient> prepare_subgraph(const SubgraphTask& task) const {
    return prepare_json(nlohmann::json(task));
  }

  // Whether the device's table has run_graph (SDK 1.4 and later).
  bool runs_graphs() const {
    return device_.vtable->struct_size >= offsetof(aoe_device_vtable, run_graph) + sizeof(device_.vtable->run_graph) &&
           device_.vtable->run_graph != nullptr;
  }

  // The run report. Throws Error(unsupported) when the device does not run
  // models, or was built before the SDK could ask it to.
  nlohmann::json run_graph(const GraphRun& run, const std::vector<TensorView>& inputs,
                           const std::vector<TensorView>& outputs) const {
    if (!runs_graphs())
      throw Error(StatusCode::unsupported, "the device was built against an SDK before 1.4, which cannot run models");
    auto table = [](const std::vector<TensorView>& views) {
      std::vector<aoe_tensor> out;
      for (const auto& v : views) out.push_back({sizeof(aoe_tensor), v.name.c_str(), v.data, v.count});
      return out;
    };
    auto in = table(inputs), out = table(outputs);
    const std::string run_json = nlohmann::json(run).dump();
    StringSink report;
    host_.check(device_.vtable->run_graph(device_.self, run_json.c_str(), in.data(), static_cast<uint32_t>(in.size()),
                                          out.data(), static_cast<uint32_t>(out.size()), report.get()),
                "run_graph");
    return nlohmann::json::parse(report.str());
  }

  const aoe_device_ref& ref() const { return device_; }

 private:
  std::unique_ptr<TaskClient> prepare_json(const nlohmann::json& task) const {
    StringSink space;
    void* handle = nullptr;
    const std::string task_json = task.dump();
    host_.check(device_.vtable->prepare(device_.self, task_json.c_str(), &handle, space.get()));
    auto parsed = nlohmann::json::parse(space.str()).get<TuningSpace>();
    return std::make_unique<TaskClient>(device_, handle, std::move(parsed), host_);
  }

  aoe_device_ref device_;
  Host host_;
};

}  // namespace aoe::sdk
