#include "host_cpu.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <set>
#include <string>
#include <utility>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "thread_pool.h"

namespace aoe::cpu {
namespace {

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}

// "48K", "2048K", "260M" -> bytes.
int64_t parse_size(const std::string& text) {
  if (text.empty()) return 0;
  int64_t v = 0;
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) v = v * 10 + (text[i++] - '0');
  if (i < text.size()) {
    const char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(text[i])));
    if (unit == 'K') v <<= 10;
    if (unit == 'M') v <<= 20;
    if (unit == 'G') v <<= 30;
  }
  return v;
}

// "0-3,8" -> 5
int count_cpu_list(const std::string& list) {
  int n = 0;
  size_t pos = 0;
  while (pos < list.size()) {
    size_t comma = list.find(',', pos);
    if (comma == std::string::npos) comma = list.size();
    const std::string part = list.substr(pos, comma - pos);
    const size_t dash = part.find('-');
    try {
      if (dash == std::string::npos) n += part.empty() ? 0 : 1;
      else n += std::stoi(part.substr(dash + 1)) - std::stoi(part.substr(0, dash)) + 1;
    } catch (...) {
    }
    pos = comma + 1;
  }
  return std::max(1, n);
}

std::vector<Cache> read_caches() {
  std::vector<Cache> caches;
  for (int index = 0; index < 16; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    const std::string level = read_line(dir + "level");
    if (level.empty()) break;
    Cache c;
    c.level = std::atoi(level.c_str());
    c.type = read_line(dir + "type");
    c.size_bytes = parse_size(read_line(dir + "size"));
    c.line_bytes = std::atoll(read_line(dir + "coherency_line_size").c_str());
    c.shared_by = count_cpu_list(read_line(dir + "shared_cpu_list"));
    caches.push_back(c);
  }
  return caches;
}

#if defined(__x86_64__)
// Where sysfs lists no caches (some VMs and containers hide them), CPUID's
// deterministic cache parameters: leaf 0x8000001D on AMD, leaf 4 on Intel;
// where a hypervisor hides those too, the older leaves 0x80000005 (AMD's L1)
// and 0x80000006 (L2; AMD's L3, the package's, shared by every online CPU).
std::vector<Cache> cpuid_caches(const std::string& vendor, int online_cpus) {
  std::vector<Cache> caches;
  const bool amd = vendor == "AuthenticAMD" || vendor == "HygonGenuine";
  const unsigned leaf = amd ? 0x8000001Du : 4u;
  for (unsigned sub = 0; sub < 16 && __get_cpuid_max(leaf & 0x80000000u, nullptr) >= leaf; ++sub) {
    unsigned a = 0, b = 0, c = 0, d = 0;
    __cpuid_count(leaf, sub, a, b, c, d);
    const unsigned type = a & 0x1f;  // 0: no more caches
    if (type == 0) break;
    Cache cache;
    cache.level = static_cast<int>((a >> 5) & 0x7);
    cache.type = type == 1 ? "Data" : type == 2 ? "Instruction" : "Unified";
    cache.line_bytes = (b & 0xfff) + 1;
    const int64_t ways = (b >> 22) + 1, partitions = ((b >> 12) & 0x3ff) + 1, sets = int64_t{c} + 1;
    cache.size_bytes = ways * partitions * cache.line_bytes * sets;
    cache.shared_by = static_cast<int>(((a >> 14) & 0xfff) + 1);
    caches.push_back(cache);
  }
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!caches.empty() || __get_cpuid_max(0x80000000u, nullptr) < 0x80000006u) return caches;
  __cpuid(0x80000005u, a, b, c, d);
  if (amd && (c >> 24)) caches.push_back({1, "Data", int64_t{c >> 24} << 10, c & 0xff, 1});
  if (amd && (d >> 24)) caches.push_back({1, "Instruction", int64_t{d >> 24} << 10, d & 0xff, 1});
  __cpuid(0x80000006u, a, b, c, d);
  if (c >> 16) caches.push_back({2, "Unified", int64_t{c >> 16} << 10, c & 0xff, 1});
  if (amd && (d >> 18)) caches.push_back({3, "Unified", int64_t{d >> 18} * (512 << 10), d & 0xff, online_cpus});
  return caches;
}

void read_cpuid(HostCpu& cpu) {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(0, &a, &b, &c, &d)) return;
  char vendor[13] = {};
  std::memcpy(vendor, &b, 4);
  std::memcpy(vendor + 4, &d, 4);
  std::memcpy(vendor + 8, &c, 4);
  cpu.vendor = vendor;
  if (__get_cpuid(1, &a, &b, &c, &d)) {
    const unsigned base_family = (a >> 8) & 0xf, base_model = (a >> 4) & 0xf;
    cpu.stepping = static_cast<int>(a & 0xf);
    cpu.family = static_cast<int>(base_family == 0xf ? base_family + ((a >> 20) & 0xff) : base_family);
    cpu.model = static_cast<int>(base_family == 0x6 || base_family == 0xf ? base_model + (((a >> 16) & 0xf) << 4)
                                                                        : base_model);
  }
  char brand[49] = {};
  if (__get_cpuid(0x80000000, &a, &b, &c, &d) && a >= 0x80000004) {
    for (unsigned leaf = 0; leaf < 3; ++leaf) {
      __get_cpuid(0x80000002 + leaf, &a, &b, &c, &d);
      std::memcpy(brand + leaf * 16, &a, 4);
      std::memcpy(brand + leaf * 16 + 4, &b, 4);
      std::memcpy(brand + leaf * 16 + 8, &c, 4);
      std::memcpy(brand + leaf * 16 + 12, &d, 4);
    }
  }
  std::string s = brand;
  s.erase(0, s.find_first_not_of(' '));
  s.erase(s.find_last_not_of(' ') + 1);
  cpu.brand = s;

  __builtin_cpu_init();
#define AOE_CPU_FEATURE(name) \
  if (__builtin_cpu_supports(name)) cpu.features.emplace_back(name);
  AOE_CPU_FEATURE("sse4.2")
  AOE_CPU_FEATURE("avx")
  AOE_CPU_FEATURE("avx2")
  AOE_CPU_FEATURE("fma")
  AOE_CPU_FEATURE("avx512f")
  AOE_CPU_FEATURE("avx512dq")
  AOE_CPU_FEATURE("avx512bw")
  AOE_CPU_FEATURE("avx512vl")
  AOE_CPU_FEATURE("avx512vnni")
  AOE_CPU_FEATURE("avx512bf16")
#undef AOE_CPU_FEATURE
}
#endif

// Cores, not hyperthreads, among the CPUs this process may run on: two
// threads on one core share its units, so a whole-model run uses one per core.
int count_physical_cores(int fallback) {
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return fallback;
  std::set<std::pair<std::string, std::string>> cores;  // (package, core)
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    const std::string core = read_line(dir + "core_id");
    if (core.empty()) return fallback;  // no topology in sysfs: every CPU is a core
    cores.emplace(read_line(dir + "physical_package_id"), core);
  }
  return cores.empty() ? fallback : static_cast<int>(cores.size());
}

int64_t cache_size(const std::vector<Cache>& caches, int level, int64_t fallback) {
  for (const auto& c : caches)
    if (c.level == level && c.type != "Instruction" && c.size_bytes > 0) return c.size_bytes;
  return fallback;
}

}  // namespace

int64_t HostCpu::l1d_bytes() const { return cache_size(caches, 1, 32 << 10); }
int64_t HostCpu::l2_bytes() const { return cache_size(caches, 2, 256 << 10); }
int64_t HostCpu::l3_bytes() const { return cache_size(caches, 3, l2_bytes() * threads); }

bool HostCpu::runs(Isa isa) const { return std::find(isas.begin(), isas.end(), isa) != isas.end(); }

std::string HostCpu::soc_version() const {
  std::string name = "cpu";
  std::string word;
  for (char ch : brand + " ") {
    if (std::isalnum(static_cast<unsigned char>(ch))) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    } else if (!word.empty()) {
      // "(R)" and "(TM)" marks, "CPU" and the "@ 2.30GHz" clock say nothing of the core.
      if (word != "r" && word != "tm" && word != "cpu" && word.find("ghz") == std::string::npos) name += "_" + word;
      word.clear();
    }
  }
  return name + "_" + isa_name(best_isa()) + "_" + std::to_string(threads) + "t";
}

HostCpu detect_host_cpu() {
  HostCpu cpu;
#if defined(__x86_64__)
  read_cpuid(cpu);
#endif
  if (cpu.brand.empty()) cpu.brand = "unknown";
  cpu.online_cpus = static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
  cpu.threads = available_threads();
  cpu.physical_cores = std::min(cpu.threads, count_physical_cores(cpu.threads));
  cpu.caches = read_caches();
#if defined(__x86_64__)
  if (cpu.caches.empty()) cpu.caches = cpuid_caches(cpu.vendor, cpu.online_cpus);
#endif
  for (Isa isa : {Isa::generic, Isa::avx2, Isa::avx512})
    if (isa_kernels(isa)) cpu.isas.push_back(isa);
  return cpu;
}

nlohmann::json describe(const HostCpu& cpu) {
  nlohmann::json caches = nlohmann::json::array();
  for (const auto& c : cpu.caches)
    caches.push_back({{"level", c.level}, {"type", c.type}, {"size_bytes", c.size_bytes},
                      {"line_bytes", c.line_bytes}, {"shared_by_cpus", c.shared_by}});
  nlohmann::json isas = nlohmann::json::array();
  for (Isa isa : cpu.isas) isas.push_back(isa_name(isa));
  return {{"soc_version", cpu.soc_version()},
          {"vendor", cpu.vendor},
          {"brand", cpu.brand},
          {"family", cpu.family},
          {"model", cpu.model},
          {"stepping", cpu.stepping},
          {"online_cpus", cpu.online_cpus},
          {"threads", cpu.threads},
          {"physical_cores", cpu.physical_cores},
          {"caches", caches},
          {"l1d_bytes", cpu.l1d_bytes()},
          {"l2_bytes", cpu.l2_bytes()},
          {"l3_bytes", cpu.l3_bytes()},
          {"features", cpu.features},
          {"kernel_isas", isas},
          {"best_isa", isa_name(cpu.best_isa())}};
}

}  // namespace aoe::cpu
