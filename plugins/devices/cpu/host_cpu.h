// The machine the device runs on, read from the machine itself: cpuid for
// the name and instruction sets, sysfs for caches, affinity for threads.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "isa.h"

namespace aoe::cpu {

struct Cache {
  int level = 0;
  std::string type;  // Data, Instruction, Unified
  int64_t size_bytes = 0;
  int64_t line_bytes = 0;
  int shared_by = 1;  // logical CPUs sharing it
};

struct HostCpu {
  std::string vendor, brand;
  int family = 0, model = 0, stepping = 0;
  int online_cpus = 1;  // sysconf
  int threads = 1;      // CPUs this process may run on (sched_getaffinity)
  int physical_cores = 1;  // cores among those CPUs: hyperthread siblings count once
  std::vector<Cache> caches;
  std::vector<std::string> features;  // the ISA flags cpuid reports
  std::vector<Isa> isas;              // kernel sets this build has and this CPU runs

  // Per-core data cache sizes, with fallbacks when sysfs says nothing.
  int64_t l1d_bytes() const;
  int64_t l2_bytes() const;
  int64_t l3_bytes() const;  // the whole last level, shared
  Isa best_isa() const { return isas.back(); }
  bool runs(Isa isa) const;
  // A folder-safe name for the knowledge bank: brand, widest ISA, threads.
  std::string soc_version() const;
};

HostCpu detect_host_cpu();
nlohmann::json describe(const HostCpu& cpu);

}  // namespace aoe::cpu
