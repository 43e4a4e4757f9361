// aoe_op, the cuda device's op kernels, for the CUDA test double: run from
// their own source, compiled as C++ with CUDA's builtins on CPU threads
// (cuda_on_cpu_prelude.h) into a shared library once per source, so that a
// model run through the double computes what the GPU would, kernel for
// kernel. The compiler and the prelude are the ones the build found.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include "double_config.h"
#include "host_kernel.h"

namespace aoe::cuda_double {
namespace {

namespace fs = std::filesystem;

using Launcher = void (*)(unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void**);

// Every op kernel takes eight inputs and an output (op_kernel.h).
constexpr const char* kWrapper = R"(
extern "C" void aoe_double_launch(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                                  unsigned shared, void** p) {
  (void)shared;
  const auto in = [&](int i) { return *static_cast<const float* const*>(p[i]); };
  aoe_launch({gx, gy, gz}, {bx, by, bz}, [&] { aoe_op(in(0), in(1), in(2), in(3), in(4), in(5), in(6), in(7), *static_cast<float* const*>(p[8])); });
}
)";

std::string read(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The source's launcher, compiled on first use and kept for the process.
Launcher launcher_for(const std::string& source) {
  static std::mutex mutex;
  static std::map<uint64_t, Launcher> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  const uint64_t hash = fnv1a(source);
  if (auto it = loaded.find(hash); it != loaded.end()) return it->second;
  const fs::path folder = fs::path(AOE_CUDA_DOUBLE_KERNELS);
  fs::create_directories(folder);
  const std::string stem = std::to_string(hash);
  const fs::path library = folder / (stem + ".so");
  if (!fs::exists(library)) {
    const fs::path kernel = folder / (stem + ".cu.h"), wrapper = folder / (stem + ".cpp"), log = folder / (stem + ".log");
    const fs::path building = folder / (stem + ".so." + std::to_string(::getpid()));
    std::ofstream(kernel) << source;
    std::ofstream(wrapper) << "#include \"" << kernel.string() << "\"\n" << kWrapper;
    const std::string command = std::string(AOE_CUDA_DOUBLE_CXX) + " -std=c++20 -O1 -w -pthread -shared -fPIC -include " +
                                AOE_CUDA_DOUBLE_PRELUDE + " " + wrapper.string() + " -o " + building.string() + " > " +
                                log.string() + " 2>&1";
    if (std::system(command.c_str()) != 0) throw std::runtime_error("the source does not compile as C++: " + read(log));
    fs::rename(building, library);  // whole or absent, for a worker running beside this one
  }
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw std::runtime_error(std::string("cannot load the compiled kernel: ") + dlerror());
  auto launch = reinterpret_cast<Launcher>(dlsym(handle, "aoe_double_launch"));
  if (!launch) throw std::runtime_error("the compiled kernel has no aoe_double_launch");
  return loaded[hash] = launch;
}

void run(const HostLaunch& l) {
  if (!l.source || l.source->empty()) throw std::runtime_error("aoe_op launched from a module without its source");
  if (std::string(AOE_CUDA_DOUBLE_CXX).empty())
    throw std::runtime_error("no C++ compiler was found when the double was built, so it cannot run aoe_op");
  launcher_for(*l.source)(l.grid.x, l.grid.y, l.grid.z, l.block.x, l.block.y, l.block.z, l.shared_bytes, l.params);
}

const HostKernelRegistrar registrar("aoe_op", HostKernel{run, {}, 9});

}  // namespace
}  // namespace aoe::cuda_double
