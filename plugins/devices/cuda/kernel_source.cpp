#include "kernel_source.h"

#include <regex>
#include <utility>

namespace aoe::cuda {
namespace {

// Python's str() of a parameter's value.
std::string python_str(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  return v.dump();
}

// NAME -> VALUE in the order a Python dict keeps them: a name set again keeps its first place.
class Defines {
 public:
  void set(const std::string& name, std::string value) {
    for (auto& [n, v] : entries_)
      if (n == name) {
        v = std::move(value);
        return;
      }
    entries_.emplace_back(name, std::move(value));
  }
  const std::vector<std::pair<std::string, std::string>>& entries() const { return entries_; }

 private:
  std::vector<std::pair<std::string, std::string>> entries_;
};

// A multi-line value stays one #define.
std::string escaped(std::string value) {
  for (size_t at = value.find('\n'); at != std::string::npos; at = value.find('\n', at + 2))
    value.replace(at, 1, "\\\n");
  return value;
}

}  // namespace

std::string t1_kernel_source(const T1Problem& problem, const std::vector<nlohmann::json>& values,
                             const LaunchGeometry& launch) {
  Defines defines;
  const char* const grid_names[3] = {"grid_size_x", "grid_size_y", "grid_size_z"};
  const char* const block_names[3] = {"block_size_x", "block_size_y", "block_size_z"};
  for (size_t d = 0; d < 3; ++d) defines.set(grid_names[d], std::to_string(launch.grid[d]));
  for (size_t d = 0; d < 3; ++d) defines.set(block_names[d], std::to_string(launch.block[d]));
  const auto& parameters = problem.parameters.parameters;
  for (size_t k = 0; k < parameters.size() && k < values.size(); ++k)
    defines.set(parameters[k].name, python_str(values[k]));
  defines.set("kernel_tuner", "1");

  std::string text = problem.kernel_text;
  std::string prefix;
  for (const auto& [name, value] : defines.entries()) {
    if (name.find("loop_unroll_factor") == std::string::npos) {
      prefix += "#define " + name + " " + escaped(value) + "\n";
    } else if (value == "0") {
      text = std::regex_replace(text, std::regex("\\n\\s*#pragma\\s+unroll\\s+" + name), "\n");
    } else {
      prefix += "constexpr int " + name + " = " + value + ";\n";
    }
  }
  text = prefix + "#line 1\n" + text;
  if (text.find("extern \"C\"") == std::string::npos) text = "extern \"C\" {\n" + text + "\n}";
  return text;
}

std::vector<std::string> t1_compile_options(const T1Problem& problem) {
  std::vector<std::string> options = problem.compiler_options;
  options.push_back("-I" + problem.kernel_file.parent_path().string());
  bool standard = false;
  for (const auto& o : options) standard = standard || o.find("-std=") != std::string::npos;
  if (!standard) options.push_back("--std=c++11");
  return options;
}

}  // namespace aoe::cuda
