#include "double_image.h"

#include <cctype>
#include <cstring>
#include <sstream>

namespace aoe::cuda_double {
namespace {

constexpr const char* kCubinMagic = "AOE-CUDA-DOUBLE-CUBIN 1";

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  const auto e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

Defines parse_defines(const std::string& source) {
  Defines defines;
  std::stringstream lines(source);
  for (std::string line; std::getline(lines, line);) {
    std::string t = trim(line);
    if (t.empty() || t[0] != '#') continue;
    t = trim(t.substr(1));
    if (t.rfind("define", 0) != 0 || t.size() < 7 || !std::isspace(static_cast<unsigned char>(t[6]))) continue;
    t = trim(t.substr(6));
    size_t end = 0;
    while (end < t.size() && ident_char(t[end])) ++end;
    if (end == 0 || (end < t.size() && t[end] == '(')) continue;
    // The first is the config's: kernel files keep fallbacks under #ifndef.
    defines.emplace(t.substr(0, end), trim(t.substr(end)));
  }
  return defines;
}

std::vector<std::string> parse_constants(const std::string& source) {
  std::vector<std::string> names;
  const std::string keyword = "__constant__";
  for (size_t at = source.find(keyword); at != std::string::npos; at = source.find(keyword, at + 1)) {
    const size_t end = source.find_first_of("[=;", at + keyword.size());
    if (end == std::string::npos) break;
    size_t e = end;
    while (e > at && !ident_char(source[e - 1])) --e;
    size_t b = e;
    while (b > at && ident_char(source[b - 1])) --b;
    if (b < e && b >= at + keyword.size()) names.push_back(source.substr(b, e - b));
  }
  return names;
}

std::string write_image(const Image& image) {
  std::string out = std::string(kCubinMagic) + "\n";
  for (const auto& k : image.kernels) out += "kernel " + k + "\n";
  for (const auto& [n, v] : image.defines) out += "define " + n + " " + v + "\n";
  for (const auto& c : image.constants) out += "constant " + c + "\n";
  for (const auto& o : image.options) out += "option " + o + "\n";
  // Last: everything after this line is the source, newlines and all.
  return out + "source\n" + image.source;
}

bool read_image(const char* bytes, Image& image) {
  const size_t magic = std::strlen(kCubinMagic);
  if (std::strncmp(bytes, kCubinMagic, magic) != 0 || bytes[magic] != '\n') return false;
  std::stringstream lines(bytes + magic + 1);
  for (std::string line; std::getline(lines, line);) {
    if (line == "source") {
      const auto at = lines.tellg();
      image.source = at < 0 ? "" : std::string(bytes + magic + 1 + static_cast<size_t>(at));
      break;
    }
    const auto space = line.find(' ');
    const std::string kind = line.substr(0, space), rest = space == std::string::npos ? "" : line.substr(space + 1);
    if (kind == "kernel") image.kernels.push_back(rest);
    if (kind == "constant") image.constants.push_back(rest);
    if (kind == "option") image.options.push_back(rest);
    if (kind == "define") {
      const auto s = rest.find(' ');
      image.defines[rest.substr(0, s)] = s == std::string::npos ? "" : rest.substr(s + 1);
    }
  }
  return true;
}

}  // namespace aoe::cuda_double
