// A stand-in for libascendcl.so, so the ascend device is loaded and tested
// where there is no NPU: it exports the AscendCL entry points the device
// resolves, runs the few ops it knows with the cpu device's reference
// kernels, charges each a deterministic cost by its formats and
// implementation mode on a per-stream clock that events read, injects
// faults on request, counts what is created and destroyed, and logs calls.
//
// It reads its environment at aclInit:
//   ACL_DOUBLE_SOC           what aclrtGetSocName answers (default Ascend910B2)
//   ACL_DOUBLE_DEVICE_COUNT  devices there are (default 1)
//   ACL_DOUBLE_FAULTS        comma-separated: compile:<op>[:<format>] fails its compile,
//                            run:<op>[:<format>] fails when the stream is synchronised,
//                            vanish:<n> loses the device after n executions
//   ACL_DOUBLE_LOG           a file each call is appended to, one line each;
//                            aclFinalize ends with what is still alive
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "acl_api.h"
#include "cpu_op.h"
#include "host_cpu.h"
#include "storage_format.h"

#define ACL_DOUBLE_EXPORT __attribute__((visibility("default")))
extern "C" {
#define ACL_DOUBLE_DECLARE(name, ret, params) ACL_DOUBLE_EXPORT ret name params;
AOE_ACL_ENTRY_POINTS(ACL_DOUBLE_DECLARE)
#undef ACL_DOUBLE_DECLARE
}

using aoe::ascend::StorageFormat;

struct aclTensorDesc {
  aclDataType dtype = ACL_FLOAT;
  std::vector<int64_t> dims;
  aclFormat format = ACL_FORMAT_ND;
  aclFormat storage_format = ACL_FORMAT_UNDEFINED;  // undefined: as `format`
  std::vector<int64_t> storage_dims;
};

struct aclDataBuffer {
  void* data = nullptr;
  size_t size = 0;
};

struct aclopAttr {
  std::map<std::string, int64_t> ints;
  std::map<std::string, std::string> texts;
  std::map<std::string, std::vector<int64_t>> lists;
};

namespace {

// Error codes as the runtime reports them; only their being non-zero matters to the device.
constexpr aclError kInvalidParam = 100000;
constexpr aclError kUninitialised = 100001;
constexpr aclError kCompileFailed = 500002;
constexpr aclError kAiCoreException = 507015;
constexpr aclError kDeviceLost = 507033;

struct Fault {
  std::string kind;  // compile, run
  std::string op;
  std::string format;  // empty: any
};

struct Double {
  std::mutex mutex;
  // configuration, read at aclInit
  std::string soc = "Ascend910B2";
  uint32_t device_count = 1;
  std::vector<Fault> faults;
  long vanish_after = -1;
  std::string log_path;
  // state
  bool initialised = false;
  std::set<int32_t> devices;
  long executions = 0;
  bool lost = false;
  std::string impl_mode = "high_performance";
  std::string recent_error;
  std::string shown_error;  // the last message aclGetRecentErrMsg handed out
  std::map<void*, double> stream_clock_us;
  std::map<void*, std::string> stream_failure;
  std::map<void*, double> event_time_us;
  std::map<void*, size_t> memory;
  long tensor_descs = 0, data_buffers = 0, attrs = 0;
  aoe::cpu::HostCpu host = aoe::cpu::detect_host_cpu();

  void log(const std::string& line) const {
    if (log_path.empty()) return;
    if (FILE* f = std::fopen(log_path.c_str(), "a")) {
      std::fprintf(f, "%s\n", line.c_str());
      std::fclose(f);
    }
  }
  aclError fail(aclError code, const std::string& message) {
    recent_error = message;
    log("  error " + std::to_string(code) + ": " + message);
    return code;
  }
  // Runtime calls on a device need one set and not lost.
  aclError need_device(const char* call) {
    if (!initialised) return fail(kUninitialised, std::string(call) + " before aclInit");
    if (lost) return fail(kDeviceLost, "EL0004: the device is lost (heartbeat stopped)");
    if (devices.empty()) return fail(kInvalidParam, std::string(call) + " with no device set");
    return ACL_SUCCESS;
  }
};

Double& state() {
  static Double d;
  return d;
}

std::string env(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, sep);)
    if (!item.empty()) out.push_back(item);
  return out;
}

void configure(Double& d) {
  d.soc = env("ACL_DOUBLE_SOC", "Ascend910B2");
  d.device_count = static_cast<uint32_t>(std::stoul(env("ACL_DOUBLE_DEVICE_COUNT", "1")));
  d.log_path = env("ACL_DOUBLE_LOG", "");
  d.faults.clear();
  d.vanish_after = -1;
  for (const auto& spec : split(env("ACL_DOUBLE_FAULTS", ""), ',')) {
    const auto parts = split(spec, ':');
    if (parts.size() == 2 && parts[0] == "vanish")
      d.vanish_after = std::stol(parts[1]);
    else if (parts.size() >= 2)
      d.faults.push_back({parts[0], parts[1], parts.size() > 2 ? parts[2] : ""});
  }
  d.executions = 0;
  d.lost = false;
  d.impl_mode = "high_performance";
}

StorageFormat stored_format(const aclTensorDesc& t) {
  const aclFormat f = t.storage_format == ACL_FORMAT_UNDEFINED ? t.format : t.storage_format;
  return aoe::ascend::storage_format(f).value_or(StorageFormat::nd);
}

const Fault* fault_for(const Double& d, const std::string& kind, const std::string& op, int n,
                       const aclTensorDesc* const descs[]) {
  for (const auto& f : d.faults) {
    if (f.kind != kind || f.op != op) continue;
    if (f.format.empty()) return &f;
    for (int i = 0; i < n; ++i)
      if (aoe::ascend::format_name(stored_format(*descs[i])) == f.format) return &f;
  }
  return nullptr;
}

const std::set<std::string>& known_ops() {
  static const std::set<std::string> ops = {"MatMul", "Conv2D", "Add", "Sub", "Mul", "RealDiv", "Relu", "Sigmoid", "Tanh"};
  return ops;
}

// The cost of one execution, in microseconds: work over a nominal rate,
// scaled by what the formats and the implementation mode save.
double cost_us(const Double& d, const std::string& op, int n, const aclTensorDesc* const in[], const aclTensorDesc& out) {
  const bool precise = d.impl_mode == "high_precision";
  if (op == "MatMul") {
    const auto& a = in[0]->dims;
    const double flops = 2.0 * aoe::ascend::element_count(out.dims) * static_cast<double>(a[0] == out.dims[0] ? a[1] : a[0]);
    double t = 2 + flops / 2e5;
    if (stored_format(*in[0]) == StorageFormat::fractal_nz) t *= 0.8;
    if (stored_format(*in[1]) == StorageFormat::fractal_nz) t *= 0.7;
    return precise ? t * 1.25 : t;
  }
  if (op == "Conv2D") {
    const auto& w = in[1]->dims;
    const double flops = 2.0 * aoe::ascend::element_count(out.dims) * static_cast<double>(w[1] * w[2] * w[3]);
    double t = 3 + flops / 4e5;
    if (stored_format(*in[0]) == StorageFormat::nc1hwc0) t *= 0.75;
    if (stored_format(*in[1]) == StorageFormat::fractal_z) t *= 0.8;
    return precise ? t * 1.25 : t;
  }
  (void)n;
  const double t = 1 + static_cast<double>(aoe::ascend::element_count(out.dims)) / 1e4;
  return precise ? t * 1.1 : t;
}

// The op as the cpu device's reference takes it.
aoe::sdk::OpTask reference_task(const std::string& op, int n, const aclTensorDesc* const in[], const aclopAttr* attr) {
  aoe::sdk::OpTask task;
  for (int i = 0; i < n; ++i) {
    aoe::sdk::TensorDesc t;
    t.name = "x" + std::to_string(i);
    t.shape = in[i]->dims;
    task.inputs.push_back(t);
  }
  auto flag = [&](const char* name) { return attr && attr->ints.count(name) && attr->ints.at(name) != 0; };
  auto list = [&](const char* name) { return attr && attr->lists.count(name) ? attr->lists.at(name) : std::vector<int64_t>{}; };
  if (op == "MatMul") {
    const bool ta = flag("transpose_x1"), tb = flag("transpose_x2");
    task.op_type = ta || tb ? "Gemm" : "MatMul";
    if (ta || tb) task.attrs = {{"transA", ta ? 1 : 0}, {"transB", tb ? 1 : 0}};
  } else if (op == "Conv2D") {
    const auto strides = list("strides"), pads = list("pads"), dilations = list("dilations");
    task.op_type = "Conv";
    task.attrs = {{"strides", {strides.at(2), strides.at(3)}},
                  {"pads", {pads.at(0), pads.at(2), pads.at(1), pads.at(3)}},
                  {"dilations", {dilations.at(2), dilations.at(3)}},
                  {"group", attr && attr->ints.count("groups") ? attr->ints.at("groups") : 1},
                  {"kernel_shape", {in[1]->dims[2], in[1]->dims[3]}}};
  } else {
    task.op_type = op == "RealDiv" ? "Div" : op;
  }
  return task;
}

// Runs the op on the host: inputs out of their storage formats, the
// reference, the output into its storage format. Empty, or why it cannot.
std::string execute(Double& d, const std::string& op, int n, const aclTensorDesc* const in_descs[],
                    const aclDataBuffer* const in[], const aclTensorDesc& out_desc, const aclDataBuffer& out,
                    const aclopAttr* attr) {
  std::vector<std::vector<float>> inputs;
  for (int i = 0; i < n; ++i) {
    const auto& t = *in_descs[i];
    const auto f = stored_format(t);
    const size_t need = static_cast<size_t>(aoe::ascend::element_count(aoe::ascend::storage_shape(f, t.dims))) * sizeof(float);
    if (!in[i] || in[i]->size < need)
      return "input " + std::to_string(i) + " holds " + std::to_string(in[i] ? in[i]->size : 0) + " bytes, its " +
             aoe::ascend::format_name(f) + " desc needs " + std::to_string(need);
    inputs.emplace_back(static_cast<size_t>(aoe::ascend::element_count(t.dims)));
    aoe::ascend::from_storage(f, t.dims, static_cast<const float*>(in[i]->data), inputs.back().data());
  }
  const auto reference = aoe::cpu::make_op(reference_task(op, n, in_descs, attr), d.host);
  if (reference->output_shapes().at(0) != out_desc.dims) return "the output desc's dims are not the op's";
  std::vector<float> result(static_cast<size_t>(aoe::ascend::element_count(out_desc.dims)));
  std::vector<const float*> in_ptrs;
  for (const auto& v : inputs) in_ptrs.push_back(v.data());
  reference->reference(in_ptrs, {result.data()});
  const auto f = stored_format(out_desc);
  const auto stored = aoe::ascend::to_storage(f, out_desc.dims, result.data());
  if (out.size < stored.size() * sizeof(float)) return "the output buffer is too small for its desc";
  std::memcpy(out.data, stored.data(), stored.size() * sizeof(float));
  return {};
}

bool is_device_memory(const Double& d, const void* p, size_t bytes) {
  for (const auto& [base, size] : d.memory) {
    const auto* b = static_cast<const char*>(base);
    const auto* q = static_cast<const char*>(p);
    if (q >= b && q + bytes <= b + size) return true;
  }
  return false;
}

std::string live_counts(const Double& d) {
  return "streams=" + std::to_string(d.stream_clock_us.size()) + " events=" + std::to_string(d.event_time_us.size()) +
         " memory=" + std::to_string(d.memory.size()) + " tensor_descs=" + std::to_string(d.tensor_descs) +
         " data_buffers=" + std::to_string(d.data_buffers) + " attrs=" + std::to_string(d.attrs);
}

// Compile-time checks common to aclopCompile and aclopCompileAndExecute.
aclError compile(Double& d, const char* op_type, int n, const aclTensorDesc* const in[]) {
  const std::string op = op_type ? op_type : "";
  if (!known_ops().count(op)) return d.fail(kCompileFailed, "E40021: no op kernel registered for op type '" + op + "'");
  if (fault_for(d, "compile", op, n, in))
    return d.fail(kCompileFailed, "E40021: failed to compile op [" + op + "] (injected compile fault)");
  return ACL_SUCCESS;
}

}  // namespace

using Lock = std::lock_guard<std::mutex>;

extern "C" {

aclError aclInit(const char*) {
  Double& d = state();
  Lock lock(d.mutex);
  configure(d);
  d.log("aclInit");
  if (d.initialised) return d.fail(ACL_ERROR_REPEAT_INITIALIZE, "aclInit: repeated initialisation");
  d.initialised = true;
  return ACL_SUCCESS;
}

aclError aclFinalize() {
  Double& d = state();
  Lock lock(d.mutex);
  d.log("aclFinalize");
  d.log("live " + live_counts(d));
  if (!d.initialised) return d.fail(kUninitialised, "aclFinalize before aclInit");
  d.initialised = false;
  return ACL_SUCCESS;
}

// As the runtime does, a message is handed out once.
const char* aclGetRecentErrMsg() {
  Double& d = state();
  Lock lock(d.mutex);
  d.shown_error = std::move(d.recent_error);
  d.recent_error.clear();
  return d.shown_error.empty() ? nullptr : d.shown_error.c_str();
}

aclError aclrtSetDevice(int32_t id) {
  Double& d = state();
  Lock lock(d.mutex);
  d.log("aclrtSetDevice " + std::to_string(id));
  if (!d.initialised) return d.fail(kUninitialised, "aclrtSetDevice before aclInit");
  if (d.lost) return d.fail(kDeviceLost, "EL0004: device " + std::to_string(id) + " is lost (heartbeat stopped)");
  if (id < 0 || static_cast<uint32_t>(id) >= d.device_count)
    return d.fail(kInvalidParam, "EE1001: device id " + std::to_string(id) + " is out of range");
  d.devices.insert(id);
  return ACL_SUCCESS;
}

aclError aclrtResetDevice(int32_t id) {
  Double& d = state();
  Lock lock(d.mutex);
  d.log("aclrtResetDevice " + std::to_string(id));
  d.devices.erase(id);
  return ACL_SUCCESS;
}

aclError aclrtGetDeviceCount(uint32_t* count) {
  Double& d = state();
  Lock lock(d.mutex);
  d.log("aclrtGetDeviceCount");
  if (!d.initialised) return d.fail(kUninitialised, "aclrtGetDeviceCount before aclInit");
  *count = d.device_count;
  return ACL_SUCCESS;
}

const char* aclrtGetSocName() {
  Double& d = state();
  Lock lock(d.mutex);
  d.log("aclrtGetSocName");
  return d.soc.c_str();
}

aclError aclrtGetCurrentContext(aclrtContext* context) {
  Double& d = state();
  Lock lock(d.mutex);
  if (aclError e = d.need_device("aclrtGetCurrentContext")) return e;
  static int the_context;
  *context = &the_context;
  return ACL_SUCCESS;
}

aclError aclrtSetCurrentContext(aclrtContext context) {
  Double& d = state();
  Lock lock(d.mutex);
  if (aclError e = d.need_device("aclrtSetCurrentContext")) return e;
  return context ? ACL_SUCCESS : d.fail(kInvalidParam, "aclrtSetCurrentContext: no context");
}

aclError aclrtCreateStream(aclrtStream* stream) {
  Double& d = state();
  Lock lock(d.mutex);
  d.log("aclrtCreateStream");
  if (aclError e = d.need_device("aclrtCreateStream")) return e;
  *stream = new char;
  d.stream_clock_us[*stream] = 0;
  return ACL_SUCCESS;
}

aclError aclrtDestroyStream(aclrtStream stream) {
  Double& d = state();
  Lock lock(d.mutex);
  d.log("aclrtDestroyStream");
  if (!d.stream_clock_us.erase(stream)) return d.fail(kInvalidParam, "aclrtDestroyStream: not a stream");
  d.stream_failure.erase(stream);
  delete static_cast<char*>(stream);
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  Double& d = state();
  Lock lock(d.mutex);
  d.log("aclrtSynchronizeStream");
  if (aclError e = d.need_device("aclrtSynchronizeStream")) return e;
  if (!d.stream_clock_us.count(stream)) return d.fail(kInvalidParam, "aclrtSynchronizeStream: not a stream");
  if (d.stream_failure.count(stream)) return d.fail(kAiCoreException, d.stream_failure.at(stream));
  return ACL_SUCCESS;
}

aclError aclrtMalloc(void** ptr, size_t size, aclrtMemMallocPolicy) {
  Double& d = state();
  Lock lock(d.mutex);
  d.log("aclrtMalloc");
  if (aclError e = d.need_device("aclrtMalloc")) return e;
  if (size == 0) return d.fail(kInvalidParam, "aclrtMalloc of 0 bytes");
  *ptr = std::malloc(size);
  d.memory[*ptr] = size;
  return ACL_SUCCESS;
}

aclError aclrtFree(void* ptr) {
  Double& d = state();
  Lock lock(d.mutex);
  d.log("aclrtFree");
  if (!d.memory.erase(ptr)) return d.fail(kInvalidParam, "aclrtFree: not device memory");
  std::free(ptr);
  return d.lost ? d.fail(kDeviceLost, "EL0004: the device is lost (heartbeat stopped)") : ACL_SUCCESS;
}

aclError aclrtMemcpy(void* dst, size_t dest_max, const void* src, size_t count, aclrtMemcpyKind kind) {
  Double& d = state();
  Lock lock(d.mutex);
  d.log("aclrtMemcpy");
  if (aclError e = d.need_device("aclrtMemcpy")) return e;
  if (count > dest_max) return d.fail(kInvalidParam, "aclrtMemcpy: count exceeds destMax");
  const bool dst_device = kind == ACL_MEMCPY_HOST_TO_DEVICE || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
  const bool src_device = kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
  if ((dst_device && !is_device_memory(d, dst, count)) || (src_device && !is_device_memory(d, src, count)))
    return d.fail(kInvalidParam, "aclrtMemcpy: a device pointer outside device memory");
  std::memcpy(dst, src, count);
  return ACL_SUCCESS;
}

aclError aclrtCreateEvent(aclrtEvent* event) {
  Double& d = state();
  Lock lock(d.mutex);
  d.log("aclrtCreateEvent");
  if (aclError e = d.need_device("aclrtCreateEvent")) return e;
  *event = new char;
  d.event_time_us[*event] = 0;
  return ACL_SUCCESS;
}

aclError aclrtDestroyEvent(aclrtEvent event) {
  Double& d = state();
  Lock lock(d.mutex);
  d.log("aclrtDestroyEvent");
  if (!d.event_time_us.erase(event)) return d.fail(kInvalidParam, "aclrtDestroyEvent: not an event");
  delete static_cast<char*>(event);
  return ACL_SUCCESS;
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
  Double& d = state();
  Lock lock(d.mutex);
  d.log("aclrtRecordEvent");
  if (aclError e = d.need_device("aclrtRecordEvent")) return e;
  if (!d.event_time_us.count(event) || !d.stream_clock_us.count(stream))
    return d.fail(kInvalidParam, "aclrtRecordEvent: not an event or not a stream");
  d.event_time_us[event] = d.stream_clock_us[stream];
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeEvent(aclrtEvent event) {
  Double& d = state();
  Lock lock(d.mutex);
  d.log("aclrtSynchronizeEvent");
  if (aclError e = d.need_device("aclrtSynchronizeEvent")) return e;
  if (!d.event_time_us.count(event)) return d.fail(kInvalidParam, "aclrtSynchronizeEvent: not an event");
  for (const auto& [stream, why] : d.stream_failure) return d.fail(kAiCoreException, why);
  return ACL_SUCCESS;
}

aclError aclrtEventElapsedTime(float* ms, aclrtEvent start, aclrtEvent end) {
  Double& d = state();
  Lock lock(d.mutex);
  d.log("aclrtEventElapsedTime");
  if (aclError e = d.need_device("aclrtEventElapsedTime")) return e;
  if (!d.event_time_us.count(start) || !d.event_time_us.count(end))
    return d.fail(kInvalidParam, "aclrtEventElapsedTime: not an event");
  *ms = static_cast<float>((d.event_time_us[end] - d.event_time_us[start]) / 1000.0);
  return ACL_SUCCESS;
}

aclTensorDesc* aclCreateTensorDesc(aclDataType type, int n, const int64_t* dims, aclFormat format) {
  Double& d = state();
  Lock lock(d.mutex);
  d.log("aclCreateTensorDesc");
  ++d.tensor_descs;
  return new aclTensorDesc{type, std::vector<int64_t>(dims, dims + n), format, ACL_FORMAT_UNDEFINED, {}};
}

void aclDestroyTensorDesc(const aclTensorDesc* desc) {
  Double& d = state();
  Lock lock(d.mutex);
  d.log("aclDestroyTensorDesc");
  if (!desc) return;
  --d.tensor_descs;
  delete desc;
}

aclError aclSetTensorStorageFormat(aclTensorDesc* desc, aclFormat format) {
  Double& d = state();
  Lock lock(d.mutex);
  d.log("aclSetTensorStorageFormat");
  if (!aoe::ascend::storage_format(format)) return d.fail(kInvalidParam, "aclSetTensorStorageFormat: unknown format");
  desc->storage_format = format;
  return ACL_SUCCESS;
}

aclError aclSetTensorStorageShape(aclTensorDesc* desc, int n, const int64_t* dims) {
  Double& d = state();
  Lock lock(d.mutex);
  d.log("aclSetTensorStorageShape");
  desc->storage_dims.assign(dims, dims + n);
  const auto f = stored_format(*desc);
  if (desc->storage_dims != aoe::ascend::storage_shape(f, desc->dims))
    return d.fail(kInvalidParam, std::string("aclSetTensorStorageShape: not the ") + aoe::ascend::format_name(f) +
                                     " shape of the desc's dims");
  return ACL_SUCCESS;
}

aclDataBuffer* aclCreateDataBuffer(void* data, size_t size) {
  Double& d = state();
  Lock lock(d.mutex);
  d.log("aclCreateDataBuffer");
  ++d.data_buffers;
  return new aclDataBuffer{data, size};
}

aclError aclDestroyDataBuffer(const aclDataBuffer* buffer) {
  Double& d = state();
  Lock lock(d.mutex);
  d.log("aclDestroyDataBuffer");
  if (!buffer) return d.fail(kInvalidParam, "aclDestroyDataBuffer: null");
  --d.data_buffers;
  delete buffer;
  return ACL_SUCCESS;
}

aclopAttr* aclopCreateAttr() {
  Double& d = state();
  Lock lock(d.mutex);
  d.log("aclopCreateAttr");
  ++d.attrs;
  return new aclopAttr;
}

void aclopDestroyAttr(const aclopAttr* attr) {
  Double& d = state();
  Lock lock(d.mutex);
  d.log("aclopDestroyAttr");
  if (!attr) return;
  --d.attrs;
  delete attr;
}

aclError aclopSetAttrBool(aclopAttr* attr, const char* name, uint8_t value) {
  attr->ints[name] = value;
  return ACL_SUCCESS;
}

aclError aclopSetAttrInt(aclopAttr* attr, const char* name, int64_t value) {
  attr->ints[name] = value;
  return ACL_SUCCESS;
}

aclError aclopSetAttrString(aclopAttr* attr, const char* name, const char* value) {
  attr->texts[name] = value;
  return ACL_SUCCESS;
}

aclError aclopSetAttrListInt(aclopAttr* attr, const char* name, int n, const int64_t* values) {
  attr->lists[name].assign(values, values + n);
  return ACL_SUCCESS;
}

aclError aclSetCompileopt(aclCompileOpt opt, const char* value) {
  Double& d = state();
  Lock lock(d.mutex);
  const std::string v = value ? value : "";
  d.log("aclSetCompileopt " + std::to_string(static_cast<int>(opt)) + " " + v);
  if (opt == ACL_OP_SELECT_IMPL_MODE) {
    if (v != "high_performance" && v != "high_precision")
      return d.fail(kInvalidParam, "aclSetCompileopt: ACL_OP_SELECT_IMPL_MODE takes high_performance or high_precision");
    d.impl_mode = v;
  }
  return ACL_SUCCESS;
}

aclError aclopCompile(const char* op_type, int n, const aclTensorDesc* const in[], int, const aclTensorDesc* const[],
                      const aclopAttr*, aclopEngineType, aclopCompileType, const char*) {
  Double& d = state();
  Lock lock(d.mutex);
  d.log(std::string("aclopCompile ") + (op_type ? op_type : ""));
  if (!d.initialised) return d.fail(kUninitialised, "aclopCompile before aclInit");
  return compile(d, op_type, n, in);
}

aclError aclopCompileAndExecute(const char* op_type, int n, const aclTensorDesc* const in_descs[],
                                const aclDataBuffer* const in[], int n_out, const aclTensorDesc* const out_descs[],
                                aclDataBuffer* const out[], const aclopAttr* attr, aclopEngineType, aclopCompileType,
                                const char*, aclrtStream stream) {
  Double& d = state();
  Lock lock(d.mutex);
  const std::string op = op_type ? op_type : "";
  d.log("aclopCompileAndExecute " + op);
  if (aclError e = d.need_device("aclopCompileAndExecute")) return e;
  if (!d.stream_clock_us.count(stream)) return d.fail(kInvalidParam, "aclopCompileAndExecute: not a stream");
  if (n_out != 1) return d.fail(kInvalidParam, "aclopCompileAndExecute: the double's ops have one output");
  if (aclError e = compile(d, op_type, n, in_descs)) return e;
  if (d.vanish_after >= 0 && d.executions >= d.vanish_after) {
    d.lost = true;
    return d.fail(kDeviceLost, "EL0004: the device is lost (heartbeat stopped)");
  }
  ++d.executions;
  for (int i = 0; i < n; ++i)
    if (!in[i] || !is_device_memory(d, in[i]->data, in[i]->size))
      return d.fail(kInvalidParam, "aclopCompileAndExecute: input " + std::to_string(i) + " is not in device memory");
  if (!out[0] || !is_device_memory(d, out[0]->data, out[0]->size))
    return d.fail(kInvalidParam, "aclopCompileAndExecute: the output is not in device memory");
  // A fault in the kernel shows when the stream is synchronised, as the runtime reports it.
  if (fault_for(d, "run", op, n, in_descs)) {
    d.stream_failure[stream] = "EZ9999: AI Core exception running " + op + " (injected run fault)";
    return ACL_SUCCESS;
  }
  try {
    if (const std::string why = execute(d, op, n, in_descs, in, *out_descs[0], *out[0], attr); !why.empty())
      return d.fail(kInvalidParam, "aclopCompileAndExecute " + op + ": " + why);
  } catch (const std::exception& e) {
    return d.fail(kCompileFailed, "aclopCompileAndExecute " + op + ": " + e.what());
  }
  d.stream_clock_us[stream] += cost_us(d, op, n, in_descs, *out_descs[0]);
  return ACL_SUCCESS;
}

}  // extern "C"
