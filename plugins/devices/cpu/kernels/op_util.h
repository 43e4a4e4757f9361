// What the ops share: reading a task's attributes and fused ops, and the
// knobs every family has (threads, instruction set).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "aoe/sdk/op_task.h"
#include "aoe/sdk/tuning_space.h"
#include "chain.h"
#include "held_dtype.h"
#include "host_cpu.h"
#include "shape.h"

namespace aoe::cpu {

[[noreturn]] void unsupported(const std::string& why);
[[noreturn]] void invalid(const std::string& why);

// Every tensor of the task known and fp32, but for the inputs listed in
// `any_dtype` (integer axes and the like). Throws unsupported otherwise.
void require_f32(const sdk::OpTask& task, const std::vector<size_t>& any_dtype = {});
void require_inputs(const sdk::OpTask& task, size_t at_least, size_t at_most);
// An op the device runs alone: no fused ops after it, then its dtypes
// (require_dtypes: float32 only, or `takes`; an op that moves values takes
// any the device holds) and require_inputs. Throws unsupported for a fused op.
void require_plain(const sdk::OpTask& task, size_t at_least, size_t at_most, const std::vector<size_t>& any_dtype = {},
                   Takes takes = Takes::f32);

// The tensors a node names, without the "" of omitted optional ones.
std::vector<std::string> present(const std::vector<std::string>& names);

int64_t int_attr(const nlohmann::json& attrs, const char* key, int64_t fallback);
double float_attr(const nlohmann::json& attrs, const char* key, double fallback);
std::vector<int64_t> ints_attr(const nlohmann::json& attrs, const char* key, std::vector<int64_t> fallback);
// The attribute ints_attr reads back as `values`: a list of 256 or more as
// the bytes of its int64s, as a JSON list costs 16 B and a construction per
// value each time a plan copies its node (Faster R-CNN's 1.9M indices).
nlohmann::json ints_attribute(const std::vector<int64_t>& values);
std::string string_attr(const nlohmann::json& attrs, const char* key, const std::string& fallback);
// A list attribute of numbers, or of strings; empty where the node has none.
std::vector<double> floats_attr(const nlohmann::json& attrs, const char* key);
std::vector<std::string> strings_attr(const nlohmann::json& attrs, const char* key);

// The output shape an op works out from its values (Slice's bounds, Pad's
// widths): equal to the task's where the task states it, else checked to
// fit this machine's memory before anything is sized from it.
void require_output_shape(const sdk::OpTask& task, const Shape& out);

// The values of integer or bool input `input` (indices, targets, a
// condition), which the frontend folds into attribute `key` where the model
// holds them as a constant (the device's buffers hold floats): as many as
// the input's shape says. Unsupported without the attribute.
std::vector<int64_t> folded_ints(const sdk::OpTask& task, size_t input, const char* key);

// Where each of an op's `total` ONNX slots lies among the `count` tensors
// the task lists (those present), -1 where omitted: as attribute `key`
// ("input_slots", "output_slots": the frontend's, for ops whose optional
// tensors no shape tells apart) names them, else the first `count`.
std::vector<int> tensor_slots(const sdk::OpTask& task, const char* key, size_t count, int total);

// The fused ops after the anchor: each binary one reads the next input
// after the anchor's own, and its other attributes come from fused_attrs.
struct FusedOps {
  std::vector<ChainStep> steps;     // operand = index into `inputs`
  std::vector<size_t> inputs;       // task input of each operand
  size_t anchor_inputs = 0;         // inputs the anchor itself takes
};
FusedOps fused_ops(const sdk::OpTask& task);

// Lanes of the blocked layout a tensor comes in: the widest ISA's when the
// task marks it "NCHWc" (N x C x spatial), else 0 (the model's layout).
int blocking_of(const sdk::TensorDesc& tensor, const HostCpu& host, const std::string& op);

// Knob helpers.
sdk::Knob threads_knob(const HostCpu& host);
sdk::Knob isa_knob();  // categorical over every ISA, so a config reads the same on any machine
// The candidate values below `extent`, then the first at or above it: past
// the problem's size a bigger block changes nothing.
sdk::Knob sized_knob(const std::string& name, const std::vector<int64_t>& candidates, int64_t extent);
sdk::Knob choice_knob(const std::string& name, sdk::KnobTag tag, std::vector<std::string> labels);
// The largest value of `knob` not above `v`, else its smallest.
int64_t at_most(const sdk::Knob& knob, int64_t v);
// Empty when this CPU runs the ISA of knob value `value`.
std::string isa_refusal(const HostCpu& host, int64_t value);
// Empty when a blocked config of ISA `value` keeps the lanes a model keeps
// between kernels (this CPU's widest), else why not: a narrower one would
// reorder its input and output on every run of the model, which the op
// timed alone never shows.
std::string blocked_lanes_refusal(const HostCpu& host, int64_t value);
const IsaKernels& kernels_for(int64_t isa_value);

// Threads a good library would use for `work` units of ~1 ns each:
// enough that each thread gets tens of microseconds.
int default_threads(const HostCpu& host, double work);
// The space of an op whose one knob is `threads` (the knob index 0),
// defaulting to default_threads(host, work).
sdk::TuningSpace threads_space(const HostCpu& host, double work);

}  // namespace aoe::cpu
