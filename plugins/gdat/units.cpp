#include "units.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <utility>
#include <vector>

namespace aoe::gdat {
namespace {

// Splits "25Gb/s" or "25 Gb/s" into 25 and "Gb/s".
std::pair<double, std::string> number_and_unit(const std::string& text) {
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    throw std::invalid_argument("'" + text + "' does not start with a number");
  }
  if (!std::isfinite(value) || value < 0) throw std::invalid_argument("'" + text + "' is not a number >= 0");
  std::string unit = text.substr(used);
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.front()))) unit.erase(unit.begin());
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.back()))) unit.pop_back();
  return {value, unit};
}

double lookup(const std::string& text, const std::string& unit,
              const std::vector<std::pair<const char*, double>>& units, const char* expected) {
  for (const auto& [name, scale] : units)
    if (unit == name) return scale;
  throw std::invalid_argument("unknown unit '" + unit + "' in '" + text + "': expected " + expected);
}

}  // namespace

double parse_bandwidth(const std::string& text) {
  const auto [value, unit] = number_and_unit(text);
  if (unit.empty())
    throw std::invalid_argument("'" + text + "' needs a unit, e.g. '25 Gb/s' (bits) or '12.5 GB/s' (bytes)");
  // Scales to bytes per microsecond.
  static const std::vector<std::pair<const char*, double>> units = {
      {"TB/s", 1e6},         {"GB/s", 1e3},        {"MB/s", 1.0},          {"GiB/s", 1073741824.0 / 1e6},
      {"MiB/s", 1048576.0 / 1e6}, {"Tb/s", 1e6 / 8}, {"Gb/s", 1e3 / 8},     {"Mb/s", 1.0 / 8},
      {"Tbit/s", 1e6 / 8},   {"Gbit/s", 1e3 / 8},  {"Mbit/s", 1.0 / 8},    {"Gbps", 1e3 / 8},
      {"Mbps", 1.0 / 8},     {"GBps", 1e3}};
  const double out = value * lookup(text, unit, units, "GB/s, MB/s, GiB/s, Gb/s, Gbit/s, Mb/s or TB/s");
  if (out <= 0) throw std::invalid_argument("'" + text + "' must be more than zero");
  return out;
}

double parse_duration_us(const std::string& text) {
  const auto [value, unit] = number_and_unit(text);
  static const std::vector<std::pair<const char*, double>> units = {
      {"", 1.0}, {"us", 1.0}, {"µs", 1.0}, {"ns", 1e-3}, {"ms", 1e3}, {"s", 1e6}};
  return value * lookup(text, unit, units, "ns, us, ms or s");
}

double parse_bytes(const std::string& text) {
  const auto [value, unit] = number_and_unit(text);
  static const std::vector<std::pair<const char*, double>> units = {
      {"", 1.0},     {"B", 1.0},          {"KB", 1e3},           {"MB", 1e6},          {"GB", 1e9},
      {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"kB", 1e3},          {"k", 1e3}};
  return value * lookup(text, unit, units, "B, KB, MB, GB, KiB, MiB or GiB");
}

std::string ms_text(double us) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f ms", us / 1000);
  return text;
}

std::string format_bytes(double bytes) {
  char text[48];
  if (bytes >= 1048576.0)
    std::snprintf(text, sizeof text, "%.1f MiB", bytes / 1048576.0);
  else if (bytes >= 1024.0)
    std::snprintf(text, sizeof text, "%.1f KiB", bytes / 1024.0);
  else
    std::snprintf(text, sizeof text, "%.0f B", bytes);
  return text;
}

std::string format_bandwidth(double bytes_per_us) {
  char text[48];
  std::snprintf(text, sizeof text, "%.3g GB/s", bytes_per_us / 1e3);
  return text;
}

}  // namespace aoe::gdat
