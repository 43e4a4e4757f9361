#include "cpu_options.h"

#include "aoe/sdk/error.h"

namespace aoe::cpu {
namespace {

[[noreturn]] void bad(const std::string& key, const std::string& what) {
  throw sdk::Error(sdk::StatusCode::invalid_argument, "cpu option '" + key + "' must be " + what);
}

double positive(const std::string& key, const nlohmann::json& v) {
  if (!v.is_number() || v.get<double>() <= 0) bad(key, "a number > 0");
  return v.get<double>();
}

uint64_t count(const std::string& key, const nlohmann::json& v) {
  if (!v.is_number_integer() || v.get<int64_t>() < 1) bad(key, "an integer >= 1");
  return static_cast<uint64_t>(v.get<int64_t>());
}

std::string choice(const std::string& key, const nlohmann::json& v, std::initializer_list<const char*> allowed) {
  std::string list;
  for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + "\"" + a + "\"";
  if (!v.is_string()) bad(key, "one of " + list);
  const auto s = v.get<std::string>();
  for (const char* a : allowed)
    if (s == a) return s;
  bad(key, "one of " + list + ", not \"" + s + "\"");
}

const char* fault_name(Fault f) {
  switch (f) {
    case Fault::crash: return "crash";
    case Fault::abort: return "abort";
    case Fault::hang: return "hang";
    case Fault::wrong: return "wrong";
    case Fault::none: break;
  }
  return "none";
}

}  // namespace

CpuOptions CpuOptions::parse(const nlohmann::json& options) {
  CpuOptions o;
  if (!options.is_object()) throw sdk::Error(sdk::StatusCode::invalid_argument, "cpu options must be a JSON object");
  for (const auto& [key, v] : options.items()) {
    if (key == "isolation") {
      o.isolate = choice(key, v, {"process", "none"}) == "process";
    } else if (key == "timeout_s") {
      o.timeout_s = positive(key, v);
    } else if (key == "cache") {
      o.timing.cold = choice(key, v, {"warm", "cold"}) == "cold";
    } else if (key == "stable_within") {
      o.timing.stable_within = positive(key, v);
      if (o.timing.stable_within >= 1) bad(key, "a fraction in (0, 1), e.g. 0.02 for +-2%");
    } else if (key == "max_repeats") {
      o.timing.max_repeats = static_cast<uint32_t>(count(key, v));
    } else if (key == "max_seconds") {
      o.timing.max_seconds = positive(key, v);
    } else if (key == "rtol") {
      o.tolerance.rtol = positive(key, v);
    } else if (key == "atol") {
      o.tolerance.atol = positive(key, v);
    } else if (key == "seed") {
      if (!v.is_number_integer() || (v.is_number_integer() && !v.is_number_unsigned() && v.get<int64_t>() < 0))
        bad(key, "an integer >= 0");
      o.seed = v.get<uint64_t>();
    } else if (key == "threads") {
      o.threads = static_cast<int>(count(key, v));
    } else if (key == "isa") {
      const auto s = choice(key, v, {"generic", "avx2", "avx512"});
      o.isa = s == "generic" ? Isa::generic : s == "avx2" ? Isa::avx2 : Isa::avx512;
    } else if (key == "fault") {
      const auto s = choice(key, v, {"none", "crash", "abort", "hang", "wrong"});
      o.fault = s == "crash" ? Fault::crash : s == "abort" ? Fault::abort : s == "hang" ? Fault::hang
              : s == "wrong" ? Fault::wrong : Fault::none;
    } else if (key == "fault_every") {
      o.fault_every = count(key, v);
    } else {
      throw sdk::Error(sdk::StatusCode::invalid_argument,
                       "cpu has no option '" + key +
                           "' (it takes isolation, timeout_s, cache, stable_within, max_repeats, max_seconds, rtol, "
                           "atol, seed, threads, isa, fault, fault_every)");
    }
  }
  if (!o.isolate && (o.fault == Fault::crash || o.fault == Fault::abort || o.fault == Fault::hang))
    throw sdk::Error(sdk::StatusCode::invalid_argument,
                     std::string("cpu option 'fault' \"") + fault_name(o.fault) +
                         "\" needs isolation \"process\": it would take the host down");
  return o;
}

nlohmann::json CpuOptions::describe() const {
  nlohmann::json j = {{"isolation", isolate ? "process" : "none"},
                      {"timeout_s", timeout_s},
                      {"cache", timing.cold ? "cold" : "warm"},
                      {"stable_within", timing.stable_within},
                      {"max_repeats", timing.max_repeats},
                      {"max_seconds", timing.max_seconds},
                      {"rtol", tolerance.rtol},
                      {"atol", tolerance.atol},
                      {"seed", seed}};
  if (fault != Fault::none) j["fault"] = fault_name(fault), j["fault_every"] = fault_every;
  return j;
}

}  // namespace aoe::cpu
