// aoe.h's functions: C on the outside, Session inside; every exception is
// caught here and becomes a status and this thread's last error.
#include <boost/dll/runtime_symbol_info.hpp>

#include <limits>
#include <new>
#include <string>

#include "aoe.h"
#include "aoe/sdk/error.h"
#include "command_line.h"
#include "exit_error.h"
#include "session.h"

struct aoe_run_result {
  std::vector<std::pair<std::string, aoe::host::FloatArray>> outputs;
  std::string report;
};

struct aoe_session {
  aoe::host::Session session;
  std::string result;
  std::string bank_answer;
  std::string plugins_answer;
};

namespace {

using aoe::host::ExitError;

thread_local std::string last_error;

int32_t fail(int32_t code, const std::string& message) {
  last_error = message;
  return code;
}

// aoe-host's exit codes as statuses: what the user must fix, what is missing, what went wrong.
int32_t status_of_exit(int code) {
  switch (code) {
    case aoe::host::exit_usage:
    case aoe::host::exit_model: return AOE_STATUS_INVALID_ARGUMENT;
    case aoe::host::exit_plugin: return AOE_STATUS_NOT_FOUND;
    case aoe::host::exit_interrupted: return AOE_STATUS_CANCELLED;
    default: return AOE_STATUS_INTERNAL;
  }
}

template <class F>
int32_t guarded(F&& f) {
  try {
    return f();
  } catch (const ExitError& e) {
    return fail(status_of_exit(e.code()), e.what());
  } catch (const aoe::sdk::Error& e) {
    return fail(static_cast<int32_t>(e.code()), e.what());
  } catch (const std::bad_alloc&) {
    return fail(AOE_STATUS_INTERNAL, "out of memory");
  } catch (const std::exception& e) {
    return fail(AOE_STATUS_INTERNAL, e.what());
  } catch (...) {
    return fail(AOE_STATUS_INTERNAL, "unknown exception");
  }
}

int32_t null_argument(const char* what) { return fail(AOE_STATUS_INVALID_ARGUMENT, std::string(what) + " is NULL"); }

// The installed plugins, from libaoe's own folder (lib/ -> lib/aoe/plugins).
std::filesystem::path installed_plugins() {
  const std::filesystem::path library = boost::dll::this_line_location().string();
  return library.parent_path() / AOE_LIB_TO_PLUGINS;
}

int32_t finish_tuning(aoe_session* s, const aoe::host::TuningOutcome& outcome) {
  s->result = outcome.result.empty() ? std::string() : outcome.result.dump(4);
  if (outcome.exit_code == aoe::host::exit_ok) return AOE_STATUS_OK;
  if (outcome.exit_code == aoe::host::exit_interrupted)
    return fail(AOE_STATUS_CANCELLED, "tuning cancelled: tuning incomplete; finished ops are kept in the bank");
  return fail(status_of_exit(outcome.exit_code),
              "tuning failed for some ops; the result names them and the others are kept in the bank");
}

// The caller's arrays, copied, each checked for what the C side alone can get
// wrong; the model's shapes are checked by run_model.
aoe::host::GivenInputs given_inputs(const aoe_input* inputs, size_t count) {
  const auto refuse = [](const std::string& message) {
    return aoe::sdk::Error(aoe::sdk::StatusCode::invalid_argument, message);
  };
  aoe::host::GivenInputs given{"the call", {}, true};
  for (size_t i = 0; i < count; ++i) {
    const aoe_input& t = inputs[i];
    if (!t.name) throw refuse("input " + std::to_string(i) + " has a NULL name");
    const std::string name = t.name;
    if (!t.dims && t.rank)
      throw refuse("input '" + name + "' has NULL dims and rank " + std::to_string(t.rank));
    aoe::host::FloatArray array;
    size_t elements = 1;
    for (size_t d = 0; d < t.rank; ++d) {
      const int64_t dim = t.dims[d];
      const size_t most = std::numeric_limits<size_t>::max() / sizeof(float);
      if (dim < 0 || (dim > 0 && elements > most / static_cast<uint64_t>(dim)))
        throw refuse("input '" + name + "': dim " + std::to_string(d) + " is " + std::to_string(dim) +
                     "; dims are 0 or more and their product must fit in memory");
      elements *= static_cast<size_t>(dim);
      array.shape.push_back(dim);
    }
    if (!t.data && elements)
      throw refuse("input '" + name + "' has NULL data");
    if (elements) array.data.assign(t.data, t.data + elements);
    if (!given.arrays.emplace(name, std::move(array)).second)
      throw refuse("input '" + name + "' is given twice");
  }
  return given;
}

int32_t finish_run(aoe::host::ModelRunOutcome outcome, aoe_run_result** out_result) {
  if (outcome.report.is_null())
    return fail(status_of_exit(outcome.exit_code),
                "tune_on_miss: tuning the ops the bank misses failed; the tuning's result file names them");
  if (outcome.exit_code != aoe::host::exit_ok)
    return fail(status_of_exit(outcome.exit_code), "check: the outputs do not match the reference: " +
                                                       outcome.report.value("check", nlohmann::json()).dump() +
                                                       " (run report " + outcome.report_path.string() + ")");
  *out_result = new aoe_run_result{std::move(outcome.outputs), outcome.report.dump(2)};
  return AOE_STATUS_OK;
}

int32_t check_run_arguments(aoe_session* session, const aoe_input* inputs, size_t count, aoe_run_result** out_result) {
  if (!out_result) return null_argument("out_result");
  *out_result = nullptr;
  if (!session) return null_argument("session");
  if (!inputs && count) return null_argument("inputs");
  return AOE_STATUS_OK;
}

const std::pair<std::string, aoe::host::FloatArray>* output_at(const aoe_run_result* result, size_t index) {
  return result && index < result->outputs.size() ? &result->outputs[index] : nullptr;
}

}  // namespace

extern "C" {

AOE_EXPORT void aoe_api_version(uint32_t* major, uint32_t* minor) {
  if (major) *major = AOE_API_VERSION_MAJOR;
  if (minor) *minor = AOE_API_VERSION_MINOR;
}

AOE_EXPORT const char* aoe_last_error(void) { return last_error.c_str(); }

AOE_EXPORT int32_t aoe_session_create(const aoe_option* options, size_t count, aoe_session** out_session) {
  if (!out_session) return null_argument("out_session");
  *out_session = nullptr;
  if (!options && count) return null_argument("options");
  return guarded([&] {
    aoe::host::Session::Options map;
    for (size_t i = 0; i < count; ++i) {
      if (!options[i].key || !options[i].value)
        return fail(AOE_STATUS_INVALID_ARGUMENT, "option " + std::to_string(i) + " has a NULL key or value");
      if (!map.emplace(options[i].key, options[i].value).second)
        return fail(AOE_STATUS_INVALID_ARGUMENT, std::string("option '") + options[i].key + "' is given twice");
    }
    *out_session = new aoe_session{aoe::host::Session(std::move(map), installed_plugins()), {}, {}, {}};
    return int32_t{AOE_STATUS_OK};
  });
}

AOE_EXPORT void aoe_session_destroy(aoe_session* session) { delete session; }

AOE_EXPORT int32_t aoe_session_set_progress(aoe_session* session, aoe_progress_fn fn, void* user) {
  if (!session) return null_argument("session");
  if (!fn) {
    session->session.set_progress(nullptr);
    return AOE_STATUS_OK;
  }
  return guarded([&] {
    session->session.set_progress([fn, user](const std::string& stage, uint64_t done, uint64_t total,
                                             const std::string& note) {
      const aoe_progress progress{sizeof(aoe_progress), stage.c_str(), done, total, note.c_str()};
      fn(user, &progress);
    });
    return int32_t{AOE_STATUS_OK};
  });
}

AOE_EXPORT int32_t aoe_session_tune_file(aoe_session* session, const char* mode, const char* model_path) {
  if (!session) return null_argument("session");
  if (!model_path) return null_argument("model_path");
  session->result.clear();
  return guarded([&] { return finish_tuning(session, session->session.tune_file(mode ? mode : "", model_path)); });
}

AOE_EXPORT int32_t aoe_session_tune_bytes(aoe_session* session, const char* mode, const char* name, const void* data,
                                          size_t size) {
  if (!session) return null_argument("session");
  if (!name) return null_argument("name");
  if (!data && size) return null_argument("data");
  session->result.clear();
  return guarded([&] {
    const std::string_view bytes(static_cast<const char*>(data), size);
    return finish_tuning(session, session->session.tune_bytes(mode ? mode : "", name, bytes));
  });
}

AOE_EXPORT const char* aoe_session_result(const aoe_session* session) {
  return session ? session->result.c_str() : "";
}

AOE_EXPORT void aoe_session_cancel(aoe_session* session) {
  if (session) session->session.cancel();
}

AOE_EXPORT int32_t aoe_session_bank_entries(aoe_session* session, const char* kind, const char* signature,
                                            const char** out_json) {
  if (!session) return null_argument("session");
  if (!kind) return null_argument("kind");
  if (!signature) return null_argument("signature");
  if (!out_json) return null_argument("out_json");
  return guarded([&] {
    session->bank_answer = session->session.bank_entries(kind, signature);
    *out_json = session->bank_answer.c_str();
    return int32_t{AOE_STATUS_OK};
  });
}

AOE_EXPORT int32_t aoe_session_plugins(aoe_session* session, const char** out_json) {
  if (!session) return null_argument("session");
  if (!out_json) return null_argument("out_json");
  return guarded([&] {
    session->plugins_answer = session->session.plugins_json();
    *out_json = session->plugins_answer.c_str();
    return int32_t{AOE_STATUS_OK};
  });
}

AOE_EXPORT int32_t aoe_session_run_file(aoe_session* session, const char* model_path, const aoe_input* inputs,
                                        size_t count, aoe_run_result** out_result) {
  if (const int32_t status = check_run_arguments(session, inputs, count, out_result); status != AOE_STATUS_OK)
    return status;
  if (!model_path) return null_argument("model_path");
  return guarded([&] {
    return finish_run(session->session.run_file(model_path, given_inputs(inputs, count)), out_result);
  });
}

AOE_EXPORT int32_t aoe_session_run_bytes(aoe_session* session, const char* name, const void* data, size_t size,
                                         const aoe_input* inputs, size_t count, aoe_run_result** out_result) {
  if (const int32_t status = check_run_arguments(session, inputs, count, out_result); status != AOE_STATUS_OK)
    return status;
  if (!name) return null_argument("name");
  if (!data && size) return null_argument("data");
  return guarded([&] {
    const std::string_view bytes(static_cast<const char*>(data), size);
    return finish_run(session->session.run_bytes(name, bytes, given_inputs(inputs, count)), out_result);
  });
}

AOE_EXPORT size_t aoe_run_result_output_count(const aoe_run_result* result) {
  return result ? result->outputs.size() : 0;
}

AOE_EXPORT const char* aoe_run_result_output_name(const aoe_run_result* result, size_t index) {
  const auto* output = output_at(result, index);
  return output ? output->first.c_str() : nullptr;
}

AOE_EXPORT const int64_t* aoe_run_result_output_dims(const aoe_run_result* result, size_t index, size_t* out_rank) {
  const auto* output = output_at(result, index);
  if (out_rank) *out_rank = output ? output->second.shape.size() : 0;
  return output ? output->second.shape.data() : nullptr;
}

AOE_EXPORT const float* aoe_run_result_output_data(const aoe_run_result* result, size_t index, size_t* out_count) {
  const auto* output = output_at(result, index);
  if (out_count) *out_count = output ? output->second.data.size() : 0;
  return output ? output->second.data.data() : nullptr;
}

AOE_EXPORT const char* aoe_run_result_report(const aoe_run_result* result) {
  return result ? result->report.c_str() : "";
}

AOE_EXPORT void aoe_run_result_destroy(aoe_run_result* result) { delete result; }

}  // extern "C"
