#include "host_services.h"

#include <algorithm>

#include "aoe/sdk/boundary.h"
#include "aoe/sdk/sink.h"
#include "bank.h"

namespace aoe::host {
namespace {

spdlog::level::level_enum to_spdlog(int32_t level) {
  switch (level) {
    case AOE_LOG_TRACE: return spdlog::level::trace;
    case AOE_LOG_DEBUG: return spdlog::level::debug;
    case AOE_LOG_INFO: return spdlog::level::info;
    case AOE_LOG_WARN: return spdlog::level::warn;
    default: return spdlog::level::err;
  }
}

aoe_status* new_status(void*, int32_t code, const char* message) {
  return new aoe_status{code, message ? message : ""};
}

}  // namespace

HostServices::HostServices(CancelCheck cancelled) : cancelled_(std::move(cancelled)) {}

const aoe_host_services* HostServices::table_for(const std::string& plugin_name) {
  auto& slot = contexts_[plugin_name];
  if (slot) return &slot->table;
  slot = std::make_unique<Context>();
  Context& c = *slot;
  c.owner = this;
  c.logger = spdlog::default_logger()->clone(plugin_name);
  c.table.struct_size = sizeof(aoe_host_services);
  c.table.ctx = &c;
  c.table.log = [](void* ctx, int32_t level, const char* message) {
    context(ctx).logger->log(to_spdlog(level), "{}", message ? message : "");
  };
  c.table.progress = [](void* ctx, const char* stage, uint64_t done, uint64_t total, const char* note) {
    auto& c = context(ctx);
    c.owner->progress_.report(*c.logger, stage ? stage : "", done, total, note ? note : "");
    // A listener's exception must not unwind into the plugin that reported.
    if (c.owner->progress_listener_) try {
        c.owner->progress_listener_(stage ? stage : "", done, total, note ? note : "");
      } catch (const std::exception& e) {
        c.logger->warn("progress listener failed: {}", e.what());
      }
  };
  c.table.cancelled = [](void* ctx) -> int32_t { return context(ctx).owner->cancelled_() ? 1 : 0; };
  c.table.status_create = new_status;
  c.table.status_code = [](const aoe_status* s) { return s->code; };
  c.table.status_message = [](const aoe_status* s) { return s->message.c_str(); };
  c.table.status_destroy = [](aoe_status* s) { delete s; };
  c.table.bank_lookup = [](void* ctx, const char* key_json, aoe_sink* out, int32_t* found) {
    auto& self = context(ctx);
    return aoe::sdk::guarded(aoe::sdk::Host(&self.table), [&] {
      *found = 0;
      const auto key = nlohmann::json::parse(key_json);
      const Bank* bank = self.owner->bank_for(key);
      if (!bank) throw aoe::sdk::Error(aoe::sdk::StatusCode::unsupported, "no knowledge bank in this run");
      if (auto entry = bank->lookup(key)) {
        aoe::sdk::write_to(out, entry->dump());
        *found = 1;
      }
    });
  };
  c.table.bank_record = [](void* ctx, const char* entry_json, int32_t* outcome) {
    auto& self = context(ctx);
    return aoe::sdk::guarded(aoe::sdk::Host(&self.table), [&] {
      const auto entry = nlohmann::json::parse(entry_json);
      const Bank* bank = self.owner->bank_for(entry.value("key", nlohmann::json::object()));
      if (!bank) throw aoe::sdk::Error(aoe::sdk::StatusCode::unsupported, "no knowledge bank in this run");
      *outcome = static_cast<int32_t>(bank->record(entry));
    });
  };
  c.table.bank_entries = [](void* ctx, const char* query_json, aoe_sink* out) {
    auto& self = context(ctx);
    return aoe::sdk::guarded(aoe::sdk::Host(&self.table), [&] {
      const auto query = nlohmann::json::parse(query_json);
      const Bank* bank = self.owner->bank_for(query);
      if (!bank) throw aoe::sdk::Error(aoe::sdk::StatusCode::unsupported, "no knowledge bank in this run");
      aoe::sdk::write_to(out, bank->select_text(query, self.owner->corrupt_reporter(self)));
    });
  };
  c.table.bank_nearest = [](void* ctx, const char* query_json, const char* dims_json, uint64_t count, aoe_sink* out) {
    auto& self = context(ctx);
    return aoe::sdk::guarded(aoe::sdk::Host(&self.table), [&] {
      const auto query = nlohmann::json::parse(query_json);
      const auto dims = nlohmann::json::parse(dims_json);
      if (!dims.is_array() || !std::all_of(dims.begin(), dims.end(), [](const auto& d) { return d.is_number_integer(); }))
        throw aoe::sdk::Error(aoe::sdk::StatusCode::invalid_argument, "bank_nearest: dims must be a list of integers");
      const Bank* bank = self.owner->bank_for(query);
      if (!bank) throw aoe::sdk::Error(aoe::sdk::StatusCode::unsupported, "no knowledge bank in this run");
      aoe::sdk::write_to(out, bank->nearest_text(query, dims.get<std::vector<int64_t>>(), static_cast<size_t>(count),
                                                 self.owner->corrupt_reporter(self)));
    });
  };
  c.table.release_tensor = [](void* ctx, const char* name) {
    auto& c = context(ctx);
    // Nothing may unwind into the plugin that called.
    if (c.owner->tensor_releaser_ && name) try {
        c.owner->tensor_releaser_(name);
      } catch (const std::exception& e) {
        c.logger->warn("releasing tensor '{}' failed: {}", name, e.what());
      }
  };
  c.table.output_buffer = [](void* ctx, const char* name, const int64_t* dims, uint32_t rank, float** out_data) {
    auto& self = context(ctx);
    return aoe::sdk::guarded(aoe::sdk::Host(&self.table), [&] {
      *out_data = nullptr;
      const std::string output = name ? name : "";
      if (!self.owner->output_allocator_)
        throw aoe::sdk::Error(aoe::sdk::StatusCode::unsupported,
                              "output '" + output + "': the host lends output buffers only within run_graph");
      if (rank > 0 && !dims)
        throw aoe::sdk::Error(aoe::sdk::StatusCode::invalid_argument, "output '" + output + "': no dims for rank " +
                                                                          std::to_string(rank));
      *out_data = self.owner->output_allocator_(output, std::vector<int64_t>(dims, dims + rank));
    });
  };
  return &c.table;
}

std::function<void(const std::filesystem::path&, const std::string&)> HostServices::corrupt_reporter(Context& c) {
  return [this, &c](const std::filesystem::path& file, const std::string& reason) {
    if (reported_corrupt_.insert(file).second) c.logger->warn("{} (left out)", reason);
  };
}

const Bank* HostServices::bank_for(const nlohmann::json& key) const {
  auto it = banks_by_kind_.find(key.value("kind", ""));
  return it != banks_by_kind_.end() ? it->second : bank_;
}

}  // namespace aoe::host
