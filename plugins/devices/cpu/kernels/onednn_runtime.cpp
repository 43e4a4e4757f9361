#include "onednn_runtime.h"

#ifdef AOE_CPU_WITH_ONEDNN
#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <new>

// GNU OpenMP's, which oneDNN runs on (declared here: not every compiler has omp.h).
extern "C" void omp_set_num_threads(int);
#endif

namespace aoe::cpu {

#ifdef AOE_CPU_WITH_ONEDNN

bool onednn_built() { return true; }

const dnnl::engine& onednn_engine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

void onednn_one_thread() { omp_set_num_threads(1); }

namespace {

void* thread_scratchpad(size_t bytes) {
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  thread_local std::unique_ptr<void, Free> buffer;
  thread_local size_t size = 0;
  if (bytes > size) {
    // Page-aligned, as oneDNN aligns its own.
    constexpr size_t kAlign = 4096;
    buffer.reset(std::aligned_alloc(kAlign, (bytes + kAlign - 1) / kAlign * kAlign));
    if (!buffer) throw std::bad_alloc();
    size = bytes;
  }
  return buffer.get();
}

}  // namespace

void onednn_execute_here(const dnnl::primitive& primitive, dnnl::stream& stream,
                         const std::unordered_map<int, dnnl::memory>& args, dnnl::memory& scratchpad,
                         size_t scratchpad_bytes) {
  onednn_one_thread();  // this thread's own OpenMP setting
  scratchpad.set_data_handle(thread_scratchpad(scratchpad_bytes));
  primitive.execute(stream, args);
  stream.wait();
}

namespace {

// oneDNN, and the OpenMP and OpenCL runtimes it loads, keep threads and
// state for the life of the process: pinned as the device loads, they stay
// when a host unloads the device (no parked thread is left in unmapped
// code, and what they allocated as they loaded stays theirs).
const bool kPinned = [] {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&dnnl_engine_create), &info) && info.dli_fname)
    return dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE) != nullptr;
  return false;
}();

}  // namespace

#else

bool onednn_built() { return false; }

#endif

}  // namespace aoe::cpu
