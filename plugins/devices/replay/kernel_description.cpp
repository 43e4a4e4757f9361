#include "kernel_description.h"

#include "aoe/sdk/error.h"
#include "json_file.h"

namespace aoe::replay {
namespace {

using json = nlohmann::ordered_json;

class DescriptionReader : FileReader {
 public:
  explicit DescriptionReader(const std::filesystem::path& file) : FileReader("kernel description", file) {}

  KernelDescription read(const json& doc) const {
    KernelDescription out;
    out.path = file_;
    if (!doc.is_object()) fail("is not a kernel description: its top level is not an object");
    out.benchmark_name = name_in(doc, "General", "BenchmarkName");
    out.kernel_name = name_in(doc, "KernelSpecification", "KernelName");
    const json& space = object(doc, "ConfigurationSpace");
    const json& params = space.contains("TuningParameters") ? space["TuningParameters"] : json();
    if (!params.is_array() || params.empty()) fail("has no ConfigurationSpace.TuningParameters");
    for (const auto& p : params) out.parameters.push_back(parameter(p));
    const auto names = out.names();
    const json conditions = space.value("Conditions", json::array());
    if (!conditions.is_array()) fail("has ConfigurationSpace.Conditions that are not a list");
    for (const auto& c : conditions) {
      const json& expression = c.is_object() && c.contains("Expression") ? c["Expression"] : c;
      if (!expression.is_string()) fail("has a condition that is not an expression: " + c.dump());
      out.conditions.emplace_back(expression.get<std::string>(), names, "kernel description " + file_.string());
    }
    return out;
  }

 private:
  // section.key when it is a string, else empty: those who need it check it.
  static std::string name_in(const json& doc, const char* section, const char* key) {
    if (!doc.contains(section) || !doc[section].is_object() || !doc[section].contains(key)) return {};
    const json& v = doc[section][key];
    return v.is_string() ? v.get<std::string>() : std::string();
  }

  const json& object(const json& doc, const char* name) const {
    if (!doc.contains(name) || !doc[name].is_object()) fail(std::string("has no \"") + name + "\" section");
    return doc[name];
  }

  KernelParameter parameter(const json& p) const {
    if (!p.is_object() || !p.contains("Name") || !p["Name"].is_string())
      fail("has a tuning parameter without a \"Name\": " + p.dump());
    KernelParameter out;
    out.name = p["Name"].get<std::string>();
    const json values = p.contains("Values") ? value_list(out.name, p["Values"]) : json();
    if (!values.is_array() || values.empty()) fail("gives parameter '" + out.name + "' no \"Values\"");
    for (const auto& v : values) {
      if (!v.is_primitive() || v.is_null()) fail("gives parameter '" + out.name + "' a value that is not a scalar: " + v.dump());
      out.values.emplace_back(v);
    }
    if (p.contains("Default")) out.default_value = nlohmann::json(p["Default"]);
    return out;
  }

  // T4 writes the values as a Python list in a string ("[16, 32]"); a JSON list is accepted too.
  json value_list(const std::string& name, const json& values) const {
    if (values.is_array()) return values;
    if (!values.is_string()) fail("gives parameter '" + name + "' \"Values\" that are not a list");
    std::string text = values.get<std::string>();
    for (auto& c : text)
      if (c == '\'') c = '"';
    try {
      return json::parse(text);
    } catch (const json::exception&) {
      fail("gives parameter '" + name + "' \"Values\" it cannot read as a list: " + values.get<std::string>());
    }
  }
};

}  // namespace

std::vector<std::string> KernelDescription::names() const {
  std::vector<std::string> out;
  for (const auto& p : parameters) out.push_back(p.name);
  return out;
}

KernelDescription read_kernel_description(const std::filesystem::path& file) {
  return DescriptionReader(file).read(read_json_file(file));
}

KernelDescription read_kernel_description(const nlohmann::ordered_json& doc, const std::filesystem::path& file) {
  return DescriptionReader(file).read(doc);
}

}  // namespace aoe::replay
