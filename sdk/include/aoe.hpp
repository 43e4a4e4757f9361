// SPDX-License-Identifier: Apache-2.0
// A header-only C++ wrapper over aoe.h: a session that throws aoe::Error.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "aoe.h"

namespace aoe {

// A failed call: its AOE_STATUS_* code and aoe's message. A cancelled or
// partly failed tuning carries its result too.
class Error : public std::runtime_error {
 public:
  Error(int32_t code, const std::string& message, std::string result = {})
      : std::runtime_error(message), code_(code), result_(std::move(result)) {}
  int32_t code() const { return code_; }
  const std::string& result() const { return result_; }

 private:
  int32_t code_;
  std::string result_;
};

class Session {
 public:
  using Progress = std::function<void(const aoe_progress&)>;

  // Options by aoe-host's names: {{"device", "cpu"}, {"budget", "16"}}.
  explicit Session(const std::map<std::string, std::string>& options = {}) {
    std::vector<aoe_option> list;
    for (const auto& [key, value] : options) list.push_back({key.c_str(), value.c_str()});
    check(aoe_session_create(list.data(), list.size(), &session_));
  }
  ~Session() { aoe_session_destroy(session_); }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // The result file's JSON text; throws Error (with the result when there is one) unless complete.
  std::string tune_file(const std::string& model_path, const std::string& mode = {}) {
    const int32_t code = aoe_session_tune_file(session_, mode.empty() ? nullptr : mode.c_str(), model_path.c_str());
    return finish(code);
  }
  std::string tune_bytes(const std::string& name, const void* data, size_t size, const std::string& mode = {}) {
    const int32_t code = aoe_session_tune_bytes(session_, mode.empty() ? nullptr : mode.c_str(), name.c_str(), data, size);
    return finish(code);
  }
  // Safe from any thread or a signal handler.
  void cancel() noexcept { aoe_session_cancel(session_); }

  void on_progress(Progress progress) {
    progress_ = std::move(progress);
    if (!progress_) {
      check(aoe_session_set_progress(session_, nullptr, nullptr));
      return;
    }
    check(aoe_session_set_progress(
        session_, [](void* user, const aoe_progress* p) { (*static_cast<Progress*>(user))(*p); }, &progress_));
  }

  std::string bank_entries(const std::string& kind, const std::string& signature) {
    const char* json = nullptr;
    check(aoe_session_bank_entries(session_, kind.c_str(), signature.c_str(), &json));
    return json;
  }
  std::string plugins() {
    const char* json = nullptr;
    check(aoe_session_plugins(session_, &json));
    return json;
  }

  aoe_session* get() const { return session_; }

 private:
  static void check(int32_t code) {
    if (code != AOE_STATUS_OK) throw Error(code, aoe_last_error());
  }
  std::string finish(int32_t code) {
    std::string result = aoe_session_result(session_);
    if (code != AOE_STATUS_OK) throw Error(code, aoe_last_error(), std::move(result));
    return result;
  }

  aoe_session* session_ = nullptr;
  Progress progress_;
};

}  // namespace aoe
