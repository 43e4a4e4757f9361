#include "op_util.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "aoe/sdk/error.h"
#include "aoe/sdk/tensor_size.h"
#include "held_dtype.h"
#include "memory_fit.h"

namespace aoe::cpu {

void unsupported(const std::string& why) { throw sdk::Error(sdk::StatusCode::unsupported, why); }
void invalid(const std::string& why) { throw sdk::Error(sdk::StatusCode::invalid_argument, why); }

void require_f32(const sdk::OpTask& task, const std::vector<size_t>& any_dtype) {
  require_dtypes(task, Takes::f32, any_dtype);
}

void require_inputs(const sdk::OpTask& task, size_t at_least, size_t at_most) {
  if (task.inputs.size() < at_least || task.inputs.size() > at_most)
    invalid(task.op_type + " takes " + std::to_string(at_least) +
            (at_most > at_least ? " to " + std::to_string(at_most) : std::string()) + " inputs, got " +
            std::to_string(task.inputs.size()));
}

void require_plain(const sdk::OpTask& task, size_t at_least, size_t at_most, const std::vector<size_t>& any_dtype,
                   Takes takes) {
  if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after " + task.op_type);
  require_dtypes(task, takes, any_dtype);
  require_inputs(task, at_least, at_most);
}

void require_output_shape(const sdk::OpTask& task, const Shape& out) {
  const std::string who = task.op_type + " '" + task.name + "'";
  if (!task.outputs.empty() && task.outputs[0].fully_known()) {
    if (task.outputs[0].shape != out)
      invalid(who + ": output is " + to_string(task.outputs[0].shape) + ", its values give " + to_string(out));
    return;
  }
  if (!sdk::checked_elements(out)) invalid(who + ": its values give output " + to_string(out) + ", too large to count");
  sdk::OpTask sized = task;
  sized.outputs = {sdk::TensorDesc{.name = "", .shape = out, .dtype = sdk::DType::f32}};
  require_fits_memory(sized, physical_memory_bytes());
}

std::vector<int64_t> folded_ints(const sdk::OpTask& task, size_t input, const char* key) {
  const std::string who = task.op_type + " '" + task.name + "'";
  if (!task.attrs.is_object() || !task.attrs.contains(key))
    unsupported(who + ": the cpu device takes its " + key + " from the model's constants (attribute '" + key +
                "'), not computed as the model runs");
  auto values = ints_attr(task.attrs, key, {});
  if (input >= task.inputs.size()) invalid(who + " has no input " + std::to_string(input) + " for its " + key);
  if (static_cast<int64_t>(values.size()) != elements(task.inputs[input].shape))
    invalid(who + ": " + std::to_string(values.size()) + " values of " + key + " for an input of shape " +
            to_string(task.inputs[input].shape));
  return values;
}

std::vector<std::string> present(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const auto& n : names)
    if (!n.empty()) out.push_back(n);
  return out;
}

int64_t int_attr(const nlohmann::json& attrs, const char* key, int64_t fallback) {
  if (!attrs.is_object() || !attrs.contains(key)) return fallback;
  const auto& v = attrs.at(key);
  if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
  if (v.is_number_integer()) return v.get<int64_t>();
  invalid(std::string("attribute '") + key + "' must be an integer");
}

double float_attr(const nlohmann::json& attrs, const char* key, double fallback) {
  if (!attrs.is_object() || !attrs.contains(key)) return fallback;
  const auto& v = attrs.at(key);
  if (v.is_number()) return v.get<double>();
  invalid(std::string("attribute '") + key + "' must be a number");
}

std::vector<int64_t> ints_attr(const nlohmann::json& attrs, const char* key, std::vector<int64_t> fallback) {
  if (!attrs.is_object() || !attrs.contains(key)) return fallback;
  const auto& v = attrs.at(key);
  if (v.is_binary()) {  // a long list (ints_attribute)
    const auto& bytes = v.get_binary();
    if (bytes.size() % sizeof(int64_t)) invalid(std::string("attribute '") + key + "' holds a partial int64");
    std::vector<int64_t> out(bytes.size() / sizeof(int64_t));
    if (!out.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
    return out;
  }
  if (!v.is_array()) invalid(std::string("attribute '") + key + "' must be a list of integers");
  std::vector<int64_t> out;
  out.reserve(v.size());
  for (const auto& x : v) {
    if (!x.is_number_integer()) invalid(std::string("attribute '") + key + "' must be a list of integers");
    out.push_back(x.get<int64_t>());
  }
  return out;
}

nlohmann::json ints_attribute(const std::vector<int64_t>& values) {
  constexpr size_t kLongList = 256;
  if (values.size() < kLongList) return values;
  std::vector<uint8_t> bytes(values.size() * sizeof(int64_t));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return nlohmann::json::binary(std::move(bytes));
}

std::string string_attr(const nlohmann::json& attrs, const char* key, const std::string& fallback) {
  if (!attrs.is_object() || !attrs.contains(key)) return fallback;
  const auto& v = attrs.at(key);
  if (!v.is_string()) invalid(std::string("attribute '") + key + "' must be a string");
  return v.get<std::string>();
}

std::vector<double> floats_attr(const nlohmann::json& attrs, const char* key) {
  if (!attrs.is_object() || !attrs.contains(key)) return {};
  const auto& v = attrs.at(key);
  std::vector<double> out;
  if (v.is_array()) {
    out.reserve(v.size());
    for (const auto& x : v) {
      if (!x.is_number()) break;
      out.push_back(x.get<double>());
    }
    if (out.size() == v.size()) return out;
  }
  invalid(std::string("attribute '") + key + "' must be a list of numbers");
}

std::vector<std::string> strings_attr(const nlohmann::json& attrs, const char* key) {
  if (!attrs.is_object() || !attrs.contains(key)) return {};
  const auto& v = attrs.at(key);
  std::vector<std::string> out;
  if (v.is_array()) {
    for (const auto& x : v) {
      if (!x.is_string()) break;
      out.push_back(x.get<std::string>());
    }
    if (out.size() == v.size()) return out;
  }
  invalid(std::string("attribute '") + key + "' must be a list of strings");
}

std::vector<int> tensor_slots(const sdk::OpTask& task, const char* key, size_t count, int total) {
  const std::string who = task.op_type + " '" + task.name + "'";
  std::vector<int64_t> given = ints_attr(task.attrs, key, {});
  if (given.empty())
    for (size_t i = 0; i < count; ++i) given.push_back(static_cast<int64_t>(i));
  if (given.size() != count)
    invalid(who + ": " + key + " names " + std::to_string(given.size()) + " tensors, it has " + std::to_string(count));
  std::vector<int> map(static_cast<size_t>(total), -1);
  for (size_t i = 0; i < given.size(); ++i) {
    if (given[i] < 0 || given[i] >= total) invalid(who + ": " + key + " holds slot " + std::to_string(given[i]));
    map[static_cast<size_t>(given[i])] = static_cast<int>(i);
  }
  return map;
}

FusedOps fused_ops(const sdk::OpTask& task) {
  FusedOps f;
  size_t binary = 0;
  for (const auto& op : task.fused_ops) binary += is_binary_op(op) ? 1 : 0;
  if (binary > task.inputs.size())
    invalid(task.op_type + " fuses " + std::to_string(binary) + " binary ops but has " +
            std::to_string(task.inputs.size()) + " inputs");
  f.anchor_inputs = task.inputs.size() - binary;
  size_t next = f.anchor_inputs;
  for (size_t i = 0; i < task.fused_ops.size(); ++i) {
    const auto& op = task.fused_ops[i];
    if (!is_elementwise_op(op)) unsupported("the cpu device cannot fuse '" + op + "' after " + task.op_type);
    ChainStep step = chain_step(op, fused_attrs(task.attrs, i));
    if (is_binary(step.op)) {
      step.operand = static_cast<int>(f.inputs.size());
      f.inputs.push_back(next++);
    }
    f.steps.push_back(step);
  }
  return f;
}

int blocking_of(const sdk::TensorDesc& tensor, const HostCpu& host, const std::string& op) {
  if (tensor.format != "NCHWc") return 0;
  if (tensor.shape.size() < 3)
    invalid(op + " tensor '" + tensor.name + "' is marked NCHWc but has " + std::to_string(tensor.shape.size()) +
            " dims, not N x C x spatial");
  return isa_kernels(host.best_isa())->lanes;
}

sdk::Knob threads_knob(const HostCpu& host) {
  return sdk::Knob::integer("threads", sdk::KnobTag::schedule, 1, std::max(1, host.threads));
}

sdk::Knob isa_knob() {
  return sdk::Knob::categorical("isa", sdk::KnobTag::impl, {isa_name(Isa::generic), isa_name(Isa::avx2), isa_name(Isa::avx512)});
}

sdk::Knob sized_knob(const std::string& name, const std::vector<int64_t>& candidates, int64_t extent) {
  sdk::Knob k{name, sdk::KnobTag::schedule, sdk::DomainKind::integer, {}, {}};
  for (int64_t v : candidates) {
    k.values.push_back(v);
    if (v >= extent) break;
  }
  return k;
}

sdk::Knob choice_knob(const std::string& name, sdk::KnobTag tag, std::vector<std::string> labels) {
  return sdk::Knob::categorical(name, tag, std::move(labels));
}

int64_t at_most(const sdk::Knob& knob, int64_t v) {
  int64_t best = knob.values.front();
  for (int64_t x : knob.values)
    if (x <= v) best = x;
  return best;
}

std::string isa_refusal(const HostCpu& host, int64_t value) {
  const Isa isa = static_cast<Isa>(value);
  if (host.runs(isa)) return {};
  return std::string("this CPU does not run ") + isa_name(isa) + " kernels";
}

std::string blocked_lanes_refusal(const HostCpu& host, int64_t value) {
  const int lanes = isa_kernels(static_cast<Isa>(value))->lanes, widest = isa_kernels(host.best_isa())->lanes;
  if (lanes == widest) return {};
  return "the blocked layout has " + std::to_string(widest) + " lanes here, as a model keeps it between kernels (isa " +
         isa_name(host.best_isa()) + ")";
}

const IsaKernels& kernels_for(int64_t isa_value) {
  const IsaKernels* k = isa_kernels(static_cast<Isa>(isa_value));
  if (!k) throw sdk::Error(sdk::StatusCode::internal, "no kernels for this ISA on this CPU");
  return *k;
}

int default_threads(const HostCpu& host, double work) {
  // ~10 us: a region costs well under a µs with the workers spinning and a
  // few µs when one must be woken (a futex round trip is ~10 µs on a VM).
  constexpr double kWorkPerThread = 10e3;
  const double wanted = std::floor(work / kWorkPerThread);
  return static_cast<int>(std::clamp(wanted, 1.0, static_cast<double>(std::max(1, host.threads))));
}

sdk::TuningSpace threads_space(const HostCpu& host, double work) {
  sdk::TuningSpace space;
  space.version = "1";
  space.knobs = {threads_knob(host)};
  space.default_config = {default_threads(host, work)};
  return space;
}

}  // namespace aoe::cpu
