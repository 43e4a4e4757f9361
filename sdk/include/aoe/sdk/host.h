// SPDX-License-Identifier: Apache-2.0
// The host services table in C++: logging, progress, cancellation, statuses, bank.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "aoe/abi/host_services.h"
#include "aoe/sdk/error.h"
#include "aoe/sdk/sink.h"

namespace aoe::sdk {

enum class LogLevel : int { trace = AOE_LOG_TRACE, debug = AOE_LOG_DEBUG, info = AOE_LOG_INFO,
                            warn = AOE_LOG_WARN, error = AOE_LOG_ERROR };

enum class BankOutcome : int { kept_existing = AOE_BANK_KEPT_EXISTING, added = AOE_BANK_ADDED,
                               updated = AOE_BANK_UPDATED };

class Host {
 public:
  explicit Host(const aoe_host_services* services = nullptr) : s_(services) {}
  const aoe_host_services* table() const { return s_; }

  void log(LogLevel level, const std::string& message) const {
    if (s_ && s_->log) s_->log(s_->ctx, static_cast<int32_t>(level), message.c_str());
  }
  void debug(const std::string& m) const { log(LogLevel::debug, m); }
  void info(const std::string& m) const { log(LogLevel::info, m); }
  void warn(const std::string& m) const { log(LogLevel::warn, m); }
  void error(const std::string& m) const { log(LogLevel::error, m); }

  void progress(const std::string& stage, uint64_t done, uint64_t total, const std::string& note = {}) const {
    if (s_ && s_->progress) s_->progress(s_->ctx, stage.c_str(), done, total, note.c_str());
  }
  bool cancelled() const { return s_ && s_->cancelled && s_->cancelled(s_->ctx) != 0; }

  // Turns an exception into a status the other side can read; NULL without a host.
  aoe_status* make_status(StatusCode code, const std::string& message) const {
    return s_ ? s_->status_create(s_->ctx, static_cast<int32_t>(code), message.c_str()) : nullptr;
  }

  // Consumes a status returned across the boundary; throws it as Error.
  void check(aoe_status* status, const std::string& context = {}) const {
    if (!status) return;
    const auto code = static_cast<StatusCode>(s_->status_code(status));
    std::string message = s_->status_message(status);
    s_->status_destroy(status);
    throw Error(code, context.empty() ? message : context + ": " + message);
  }

  std::optional<nlohmann::json> bank_lookup(const nlohmann::json& key) const {
    StringSink out;
    int32_t found = 0;
    check(s_->bank_lookup(s_->ctx, key.dump().c_str(), out.get(), &found), "bank lookup");
    if (!found) return std::nullopt;
    return nlohmann::json::parse(out.str());
  }
  BankOutcome bank_record(const nlohmann::json& entry) const {
    int32_t outcome = 0;
    check(s_->bank_record(s_->ctx, entry.dump().c_str(), &outcome), "bank record");
    return static_cast<BankOutcome>(outcome);
  }
  // The entries whose key holds every field of query (see bank_entries in
  // the C table). None from a host older than SDK 1.2, which lacks the call:
  // a plugin then runs as it would without the bank's other entries.
  std::vector<nlohmann::json> bank_entries(const nlohmann::json& query) const {
    if (!offers(offsetof(aoe_host_services, bank_entries) + sizeof s_->bank_entries) || !s_->bank_entries) return {};
    StringSink out;
    check(s_->bank_entries(s_->ctx, query.dump().c_str(), out.get()), "bank entries");
    const auto list = nlohmann::json::parse(out.str());
    return {list.begin(), list.end()};
  }
  // The `count` entries holding query's fields whose key's "dims" lies
  // nearest `dims` (see bank_nearest in the C table), nearest first. None
  // (no value) from a host older than SDK 1.3: ask bank_entries instead.
  std::optional<std::vector<nlohmann::json>> bank_nearest(const nlohmann::json& query, const std::vector<int64_t>& dims,
                                                          uint64_t count) const {
    if (!offers(offsetof(aoe_host_services, bank_nearest) + sizeof s_->bank_nearest) || !s_->bank_nearest)
      return std::nullopt;
    StringSink out;
    check(s_->bank_nearest(s_->ctx, query.dump().c_str(), nlohmann::json(dims).dump().c_str(), count, out.get()),
          "bank nearest");
    const auto list = nlohmann::json::parse(out.str());
    return std::vector<nlohmann::json>(list.begin(), list.end());
  }

  // Within run_graph: the lent weight `name` is not read again (see
  // release_tensor in the C table). A host older than SDK 1.5 keeps it.
  void release_tensor(const std::string& name) const {
    if (offers(offsetof(aoe_host_services, release_tensor) + sizeof s_->release_tensor) && s_->release_tensor)
      s_->release_tensor(s_->ctx, name.c_str());
  }
  // Within run_graph: whether the host lends buffers for outputs of
  // run-time shape (SDK 1.6; see output_buffer in the C table).
  bool lends_output_buffers() const {
    return offers(offsetof(aoe_host_services, output_buffer) + sizeof s_->output_buffer) && s_->output_buffer;
  }
  // Within run_graph: the host's buffer for graph output `name` of run-time
  // shape `dims` (see output_buffer in the C table); nullptr when it holds
  // no values. A host older than SDK 1.6 cannot take such an output: the
  // Error(unsupported) says which and why.
  float* output_buffer(const std::string& name, const std::vector<int64_t>& dims) const {
    std::string shape;
    for (size_t i = 0; i < dims.size(); ++i) shape += (i ? "," : "") + std::to_string(dims[i]);
    if (!lends_output_buffers())
      throw Error(StatusCode::unsupported, "output '" + name + "' has shape [" + shape +
                                               "] as the model runs, which the buffer the host lent does not hold; "
                                               "a host built against SDK 1.6 or later takes outputs of run-time shape");
    float* data = nullptr;
    check(s_->output_buffer(s_->ctx, name.c_str(), dims.data(), static_cast<uint32_t>(dims.size()), &data),
          "output '" + name + "' of shape [" + shape + "]");
    return data;
  }
  // Whether the host's table reaches this far: older hosts hand shorter ones.
  bool offers(size_t end_of_member) const { return s_ && s_->struct_size >= end_of_member; }

 private:
  const aoe_host_services* s_;
};

}  // namespace aoe::sdk
