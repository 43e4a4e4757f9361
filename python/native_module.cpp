// aoe._native: the C API (aoe.h) for the Python package. Calls return
// (status, message, value) and the package raises aoe.Error, so the
// exception type and its fields live in Python; tuning releases the GIL.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "aoe.h"

namespace py = pybind11;

namespace {

using Answer = std::tuple<int32_t, std::string, std::string>;  // status, message, value
using RunAnswer = std::tuple<int32_t, std::string, py::list, std::string>;  // status, message, outputs, report

// The caller's arrays as aoe_input, pointing into copies this holds.
struct Inputs {
  std::vector<std::string> names;
  std::vector<std::vector<int64_t>> dims;
  std::vector<std::string> data;
  std::vector<aoe_input> tensors;
};

Inputs read_inputs(const py::list& list) {
  Inputs in;
  for (const auto& item : list) {
    const auto entry = item.cast<std::tuple<std::string, std::vector<int64_t>, py::bytes>>();
    in.names.push_back(std::get<0>(entry));
    in.dims.push_back(std::get<1>(entry));
    in.data.push_back(std::string(std::get<2>(entry)));
  }
  for (size_t i = 0; i < in.names.size(); ++i) {
    // The package hands over as many floats as the dims make; libaoe reads that many.
    size_t elements = 1;
    for (const int64_t d : in.dims[i]) elements *= d > 0 ? static_cast<size_t>(d) : 0;
    if (in.data[i].size() != elements * sizeof(float))
      throw py::value_error("input '" + in.names[i] + "': " + std::to_string(in.data[i].size()) +
                            " bytes for dims of " + std::to_string(elements) + " float32 values");
    in.tensors.push_back({in.names[i].c_str(), in.dims[i].data(), in.dims[i].size(),
                          reinterpret_cast<const float*>(in.data[i].data())});
  }
  return in;
}

RunAnswer run_answer(int32_t status, aoe_run_result* result) {
  py::list outputs;
  if (status != AOE_STATUS_OK) return {status, std::string(aoe_last_error()), outputs, std::string()};
  const std::unique_ptr<aoe_run_result, void (*)(aoe_run_result*)> owned(result, aoe_run_result_destroy);
  for (size_t i = 0; i < aoe_run_result_output_count(result); ++i) {
    size_t rank = 0, count = 0;
    const int64_t* dims = aoe_run_result_output_dims(result, i, &rank);
    const float* data = aoe_run_result_output_data(result, i, &count);
    outputs.append(py::make_tuple(aoe_run_result_output_name(result, i), std::vector<int64_t>(dims, dims + rank),
                                  py::bytes(reinterpret_cast<const char*>(data), count * sizeof(float))));
  }
  return {status, std::string(), outputs, std::string(aoe_run_result_report(result))};
}

Answer answer(int32_t status, std::string value = {}) {
  return {status, status == AOE_STATUS_OK ? std::string() : std::string(aoe_last_error()), std::move(value)};
}

class NativeSession {
 public:
  explicit NativeSession(aoe_session* session) : session_(session) {}
  ~NativeSession() { aoe_session_destroy(session_); }
  NativeSession(const NativeSession&) = delete;
  NativeSession& operator=(const NativeSession&) = delete;

  static std::tuple<int32_t, std::string, std::unique_ptr<NativeSession>> create(
      const std::map<std::string, std::string>& options) {
    std::vector<aoe_option> list;
    for (const auto& [key, value] : options) list.push_back({key.c_str(), value.c_str()});
    aoe_session* session = nullptr;
    const int32_t status = aoe_session_create(list.data(), list.size(), &session);
    if (status != AOE_STATUS_OK) return std::make_tuple(status, std::string(aoe_last_error()), nullptr);
    return std::make_tuple(status, std::string(), std::make_unique<NativeSession>(session));
  }

  Answer tune_file(const std::string& mode, const std::string& path) {
    int32_t status;
    {
      py::gil_scoped_release unlocked;
      status = aoe_session_tune_file(session_, mode.empty() ? nullptr : mode.c_str(), path.c_str());
    }
    return finish(status);
  }

  Answer tune_bytes(const std::string& mode, const std::string& name, const py::bytes& model) {
    const std::string_view bytes(model);  // `model` is held by the caller throughout
    int32_t status;
    {
      py::gil_scoped_release unlocked;
      status = aoe_session_tune_bytes(session_, mode.empty() ? nullptr : mode.c_str(), name.c_str(), bytes.data(),
                                      bytes.size());
    }
    return finish(status);
  }

  // inputs: [(name, dims, float32 bytes)]. Returns (status, message,
  // [(name, dims, float32 bytes)], report JSON text).
  RunAnswer run_file(const std::string& path, const py::list& inputs) {
    const Inputs given = read_inputs(inputs);
    aoe_run_result* result = nullptr;
    int32_t status;
    {
      py::gil_scoped_release unlocked;
      status = aoe_session_run_file(session_, path.c_str(), given.tensors.data(), given.tensors.size(), &result);
    }
    return run_answer(status, result);
  }

  RunAnswer run_bytes(const std::string& name, const py::bytes& model, const py::list& inputs) {
    const std::string_view bytes(model);  // `model` is held by the caller throughout
    const Inputs given = read_inputs(inputs);
    aoe_run_result* result = nullptr;
    int32_t status;
    {
      py::gil_scoped_release unlocked;
      status = aoe_session_run_bytes(session_, name.c_str(), bytes.data(), bytes.size(), given.tensors.data(),
                                     given.tensors.size(), &result);
    }
    return run_answer(status, result);
  }

  // Without the GIL's help: the flag is lock-free.
  void cancel() { aoe_session_cancel(session_); }

  // callback(stage, done, total, note), on the tuning's thread; None: none.
  void set_progress(py::object callback) {
    progress_ = std::move(callback);
    if (progress_.is_none()) {
      aoe_session_set_progress(session_, nullptr, nullptr);
      return;
    }
    aoe_session_set_progress(session_, &NativeSession::on_progress, this);
  }

  Answer bank_entries(const std::string& kind, const std::string& signature) {
    const char* json = nullptr;
    const int32_t status = aoe_session_bank_entries(session_, kind.c_str(), signature.c_str(), &json);
    return answer(status, json ? json : "");
  }

  Answer plugins() {
    const char* json = nullptr;
    const int32_t status = aoe_session_plugins(session_, &json);
    return answer(status, json ? json : "");
  }

 private:
  Answer finish(int32_t status) { return answer(status, aoe_session_result(session_)); }

  static void on_progress(void* user, const aoe_progress* p) {
    py::gil_scoped_acquire locked;
    try {
      static_cast<NativeSession*>(user)->progress_(p->stage, p->done, p->total, p->note);
    } catch (py::error_already_set& e) {
      e.discard_as_unraisable("aoe progress callback");
    }
  }

  aoe_session* session_;
  py::object progress_ = py::none();
};

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "aoe's C API; use the aoe package, not this module";
  uint32_t major = 0, minor = 0;
  aoe_api_version(&major, &minor);
  m.attr("api_version") = py::make_tuple(major, minor);
  m.attr("STATUS_OK") = int{AOE_STATUS_OK};
  m.attr("STATUS_INVALID_ARGUMENT") = int{AOE_STATUS_INVALID_ARGUMENT};
  m.attr("STATUS_NOT_FOUND") = int{AOE_STATUS_NOT_FOUND};
  m.attr("STATUS_UNSUPPORTED") = int{AOE_STATUS_UNSUPPORTED};
  m.attr("STATUS_CANCELLED") = int{AOE_STATUS_CANCELLED};
  m.attr("STATUS_INTERNAL") = int{AOE_STATUS_INTERNAL};
  m.attr("STATUS_IO") = int{AOE_STATUS_IO};
  py::class_<NativeSession>(m, "NativeSession")
      .def_static("create", &NativeSession::create)
      .def("tune_file", &NativeSession::tune_file)
      .def("tune_bytes", &NativeSession::tune_bytes)
      .def("run_file", &NativeSession::run_file)
      .def("run_bytes", &NativeSession::run_bytes)
      .def("cancel", &NativeSession::cancel)
      .def("set_progress", &NativeSession::set_progress)
      .def("bank_entries", &NativeSession::bank_entries)
      .def("plugins", &NativeSession::plugins);
}
