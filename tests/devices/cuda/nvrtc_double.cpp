// The test double's NVRTC: a "compile" records the source's defines,
// __constant__ names, name expressions and options (double_image.h), sleeps
// as AOE_CUDA_DOUBLE_COMPILE_MS asks, and acts on the compile faults.
#include <chrono>
#include <cstring>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "cuda_api.h"
#include "double_config.h"
#include "double_image.h"
#include "host_kernel_registry.h"

extern "C" {
#define NVRTC_DOUBLE_DECLARE(name, ret, params) __attribute__((visibility("default"))) ret name params;
AOE_NVRTC_ENTRY_POINTS(NVRTC_DOUBLE_DECLARE)
#undef NVRTC_DOUBLE_DECLARE
}

using namespace aoe::cuda_double;

namespace {
constexpr nvrtcResult kNvrtcInvalidInput = 3, kNvrtcInvalidProgram = 4, kNvrtcNoNameAfterCompile = 8,
                      kNvrtcNoLoweredBeforeCompile = 9, kNvrtcNameNotValid = 10;
}  // namespace

struct _nvrtcProgram {
  std::string source, name, log, cubin;
  std::vector<std::string> expressions;
  bool compiled = false;
  bool cubin_available = false;
};

extern "C" {

nvrtcResult nvrtcVersion(int* major, int* minor) {
  if (!major || !minor) return kNvrtcInvalidInput;
  *major = 13;
  *minor = 0;
  return NVRTC_SUCCESS;
}

const char* nvrtcGetErrorString(nvrtcResult result) {
  static const char* const names[] = {"NVRTC_SUCCESS",
                                      "NVRTC_ERROR_OUT_OF_MEMORY",
                                      "NVRTC_ERROR_PROGRAM_CREATION_FAILURE",
                                      "NVRTC_ERROR_INVALID_INPUT",
                                      "NVRTC_ERROR_INVALID_PROGRAM",
                                      "NVRTC_ERROR_INVALID_OPTION",
                                      "NVRTC_ERROR_COMPILATION",
                                      "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE",
                                      "NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION",
                                      "NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION",
                                      "NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID",
                                      "NVRTC_ERROR_INTERNAL_ERROR"};
  return result >= 0 && result < static_cast<int>(std::size(names)) ? names[result] : "NVRTC_ERROR unknown";
}

nvrtcResult nvrtcCreateProgram(nvrtcProgram* program, const char* source, const char* name, int header_count,
                               const char* const* headers, const char* const* include_names) {
  (void)headers;
  (void)include_names;
  if (!program || !source || header_count < 0) return kNvrtcInvalidInput;
  *program = new _nvrtcProgram{source, name ? name : "default_program", "", "", {}, false, false};
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcDestroyProgram(nvrtcProgram* program) {
  if (!program || !*program) return kNvrtcInvalidProgram;
  delete *program;
  *program = nullptr;
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcAddNameExpression(nvrtcProgram program, const char* name_expression) {
  if (!program) return kNvrtcInvalidProgram;
  if (!name_expression || !*name_expression) return kNvrtcInvalidInput;
  if (program->compiled) return kNvrtcNoNameAfterCompile;
  program->expressions.emplace_back(name_expression);
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcCompileProgram(nvrtcProgram program, int option_count, const char* const* options) {
  if (!program) return kNvrtcInvalidProgram;
  if (option_count < 0 || (option_count > 0 && !options)) return kNvrtcInvalidInput;
  const Defines defines = parse_defines(program->source);
  const auto faults = parse_faults(env("AOE_CUDA_DOUBLE_FAULTS", ""));
  if (const double ms = std::atof(env("AOE_CUDA_DOUBLE_COMPILE_MS", "0").c_str()); ms > 0) {
    const double scale = 0.25 + 1.5 * static_cast<double>(fnv1a(program->source) % 1000) / 1000.0;
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms * scale));
  }
  if (fault_for(faults, "compile_crash", defines)) std::abort();
  if (fault_for(faults, "compile_hang", defines)) hang_forever();

  Image image;
  image.defines = defines;
  image.constants = parse_constants(program->source);
  image.kernels = program->expressions;
  image.source = program->source;
  bool real_architecture = true;
  for (int i = 0; i < option_count; ++i) {
    const std::string o = options[i] ? options[i] : "";
    if (o.find('\n') != std::string::npos) return NVRTC_ERROR_INVALID_OPTION;
    if (o.rfind("--gpu-architecture=compute_", 0) == 0 || o.rfind("-arch=compute_", 0) == 0)
      real_architecture = false;
    image.options.push_back(o);
  }
  program->compiled = true;
  program->log.clear();
  if (const Fault* f = fault_for(faults, "compile_error", defines)) {
    program->log = program->name + "(1): error: injected by the CUDA test double's fault rule \"" + f->text + "\"\n";
    return NVRTC_ERROR_COMPILATION;
  }
  for (const auto& e : program->expressions)
    if (!aoe::cuda_double::find_host_kernel(e))
      program->log += program->name + ": error: no host kernel is registered for \"" + e +
                      "\" in the CUDA test double (tests/devices/cuda/host_kernels_*.cpp)\n";
  if (!program->log.empty()) return NVRTC_ERROR_COMPILATION;
  program->cubin = write_image(image);
  program->cubin_available = real_architecture;
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcGetLoweredName(nvrtcProgram program, const char* name_expression, const char** lowered) {
  if (!program) return kNvrtcInvalidProgram;
  if (!program->compiled) return kNvrtcNoLoweredBeforeCompile;
  if (!name_expression || !lowered) return kNvrtcInvalidInput;
  // The lowered name is the expression itself: extern "C" names are, and
  // the double finds a template's host kernel by the name before its arguments.
  for (const auto& e : program->expressions)
    if (e == name_expression) {
      *lowered = e.c_str();
      return NVRTC_SUCCESS;
    }
  return kNvrtcNameNotValid;
}

nvrtcResult nvrtcGetProgramLogSize(nvrtcProgram program, size_t* bytes) {
  if (!program) return kNvrtcInvalidProgram;
  if (!bytes) return kNvrtcInvalidInput;
  *bytes = program->log.size() + 1;
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcGetProgramLog(nvrtcProgram program, char* log) {
  if (!program) return kNvrtcInvalidProgram;
  if (!log) return kNvrtcInvalidInput;
  std::memcpy(log, program->log.c_str(), program->log.size() + 1);
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcGetCUBINSize(nvrtcProgram program, size_t* bytes) {
  if (!program) return kNvrtcInvalidProgram;
  if (!bytes) return kNvrtcInvalidInput;
  // As NVRTC: a compile for a virtual architecture (compute_XY) has PTX only.
  if (!program->compiled || program->cubin.empty() || !program->cubin_available) return kNvrtcInvalidInput;
  *bytes = program->cubin.size() + 1;
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcGetCUBIN(nvrtcProgram program, char* cubin) {
  if (!program) return kNvrtcInvalidProgram;
  if (!cubin || !program->compiled || program->cubin.empty() || !program->cubin_available) return kNvrtcInvalidInput;
  std::memcpy(cubin, program->cubin.c_str(), program->cubin.size() + 1);
  return NVRTC_SUCCESS;
}


}  // extern "C"
