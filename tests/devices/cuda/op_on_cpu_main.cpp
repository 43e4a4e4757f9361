// One op kernel's generated source (op_kernel.h) run on CPU threads
// (cuda_on_cpu_prelude.h): compiled by the op kernel tests with the source
// as AOE_OP_SOURCE and its launch as GRID_X/Y/Z and BLOCK_X/Y/Z. Takes the
// files of x0..x7 ("-" for an input the kernel does not read) and of y,
// raw float32; reads y first, as a kernel may write only part of it
// (Concat's), and writes it back after the launch.
#include "cuda_on_cpu_prelude.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include AOE_OP_SOURCE

namespace {

// Exactly as many floats as the file holds, so that the address sanitizer sees a read past them.
std::vector<float> read_floats(const char* path) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<float> out(bytes.size() / sizeof(float));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(float));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 10) {
    std::fprintf(stderr, "usage: %s x0 x1 x2 x3 x4 x5 x6 x7 y (\"-\" for no input)\n", argv[0]);
    return 2;
  }
  std::vector<float> x[8];
  const float* p[8] = {};
  for (int i = 0; i < 8; ++i)
    if (std::string(argv[1 + i]) != "-") {
      x[i] = read_floats(argv[1 + i]);
      p[i] = x[i].data();
    }
  std::vector<float> y = read_floats(argv[9]);
  aoe_launch({GRID_X, GRID_Y, GRID_Z}, aoe_dim3{BLOCK_X, BLOCK_Y, BLOCK_Z}, [&] { aoe_op(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], y.data()); });
  std::ofstream(argv[9], std::ios::binary).write(reinterpret_cast<const char*>(y.data()), static_cast<std::streamsize>(y.size() * sizeof(float)));
  return 0;
}
