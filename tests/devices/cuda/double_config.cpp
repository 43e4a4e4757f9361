#include "double_config.h"

#include <unistd.h>

#include <cstdlib>
#include <sstream>

namespace aoe::cuda_double {

std::string env(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

uint64_t fnv1a(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::vector<Fault> parse_faults(const std::string& spec) {
  std::vector<Fault> faults;
  std::stringstream rules(spec);
  for (std::string rule; std::getline(rules, rule, ';');) {
    if (rule.empty()) continue;
    Fault f;
    f.text = rule;
    const auto at = rule.find('@');
    f.kind = rule.substr(0, at);
    if (at != std::string::npos) {
      std::stringstream pairs(rule.substr(at + 1));
      for (std::string pair; std::getline(pairs, pair, ',');) {
        const auto eq = pair.find('=');
        if (eq != std::string::npos) f.when[pair.substr(0, eq)] = pair.substr(eq + 1);
      }
    }
    faults.push_back(std::move(f));
  }
  return faults;
}

const Fault* fault_for(const std::vector<Fault>& faults, const std::string& kind, const Defines& defines) {
  for (const auto& f : faults) {
    if (f.kind != kind) continue;
    bool match = true;
    for (const auto& [name, value] : f.when) {
      const auto it = defines.find(name);
      match = match && it != defines.end() && it->second == value;
    }
    if (match) return &f;
  }
  return nullptr;
}

[[noreturn]] void hang_forever() {
  for (;;) pause();
}

}  // namespace aoe::cuda_double
