// SPDX-License-Identifier: Apache-2.0
// A candidate's outcome in C++, and its conversion to and from the ABI struct.
#pragma once

#include <cstring>
#include <string>

#include "aoe/abi/measurement.h"

namespace aoe::sdk {

enum class ResultStatus : int {
  ok = AOE_RESULT_OK,
  invalid = AOE_RESULT_INVALID,
  build_failed = AOE_RESULT_BUILD_FAILED,
  run_failed = AOE_RESULT_RUN_FAILED,
  timeout = AOE_RESULT_TIMEOUT,
  wrong_result = AOE_RESULT_WRONG_RESULT,
};

inline const char* to_string(ResultStatus s) {
  switch (s) {
    case ResultStatus::ok: return "ok";
    case ResultStatus::invalid: return "invalid";
    case ResultStatus::build_failed: return "build_failed";
    case ResultStatus::run_failed: return "run_failed";
    case ResultStatus::timeout: return "timeout";
    case ResultStatus::wrong_result: return "wrong_result";
  }
  return "unknown";
}

struct Measurement {
  ResultStatus status = ResultStatus::ok;
  double time_us = 0;
  double noise = 0;
  uint32_t repeats = 0;
  std::string message;

  bool ok() const { return status == ResultStatus::ok; }
  static Measurement timed(double time_us, double noise = 0, uint32_t repeats = 1) {
    return {ResultStatus::ok, time_us, noise, repeats, {}};
  }
  static Measurement failed(ResultStatus status, std::string why) {
    return {status, 0, 0, 0, std::move(why)};
  }
};

inline aoe_measurement to_abi(const Measurement& m) {
  aoe_measurement out{};
  out.struct_size = sizeof(aoe_measurement);
  out.status = static_cast<int32_t>(m.status);
  out.time_us = m.time_us;
  out.noise = m.noise;
  out.repeats = m.repeats;
  std::strncpy(out.message, m.message.c_str(), sizeof(out.message) - 1);
  return out;
}

inline Measurement from_abi(const aoe_measurement& m) {
  Measurement out;
  out.status = static_cast<ResultStatus>(m.status);
  out.time_us = m.time_us;
  out.noise = m.noise;
  out.repeats = m.repeats;
  out.message.assign(m.message, strnlen(m.message, sizeof(m.message)));
  return out;
}

struct MeasureOptions {
  uint32_t warmup = 1;
  uint32_t repeats = 5;
  bool verify = false;
};

inline aoe_measure_options to_abi(const MeasureOptions& o) {
  return {sizeof(aoe_measure_options), o.warmup, o.repeats, o.verify ? 1 : 0};
}

inline MeasureOptions from_abi(const aoe_measure_options& o) {
  return {o.warmup, o.repeats, o.verify != 0};
}

}  // namespace aoe::sdk
