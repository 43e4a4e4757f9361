#include "gradient_profile.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "aoe/sdk/atomic_file.h"
#include "aoe/sdk/error.h"

namespace aoe::gdat {
namespace {

using aoe::sdk::Error;
using aoe::sdk::StatusCode;

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  std::string cell;
  while (std::getline(in, cell, ',')) out.push_back(trim(cell));
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

[[noreturn]] void bad(const std::string& file, size_t line, const std::string& why) {
  throw Error(StatusCode::invalid_argument,
              "gradient profile " + file + (line ? ":" + std::to_string(line) : "") + ": " + why);
}

double number(const std::string& cell, const std::string& file, size_t line, const std::string& column) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(cell, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != cell.size() || !std::isfinite(v) || v < 0)
    bad(file, line, "column '" + column + "': expected a number >= 0, got '" + cell + "'");
  return v;
}

// "# forward_us: 1234" -> the totals a profiler knows and the rows do not say.
void read_comment(const std::string& line, ProfileFile& out, const std::string& file, size_t number_line) {
  const auto colon = line.find(':');
  if (colon == std::string::npos) return;
  const std::string key = lower(trim(line.substr(1, colon - 1)));
  const std::string value = trim(line.substr(colon + 1));
  if (key == "forward_us") out.forward_us = number(value, file, number_line, key);
  if (key == "backward_us") out.backward_us = number(value, file, number_line, key);
}

int column(const std::map<std::string, int>& header, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    auto it = header.find(n);
    if (it != header.end()) return it->second;
  }
  return -1;
}

}  // namespace

uint64_t GradientProfile::total_bytes() const {
  uint64_t total = 0;
  for (const auto& g : grads) total += g.bytes;
  return total;
}

std::vector<uint64_t> GradientProfile::prefix_bytes() const {
  std::vector<uint64_t> out(grads.size() + 1, 0);
  for (size_t i = 0; i < grads.size(); ++i) out[i + 1] = out[i] + grads[i].bytes;
  return out;
}

std::string GradientProfile::canonical_text() const {
  const double resolution = std::max(1.0, backward_us * 0.005);
  std::string out = "gradients " + std::to_string(grads.size()) + "; backward " +
                    std::to_string(std::llround(backward_us / resolution)) + "; rows";
  for (const auto& g : grads)
    out += " " + std::to_string(g.bytes) + "@" + std::to_string(std::llround(g.ready_us / resolution));
  return out;
}

void check_profile(const GradientProfile& p, const std::string& origin) {
  if (p.grads.empty()) throw Error(StatusCode::invalid_argument, origin + ": no gradient to allreduce");
  for (size_t i = 0; i < p.grads.size(); ++i) {
    const auto& g = p.grads[i];
    if (g.bytes == 0) throw Error(StatusCode::invalid_argument, origin + ": gradient '" + g.name + "' has 0 bytes");
    if (!std::isfinite(g.ready_us) || g.ready_us < 0)
      throw Error(StatusCode::invalid_argument, origin + ": gradient '" + g.name + "' has no valid ready time");
    if (i > 0 && g.ready_us < p.grads[i - 1].ready_us)
      throw Error(StatusCode::invalid_argument, origin + ": gradients are not in ready order at '" + g.name + "'");
  }
}

ProfileFile read_profile_csv(const std::filesystem::path& path) {
  const std::string file = path.string();
  std::ifstream in(path);
  if (!in) bad(file, 0, "cannot be read");
  ProfileFile out;
  std::map<std::string, int> header;
  int name_col = -1, bytes_col = -1, ready_col = -1;
  double ready_scale = 1;
  size_t width = 0;
  std::string raw;
  for (size_t line = 1; std::getline(in, raw); ++line) {
    const std::string text = trim(raw);
    if (text.empty()) continue;
    if (text[0] == '#') {
      read_comment(text, out, file, line);
      continue;
    }
    const auto cells = split_csv(text);
    if (header.empty()) {
      for (size_t i = 0; i < cells.size(); ++i) header[lower(cells[i])] = static_cast<int>(i);
      width = cells.size();
      name_col = column(header, {"tensor", "name"});
      bytes_col = column(header, {"bytes", "bytes_fp32", "bytes_fp16", "bytes_bf16"});
      ready_col = column(header, {"ready_us"});
      if (ready_col < 0 && (ready_col = column(header, {"ready_ms"})) >= 0) ready_scale = 1000;
      if (name_col < 0) bad(file, line, "the header has no 'tensor' (or 'name') column");
      if (bytes_col < 0) bad(file, line, "the header has no 'bytes' (or 'bytes_fp32') column");
      out.has_ready = ready_col >= 0;
      continue;
    }
    if (cells.size() != width)
      bad(file, line, std::to_string(cells.size()) + " cells where the header has " + std::to_string(width));
    ProfileRow row;
    row.name = cells[name_col];
    if (row.name.empty()) bad(file, line, "empty tensor name");
    const double bytes = number(cells[bytes_col], file, line, "bytes");
    if (bytes < 1 || bytes != std::floor(bytes)) bad(file, line, "bytes must be a whole number > 0");
    row.bytes = static_cast<uint64_t>(bytes);
    if (ready_col >= 0) row.ready_us = number(cells[ready_col], file, line, "ready") * ready_scale;
    out.rows.push_back(std::move(row));
  }
  if (header.empty()) bad(file, 0, "empty: expected a header 'tensor,bytes,ready_us' and one row per gradient");
  if (out.rows.empty()) bad(file, 0, "no gradient rows");
  return out;
}

GradientProfile profile_from_file(const ProfileFile& file, const std::string& origin) {
  GradientProfile p;
  for (const auto& r : file.rows) p.grads.push_back({r.name, r.bytes, r.ready_us.value_or(0)});
  std::stable_sort(p.grads.begin(), p.grads.end(),
                   [](const Gradient& a, const Gradient& b) { return a.ready_us < b.ready_us; });
  p.backward_us = std::max(file.backward_us.value_or(0), p.grads.empty() ? 0 : p.grads.back().ready_us);
  p.forward_us = file.forward_us.value_or(p.backward_us / 2);
  p.source = "profile " + origin;
  return p;
}

void write_profile_csv(const std::filesystem::path& file, const GradientProfile& p) {
  std::ostringstream out;
  char line[64];
  out << "# gradients in ready order; " << p.source << "\n";
  std::snprintf(line, sizeof line, "%.3f", p.forward_us);
  out << "# forward_us: " << line << "\n";
  std::snprintf(line, sizeof line, "%.3f", p.backward_us);
  out << "# backward_us: " << line << "\n";
  out << "tensor,bytes,ready_us\n";
  for (const auto& g : p.grads) {
    std::snprintf(line, sizeof line, "%.3f", g.ready_us);
    out << g.name << "," << g.bytes << "," << line << "\n";
  }
  std::filesystem::create_directories(file.parent_path());
  aoe::sdk::write_atomically(file, out.str());
}

}  // namespace aoe::gdat
