// SPDX-License-Identifier: Apache-2.0
// Turns a plugin author's classes into the C tables and entry points.
// Include it in the plugin's sources, then one line per component:
//   AOE_REGISTER_SEARCHER(MySearcher, "mine", "what it does");
// Build with aoe_add_plugin(), which sets the plugin's name and version.
#pragma once

#include <nlohmann/json.hpp>

#include <deque>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "aoe/abi/aoe.h"
#include "aoe/sdk/boundary.h"
#include "aoe/sdk/component.h"
#include "aoe/sdk/device.h"
#include "aoe/sdk/host.h"
#include "aoe/sdk/searcher.h"
#include "aoe/sdk/sink.h"
#include "aoe/sdk/tuning_mode.h"

#ifndef AOE_PLUGIN_NAME
#define AOE_PLUGIN_NAME "unnamed"
#endif
#ifndef AOE_PLUGIN_VERSION
#define AOE_PLUGIN_VERSION "0.0.0"
#endif
#ifndef AOE_PLUGIN_SUMMARY
#define AOE_PLUGIN_SUMMARY ""
#endif

// Hidden: each plugin library keeps its own registry, even when built with
// default visibility (GCC would otherwise unify these function-local
// statics across every library loaded).
#pragma GCC visibility push(hidden)
namespace aoe::sdk {

namespace detail {

struct Registration {
  int32_t kind;
  std::string name;
  std::string summary;
  const void* vtable;
  void* (*create)(const CreateArgs&);
};

inline std::deque<Registration>& registrations() {
  static std::deque<Registration> all;
  return all;
}

template <class T>
T* construct(const CreateArgs& args) {
  if constexpr (std::is_constructible_v<T, const CreateArgs&>)
    return new T(args);
  else
    return new T();
}

// A prepared task keeps its space, so calls can be checked against it.
struct TaskHolder {
  std::unique_ptr<DeviceTask> task;
  TuningSpace space;
};

// A searcher keeps the width of a config, to lay proposals out.
struct SearcherHolder {
  std::unique_ptr<Searcher> searcher;
  size_t knob_count = 0;
};

inline Config config_of(const TaskHolder& t, const int64_t* values, uint32_t count) {
  if (count != t.space.knobs.size())
    throw Error(StatusCode::invalid_argument, "a config of " + std::to_string(count) + " values for a space of " +
                                                  std::to_string(t.space.knobs.size()) + " knobs");
  return Config(values, values + count);
}

// Out-of-domain configs are invalid before the device sees them.
inline Measurement checked(const TaskHolder& t, const Config& c) {
  if (!t.space.in_domain(c)) return Measurement::failed(ResultStatus::invalid, "a value lies outside its knob's domain");
  return t.task->check(c);
}

inline const aoe_device_vtable* device_vtable() {
  static const aoe_device_vtable table = {
      sizeof(aoe_device_vtable),
      [](void* self) { delete static_cast<Device*>(self); },
      [](void* self, aoe_sink* out) {
        return guarded(plugin_host(), [&] { write_to(out, static_cast<Device*>(self)->describe().dump()); });
      },
      [](void* self, const char* task_json, void** out_task, aoe_sink* out_space) {
        return guarded(plugin_host(), [&] {
          auto holder = std::make_unique<TaskHolder>();
          auto& device = *static_cast<Device*>(self);
          const auto task = nlohmann::json::parse(task_json);
          holder->task = is_subgraph_task(task) ? device.prepare_subgraph(task.get<SubgraphTask>())
                                                : device.prepare(task.get<OpTask>());
          holder->space = holder->task->space();
          write_to(out_space, nlohmann::json(holder->space).dump());
          *out_task = holder.release();
        });
      },
      [](void*, void* task) { delete static_cast<TaskHolder*>(task); },
      [](void*, void* task, const int64_t* config, uint32_t count, aoe_measurement* out) {
        return guarded(plugin_host(), [&] {
          auto& t = *static_cast<TaskHolder*>(task);
          *out = to_abi(checked(t, config_of(t, config, count)));
        });
      },
      [](void*, void* task, const int64_t* config, uint32_t count, void** out_candidate, aoe_measurement* out) {
        return guarded(plugin_host(), [&] {
          auto& t = *static_cast<TaskHolder*>(task);
          const Config c = config_of(t, config, count);
          *out_candidate = nullptr;
          Measurement result = checked(t, c);
          if (result.ok()) {
            Built built = t.task->build(c);
            if (built.candidate)
              *out_candidate = built.candidate.release();
            else
              result = built.failure;
          }
          *out = to_abi(result);
        });
      },
      [](void*, void* task, void* const* candidates, uint32_t count, const aoe_measure_options* options,
         aoe_measurement* out) {
        return guarded(plugin_host(), [&] {
          std::vector<Candidate*> batch;
          for (uint32_t i = 0; i < count; ++i) batch.push_back(static_cast<Candidate*>(candidates[i]));
          auto results = static_cast<TaskHolder*>(task)->task->measure(batch, from_abi(*options));
          if (results.size() != count)
            throw Error(StatusCode::internal, "the device returned " + std::to_string(results.size()) +
                                                  " results for " + std::to_string(count) + " candidates");
          for (uint32_t i = 0; i < count; ++i) out[i] = to_abi(results[i]);
        });
      },
      [](void*, void* candidate) { delete static_cast<Candidate*>(candidate); },
      [](void* self, const char* run_json, const aoe_tensor* inputs, uint32_t input_count, aoe_tensor* outputs,
         uint32_t output_count, aoe_sink* out_report) {
        return guarded(plugin_host(), [&] {
          const auto run = nlohmann::json::parse(run_json).get<GraphRun>();
          auto views = [](const aoe_tensor* tensors, uint32_t count) {
            std::vector<TensorView> out;
            for (uint32_t i = 0; i < count; ++i)
              out.push_back({tensors[i].name ? tensors[i].name : "", tensors[i].data, static_cast<size_t>(tensors[i].count)});
            return out;
          };
          const auto report = static_cast<Device*>(self)->run_graph(run, views(inputs, input_count),
                                                                    views(outputs, output_count));
          write_to(out_report, report.dump());
        });
      },
  };
  return &table;
}

inline const aoe_searcher_vtable* searcher_vtable() {
  static const aoe_searcher_vtable table = {
      sizeof(aoe_searcher_vtable),
      [](void* self) { delete static_cast<SearcherHolder*>(self); },
      [](void* self, const char* space_json, const aoe_searcher_options* options) {
        return guarded(plugin_host(), [&] {
          auto& s = *static_cast<SearcherHolder*>(self);
          const auto space = nlohmann::json::parse(space_json).get<TuningSpace>();
          s.knob_count = space.knobs.size();
          s.searcher->start(space, {options->seed, options->budget});
        });
      },
      [](void* self, uint32_t max_count, int64_t* out_configs, uint32_t* out_count) {
        return guarded(plugin_host(), [&] {
          auto& s = *static_cast<SearcherHolder*>(self);
          *out_count = 0;
          for (const Config& c : s.searcher->propose(max_count)) {
            if (*out_count == max_count) break;
            if (c.size() != s.knob_count) throw Error(StatusCode::internal, "the searcher proposed a config of the wrong width");
            std::copy(c.begin(), c.end(), out_configs + *out_count * s.knob_count);
            ++*out_count;
          }
        });
      },
      [](void* self, const int64_t* config, const aoe_measurement* result) {
        return guarded(plugin_host(), [&] {
          auto& s = *static_cast<SearcherHolder*>(self);
          s.searcher->observe(Config(config, config + s.knob_count), from_abi(*result));
        });
      },
  };
  return &table;
}

inline const aoe_tuning_mode_vtable* tuning_mode_vtable() {
  static const aoe_tuning_mode_vtable table = {
      sizeof(aoe_tuning_mode_vtable),
      [](void* self) { delete static_cast<TuningMode*>(self); },
      [](void* self, const aoe_job* job, aoe_sink* out) {
        return guarded(plugin_host(), [&] {
          const Job wrapped(*job, plugin_host());
          write_to(out, static_cast<TuningMode*>(self)->run(wrapped).dump());
        });
      },
  };
  return &table;
}

template <class T>
void* create_device(const CreateArgs& a) { return static_cast<Device*>(construct<T>(a)); }
template <class T>
void* create_searcher(const CreateArgs& a) {
  return new SearcherHolder{std::unique_ptr<Searcher>(construct<T>(a)), 0};
}
template <class T>
void* create_tuning_mode(const CreateArgs& a) { return static_cast<TuningMode*>(construct<T>(a)); }

struct Registrar {
  Registrar(int32_t kind, const char* name, const char* summary, const void* vtable, void* (*create)(const CreateArgs&)) {
    registrations().push_back({kind, name, summary ? summary : "", vtable, create});
  }
};

inline const aoe_plugin_descriptor* descriptor() {
  static std::vector<aoe_component> components;
  static aoe_plugin_descriptor d{};
  if (d.struct_size == 0) {
    for (const auto& r : registrations())
      components.push_back({sizeof(aoe_component), r.kind, r.name.c_str(), r.summary.c_str(), r.vtable});
    d = {sizeof(aoe_plugin_descriptor), AOE_SDK_VERSION_MAJOR, AOE_SDK_VERSION_MINOR, AOE_PLUGIN_NAME,
         AOE_PLUGIN_VERSION, AOE_PLUGIN_SUMMARY, static_cast<uint32_t>(components.size()), components.data()};
  }
  return &d;
}

}  // namespace detail
}  // namespace aoe::sdk
#pragma GCC visibility pop

// The entry points: inline so every source of a plugin may include this
// header, `used` so they exist even where nothing in the library calls them.
extern "C" {
AOE_EXPORT __attribute__((used)) inline const aoe_plugin_descriptor* aoe_plugin_query(void) {
  return aoe::sdk::detail::descriptor();
}
AOE_EXPORT __attribute__((used)) inline aoe_status* aoe_plugin_init(const aoe_host_services* host) {
  aoe::sdk::plugin_host() = aoe::sdk::Host(host);
  return nullptr;
}
AOE_EXPORT __attribute__((used)) inline aoe_status* aoe_plugin_create(const char* component, const char* options_json,
                                                                        void** out_instance) {
  return aoe::sdk::guarded(aoe::sdk::plugin_host(), [&] {
    *out_instance = nullptr;
    for (const auto& r : aoe::sdk::detail::registrations()) {
      if (r.name != component) continue;
      aoe::sdk::CreateArgs args{component, options_json && *options_json ? nlohmann::json::parse(options_json)
                                                                         : nlohmann::json::object()};
      *out_instance = r.create(args);
      return;
    }
    throw aoe::sdk::Error(aoe::sdk::StatusCode::not_found, std::string("no component named '") + component + "'");
  });
}
AOE_EXPORT __attribute__((used)) inline void aoe_plugin_shutdown(void) { aoe::sdk::plugin_host() = aoe::sdk::Host(); }
}

#define AOE_SDK_CONCAT_INNER(a, b) a##b
#define AOE_SDK_CONCAT(a, b) AOE_SDK_CONCAT_INNER(a, b)
#define AOE_SDK_REGISTER(kind, table, factory, Class, name, summary)                                   \
  static const ::aoe::sdk::detail::Registrar AOE_SDK_CONCAT(aoe_registrar_, __COUNTER__)(             \
      kind, name, summary, ::aoe::sdk::detail::table(), &::aoe::sdk::detail::factory<Class>)

// One line per component a library offers.
#define AOE_REGISTER_DEVICE(Class, name, summary) \
  AOE_SDK_REGISTER(AOE_KIND_DEVICE, device_vtable, create_device, Class, name, summary)
#define AOE_REGISTER_SEARCHER(Class, name, summary) \
  AOE_SDK_REGISTER(AOE_KIND_SEARCHER, searcher_vtable, create_searcher, Class, name, summary)
#define AOE_REGISTER_TUNING_MODE(Class, name, summary) \
  AOE_SDK_REGISTER(AOE_KIND_TUNING_MODE, tuning_mode_vtable, create_tuning_mode, Class, name, summary)
