// A tuning problem in Kernel Tuner's T1 format (kernel_tuner/schema/T1): the
// tuning parameters and their conditions, the CUDA kernel file, how its
// launch grid follows from the problem size, and the kernel's arguments
// with the data they start from.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "expression.h"
#include "kernel_description.h"

namespace aoe::cuda {

// An argument's element type, as T1 names it.
enum class ElementType { boolean, int8, uint8, int16, uint16, int32, uint32, int64, uint64, half, float32, float64 };

// T1's name: "float", "int32", ...
const char* to_string(ElementType type);
uint64_t size_of(ElementType type);
bool is_integer(ElementType type);  // bool included

enum class FillType { constant, random };
enum class AccessType { unspecified, read_only, write_only, read_write };

struct T1Argument {
  std::string name;  // "argument <i>" when the file gives none
  ElementType type = ElementType::float32;
  bool scalar = false;           // MemoryType Scalar: passed by value; else a buffer (Vector)
  bool constant_memory = false;  // MemType Constant: also copied to the __constant__ symbol of its name
  AccessType access = AccessType::unspecified;
  FillType fill = FillType::constant;
  double fill_value = 0;
  std::optional<uint64_t> random_seed;  // RandomSeed, when the file gives one
  uint64_t elements = 1;                // the Size, evaluated; 1 for a scalar
  bool output = false;                  // Output: the result to compare

  uint64_t bytes() const { return elements * size_of(type); }
};

struct T1Problem {
  std::filesystem::path path;                 // the JSON file
  replay::KernelDescription parameters;       // ConfigurationSpace: parameters and Conditions
  std::string kernel_name;                    // KernelName
  std::filesystem::path kernel_file;          // KernelFile, resolved inside the JSON's folder
  std::string kernel_text;                    // its content
  std::vector<std::string> compiler_options;  // CompilerOptions
  std::vector<uint64_t> problem_size;         // ProblemSize: 1 to 3 entries
  // GridDivX/Y/Z: expressions over the parameters whose product divides the
  // problem size; an absent or empty list divides by block_size_x/y/z.
  std::array<std::vector<replay::Expression>, 3> grid_div;
  uint32_t shared_memory_bytes = 0;   // SharedMemory: dynamic shared memory per block
  std::vector<T1Argument> arguments;  // in the kernel's parameter order

  uint64_t argument_bytes() const;
};

// The most bytes a problem's arguments may take together, unless the caller says otherwise.
inline constexpr uint64_t kDefaultMaxArgumentBytes = uint64_t{4} << 30;

// Reads a T1 problem of the CUDA language. Every error is an
// sdk::Error(invalid_argument) naming the file and the key or argument at
// fault and saying what to do: keys the T1 schema (or Kernel Tuner's reader
// of it) does not define, missing or mistyped keys, expressions it cannot
// evaluate, a KernelFile outside the JSON's folder, and arguments whose
// sizes add up past max_argument_bytes (checked before anything is allocated).
T1Problem read_t1_problem(const std::filesystem::path& file, uint64_t max_argument_bytes = kDefaultMaxArgumentBytes);

}  // namespace aoe::cuda
