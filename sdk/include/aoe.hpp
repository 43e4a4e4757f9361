// SPDX-License-Identifier: Apache-2.0
// A header-only C++ wrapper over aoe.h: a session that throws aoe::Error.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
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

// A float32 array, row-major: a model run's input or output.
struct Tensor {
  std::vector<int64_t> dims;
  std::vector<float> data;
};

// A model run's outputs by name and its run report's JSON text (API 1.1).
struct RunResult {
  std::map<std::string, Tensor> outputs;
  std::string report;
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
  // Runs the model as `aoe-host run` does; inputs left out are drawn from the
  // session's seed. Throws Error naming the input or op when it cannot run.
  RunResult run_file(const std::string& model_path, const std::map<std::string, Tensor>& inputs = {}) {
    const auto list = tensors(inputs);
    aoe_run_result* result = nullptr;
    check(aoe_session_run_file(session_, model_path.c_str(), list.data(), list.size(), &result));
    return take(result);
  }
  RunResult run_bytes(const std::string& name, const void* data, size_t size,
                      const std::map<std::string, Tensor>& inputs = {}) {
    const auto list = tensors(inputs);
    aoe_run_result* result = nullptr;
    check(aoe_session_run_bytes(session_, name.c_str(), data, size, list.data(), list.size(), &result));
    return take(result);
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

  static std::vector<aoe_input> tensors(const std::map<std::string, Tensor>& inputs) {
    std::vector<aoe_input> list;
    for (const auto& [name, t] : inputs) list.push_back({name.c_str(), t.dims.data(), t.dims.size(), t.data.data()});
    return list;
  }
  static RunResult take(aoe_run_result* raw) {
    const std::unique_ptr<aoe_run_result, void (*)(aoe_run_result*)> owned(raw, aoe_run_result_destroy);
    const aoe_run_result* result = owned.get();
    RunResult out;
    for (size_t i = 0; i < aoe_run_result_output_count(result); ++i) {
      size_t rank = 0, count = 0;
      const int64_t* dims = aoe_run_result_output_dims(result, i, &rank);
      const float* data = aoe_run_result_output_data(result, i, &count);
      out.outputs[aoe_run_result_output_name(result, i)] = Tensor{{dims, dims + rank}, {data, data + count}};
    }
    out.report = aoe_run_result_report(result);
    return out;
  }

  aoe_session* session_ = nullptr;
  Progress progress_;
};

}  // namespace aoe
