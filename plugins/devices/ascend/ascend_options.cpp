#include "ascend_options.h"

#include <cstdlib>

#include "aoe/sdk/error.h"

namespace aoe::ascend {
namespace {

[[noreturn]] void bad(const std::string& key, const std::string& wants, const nlohmann::json& got) {
  throw sdk::Error(sdk::StatusCode::invalid_argument,
                   "ascend device option '" + key + "' takes " + wants + ", not " + got.dump());
}

// ASCEND_DEVICE_ID, as CANN's own tools read it; the device_id option overrides it.
int32_t device_id_from_environment() {
  const char* text = std::getenv("ASCEND_DEVICE_ID");
  if (!text || !*text) return 0;
  char* end = nullptr;
  const long id = std::strtol(text, &end, 10);
  if (*end != '\0' || id < 0 || id > INT32_MAX)
    throw sdk::Error(sdk::StatusCode::invalid_argument,
                     std::string("ASCEND_DEVICE_ID takes a device number >= 0, not '") + text + "'");
  return static_cast<int32_t>(id);
}

}  // namespace

AscendOptions AscendOptions::parse(const nlohmann::json& options) {
  AscendOptions out;
  out.device_id = device_id_from_environment();
  if (!options.is_object()) bad("(options)", "a JSON object", options);
  for (const auto& [key, value] : options.items()) {
    if (key == "acl_library") {
      if (!value.is_string() || value.get<std::string>().empty()) bad(key, "the path of libascendcl.so", value);
      out.acl_library = value.get<std::string>();
    } else if (key == "device_id") {
      if (!value.is_number_integer() || value.get<int64_t>() < 0 || value.get<int64_t>() > INT32_MAX)
        bad(key, "a device number >= 0", value);
      out.device_id = value.get<int32_t>();
    } else if (key == "seed") {
      if (!value.is_number_unsigned()) bad(key, "an integer >= 0", value);
      out.seed = value.get<uint64_t>();
    } else if (key == "rtol" || key == "atol") {
      if (!value.is_number() || value.get<double>() < 0) bad(key, "a number >= 0", value);
      (key == "rtol" ? out.tolerance.rtol : out.tolerance.atol) = value.get<double>();
    } else {
      throw sdk::Error(sdk::StatusCode::invalid_argument,
                       "unknown ascend device option '" + key + "'; it takes acl_library, device_id, seed, rtol, atol");
    }
  }
  return out;
}

}  // namespace aoe::ascend
