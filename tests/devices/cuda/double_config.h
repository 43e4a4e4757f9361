// The test double's settings from the environment, and the fault rules of
// AOE_CUDA_DOUBLE_FAULTS (the syntax is in cuda_double.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace aoe::cuda_double {

using Defines = std::map<std::string, std::string>;  // a source's `#define NAME VALUE` lines

// The variable's value, or `fallback` when it is unset or empty.
std::string env(const char* name, const char* fallback);

// A hash of a text, the same in every process and run.
uint64_t fnv1a(const std::string& text);

struct Fault {
  std::string kind;
  Defines when;  // every pair must match
  std::string text;
};

std::vector<Fault> parse_faults(const std::string& spec);

// The first rule of `kind` whose pairs the defines all hold; nullptr when none.
const Fault* fault_for(const std::vector<Fault>& faults, const std::string& kind, const Defines& defines);

// What a hang does: never return.
[[noreturn]] void hang_forever();

}  // namespace aoe::cuda_double
