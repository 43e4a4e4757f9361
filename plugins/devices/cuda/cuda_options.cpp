#include "cuda_options.h"

#include "aoe/sdk/error.h"

namespace aoe::cuda {
namespace {

[[noreturn]] void bad(const std::string& key, const std::string& wants, const nlohmann::json& got) {
  throw sdk::Error(sdk::StatusCode::invalid_argument,
                   "cuda device option '" + key + "' takes " + wants + ", not " + got.dump());
}

std::string path_of(const std::string& key, const nlohmann::json& value) {
  if (!value.is_string() || value.get<std::string>().empty()) bad(key, "a path", value);
  return value.get<std::string>();
}

double positive(const std::string& key, const nlohmann::json& value) {
  if (!value.is_number() || value.get<double>() <= 0) bad(key, "a number > 0", value);
  return value.get<double>();
}

uint64_t count(const std::string& key, const nlohmann::json& value, uint64_t most) {
  if (!value.is_number_unsigned() || value.get<uint64_t>() < 1 || value.get<uint64_t>() > most)
    bad(key, "an integer from 1 to " + std::to_string(most), value);
  return value.get<uint64_t>();
}

}  // namespace

CudaOptions CudaOptions::parse(const nlohmann::json& options) {
  CudaOptions out;
  if (!options.is_object()) bad("(options)", "a JSON object", options);
  for (const auto& [key, value] : options.items()) {
    if (key == "device_id") {
      if (!value.is_number_integer() || value.get<int64_t>() < 0 || value.get<int64_t>() > 1024)
        bad(key, "a GPU number >= 0", value);
      out.device_id = value.get<int>();
    } else if (key == "cuda_library") {
      out.cuda_library = path_of(key, value);
    } else if (key == "nvrtc_library") {
      out.nvrtc_library = path_of(key, value);
    } else if (key == "worker") {
      out.worker = path_of(key, value);
    } else if (key == "problem") {
      out.problem = path_of(key, value);
    } else if (key == "cachefile") {
      out.cachefile = path_of(key, value);
    } else if (key == "kernel_cache") {
      out.kernel_cache = path_of(key, value);
    } else if (key == "compile_workers") {
      out.compile_workers = static_cast<unsigned>(count(key, value, 1024));
    } else if (key == "flush_l2") {
      if (!value.is_boolean()) bad(key, "true or false", value);
      out.flush_l2 = value.get<bool>();
    } else if (key == "allow_tf32" || key == "allow_fp16") {
      if (!value.is_boolean()) bad(key, "true or false", value);
      (key == "allow_tf32" ? out.allow_tf32 : out.allow_fp16) = value.get<bool>();
    } else if (key == "timeout_s") {
      out.timeout_s = positive(key, value);
    } else if (key == "compile_timeout_s") {
      out.compile_timeout_s = positive(key, value);
    } else if (key == "rtol" || key == "atol") {
      if (!value.is_number() || value.get<double>() < 0) bad(key, "a number >= 0", value);
      (key == "rtol" ? out.rtol : out.atol) = value.get<double>();
    } else if (key == "seed") {
      if (!value.is_number_unsigned()) bad(key, "an integer >= 0", value);
      out.seed = value.get<uint64_t>();
    } else if (key == "max_argument_mb") {
      out.max_argument_bytes = count(key, value, uint64_t{1} << 20) << 20;
    } else if (key == "max_repeats") {
      out.max_repeats = static_cast<uint32_t>(count(key, value, 100000));
    } else if (key == "stable_within") {
      out.stable_within = positive(key, value);
    } else if (key == "max_seconds") {
      out.max_seconds = positive(key, value);
    } else {
      throw sdk::Error(sdk::StatusCode::invalid_argument,
                       "unknown cuda device option '" + key +
                           "'; it takes device_id, cuda_library, nvrtc_library, worker, problem, cachefile, kernel_cache, "
                           "compile_workers, flush_l2, allow_tf32, allow_fp16, timeout_s, compile_timeout_s, rtol, atol, seed, "
                           "max_argument_mb, max_repeats, stable_within, max_seconds");
    }
  }
  return out;
}

}  // namespace aoe::cuda
