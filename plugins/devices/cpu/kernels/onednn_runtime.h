// oneDNN as the device runs it: one CPU engine, and every primitive made and
// run for one OpenMP thread. The device's pool runs a primitive's parts, so
// oneDNN never starts threads of its own: no hand-off between two sets of
// threads on every layer, and a process forked after a run (where GNU OpenMP
// could not start a team) runs it alike.
#pragma once

namespace aoe::cpu {

inline constexpr const char* kOneDnnLabel = "onednn";

// Whether the device was built with oneDNN (libdnnl-dev).
bool onednn_built();

}  // namespace aoe::cpu

#ifdef AOE_CPU_WITH_ONEDNN
#include <cstddef>
#include <unordered_map>

#include <oneapi/dnnl/dnnl.hpp>

namespace aoe::cpu {

const dnnl::engine& onednn_engine();
// Sets the calling thread's OpenMP threads to one: before making a primitive
// and before running one, on whichever pool thread runs it.
void onednn_one_thread();
// Runs a one-thread primitive on the calling (pool) thread and waits for it:
// its OpenMP threads set to one, `scratchpad` (made with DNNL_MEMORY_NONE,
// in `args`) pointed at the thread's own buffer of at least
// `scratchpad_bytes`. One buffer per thread, grown to the most any primitive
// asked of it: a thread runs one primitive at a time, so a model's
// primitives share it rather than each keep its own (a Winograd
// convolution's is megabytes).
void onednn_execute_here(const dnnl::primitive& primitive, dnnl::stream& stream,
                         const std::unordered_map<int, dnnl::memory>& args, dnnl::memory& scratchpad,
                         size_t scratchpad_bytes);

}  // namespace aoe::cpu
#endif
