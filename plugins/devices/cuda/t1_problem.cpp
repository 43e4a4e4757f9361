#include "t1_problem.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cmath>
#include <fstream>
#include <iterator>
#include <set>

#include "aoe/sdk/error.h"
#include "json_file.h"

namespace aoe::cuda {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;
using replay::Expression;
using replay::ExpressionNames;
using replay::Number;
using sdk::Error;
using sdk::StatusCode;

// A kernel source past this is not a kernel source.
constexpr uint64_t kMaxKernelFileBytes = uint64_t{16} << 20;

const std::pair<const char*, ElementType> kTypes[] = {
    {"bool", ElementType::boolean},  {"int8", ElementType::int8},     {"uint8", ElementType::uint8},
    {"int16", ElementType::int16},   {"uint16", ElementType::uint16}, {"int32", ElementType::int32},
    {"uint32", ElementType::uint32}, {"int64", ElementType::int64},   {"uint64", ElementType::uint64},
    {"half", ElementType::half},     {"float", ElementType::float32}, {"double", ElementType::float64},
};

// The keys of each object: the T1 schema's (kernel_tuner/schema/T1/1.0.0),
// the ones Kernel Tuner's tune_kernel_T1 reads beyond it (ProblemSize,
// GridDivX/Y/Z, an argument's MemType) and the ones benchmark_hub's problems
// carry (a parameter's Default, KernelSpecification.BenchmarkName, Stream,
// an argument's Output). Anything else is a typo or a feature not read here.
const std::set<std::string> kTopKeys{"General", "ConfigurationSpace", "KernelSpecification", "Search", "Budget"};
const std::set<std::string> kGeneralKeys{"FormatVersion", "LoggingLevel", "TimeUnit",
                                         "OutputFile",    "OutputFormat", "BenchmarkName"};
const std::set<std::string> kSpaceKeys{"TuningParameters", "Conditions"};
const std::set<std::string> kParameterKeys{"Name", "Type", "Values", "Default"};
const std::set<std::string> kConditionKeys{"Expression", "Parameters"};
const std::set<std::string> kKernelKeys{
    "Device",         "Language",     "CompilerOptions", "Profiling",  "KernelName",    "KernelFile",
    "GlobalSizeType", "SharedMemory", "SimulationInput", "GlobalSize", "LocalSize",     "Arguments",
    "ProblemSize",    "GridDivX",     "GridDivY",        "GridDivZ",   "BenchmarkName", "Stream"};
const std::set<std::string> kSizeKeys{"X", "Y", "Z"};
const std::set<std::string> kDeviceKeys{"PlatformId", "DeviceId", "Name"};
const std::set<std::string> kArgumentKeys{"Name",       "Type",       "Size",       "TypeSize", "FillType", "FillValue",
                                          "RandomSeed", "AccessType", "MemoryType", "MemType",  "Output"};
// Kernel Tuner's own names for the launch: a parameter may not take them.
const std::set<std::string> kForbiddenParameters{"grid_size_x", "grid_size_y", "grid_size_z", "time"};

class Reader {
 public:
  Reader(const fs::path& file, uint64_t max_argument_bytes) : file_(file), max_argument_bytes_(max_argument_bytes) {}

  T1Problem read(const json& doc) {
    T1Problem out;
    out.path = file_;
    object(doc, "the top level");
    only_keys(doc, "", kTopKeys);
    if (doc.contains("General")) only_keys(object(doc["General"], "General"), "General.", kGeneralKeys);
    space(member(doc, "", "ConfigurationSpace"));
    out.parameters = replay::read_kernel_description(doc, file_);
    for (const auto& p : out.parameters.parameters)
      if (kForbiddenParameters.count(p.name))
        fail("ConfigurationSpace.TuningParameters",
             "names a parameter '" + p.name + "', a name Kernel Tuner keeps for the launch: rename it");
    if (doc.contains("Search")) object(doc["Search"], "Search");  // the host's searcher and budget rule
    if (doc.contains("Budget") && !doc["Budget"].is_array()) fail("Budget", "is not a list");
    kernel(member(doc, "", "KernelSpecification"), out);
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& key, const std::string& why) const {
    throw Error(StatusCode::invalid_argument, "T1 problem " + file_.string() + ": " + key + " " + why);
  }

  const json& object(const json& j, const std::string& key) const {
    if (!j.is_object()) fail(key, "is not an object: give it as {...}");
    return j;
  }

  const json& member(const json& j, const std::string& prefix, const char* key) const {
    if (!j.contains(key)) fail(prefix + key, "is missing: the T1 format requires it, add it");
    return j[key];
  }

  void only_keys(const json& j, const std::string& prefix, const std::set<std::string>& keys) const {
    for (const auto& [key, value] : j.items())
      if (!keys.count(key)) fail(prefix + key, "is not a key of the T1 format: remove it, or check its spelling");
  }

  std::string text(const json& j, const std::string& prefix, const char* key) const {
    const json& v = member(j, prefix, key);
    if (!v.is_string() || v.get<std::string>().empty())
      fail(prefix + key, "is " + v.dump() + ", not a non-empty string: give it as \"...\"");
    return v.get<std::string>();
  }

  // An integer of at least `least`, given as a JSON number.
  uint64_t whole(const json& v, const std::string& key, uint64_t least) const {
    if (!v.is_number_integer() || (v.is_number_integer() && !v.is_number_unsigned() && v.get<int64_t>() < 0) ||
        v.get<uint64_t>() < least)
      fail(key, "is " + v.dump() + ", not a whole number of at least " + std::to_string(least) + ": give one");
    return v.get<uint64_t>();
  }

  void space(const json& s) const {
    only_keys(object(s, "ConfigurationSpace"), "ConfigurationSpace.", kSpaceKeys);
    const json& params = member(s, "ConfigurationSpace.", "TuningParameters");
    if (!params.is_array()) fail("ConfigurationSpace.TuningParameters", "is not a list");
    for (size_t i = 0; i < params.size(); ++i) {
      const std::string key = "ConfigurationSpace.TuningParameters[" + std::to_string(i) + "]";
      only_keys(object(params[i], key), key + ".", kParameterKeys);
      const std::string type = text(params[i], key + ".", "Type");
      if (type != "int" && type != "uint" && type != "float" && type != "bool" && type != "string")
        fail(key + ".Type", "is '" + type + "': the T1 format knows int, uint, float, bool and string");
    }
    if (!s.contains("Conditions")) return;
    if (!s["Conditions"].is_array()) fail("ConfigurationSpace.Conditions", "is not a list");
    for (size_t i = 0; i < s["Conditions"].size(); ++i) {
      const json& c = s["Conditions"][i];
      const std::string key = "ConfigurationSpace.Conditions[" + std::to_string(i) + "]";
      if (c.is_object()) only_keys(c, key + ".", kConditionKeys);
    }
  }

  void kernel(const json& k, T1Problem& out) const {
    const std::string at = "KernelSpecification.";
    only_keys(object(k, "KernelSpecification"), at, kKernelKeys);
    const std::string language = text(k, at, "Language");
    if (language != "CUDA") fail(at + "Language", "is '" + language + "': the cuda device compiles CUDA only (NVRTC)");
    out.kernel_name = text(k, at, "KernelName");
    out.kernel_file = kernel_file(text(k, at, "KernelFile"));
    out.kernel_text = read_text(out.kernel_file);
    if (k.contains("CompilerOptions")) {
      const json& options = k["CompilerOptions"];
      if (!options.is_array()) fail(at + "CompilerOptions", "is not a list of strings");
      for (const auto& o : options) {
        if (!o.is_string()) fail(at + "CompilerOptions", "holds " + o.dump() + ", not a string");
        out.compiler_options.push_back(o.get<std::string>());
      }
    }
    for (const char* key : {"GlobalSizeType"})
      if (k.contains(key)) {
        const std::string v = text(k, at, key);
        if (v != "CUDA" && v != "OpenCL" && v != "Vulkan") fail(at + key, "is '" + v + "': CUDA, OpenCL or Vulkan");
      }
    for (const char* key : {"GlobalSize", "LocalSize"}) sizes(member(k, at, key), at + key);
    if (k.contains("Device")) only_keys(object(k["Device"], at + "Device"), at + "Device.", kDeviceKeys);
    if (k.contains("Stream") && !k["Stream"].is_null())
      fail(at + "Stream", "is not null: streams are not chosen by the problem");
    if (k.contains("SharedMemory")) {
      const uint64_t bytes = whole(k["SharedMemory"], at + "SharedMemory", 0);
      if (bytes > UINT32_MAX)
        fail(at + "SharedMemory", "is " + std::to_string(bytes) + " bytes, past what a launch takes");
      out.shared_memory_bytes = static_cast<uint32_t>(bytes);
    }
    problem_size(member(k, at, "ProblemSize"), out);
    const auto names = out.parameters.names();
    const char* divs[] = {"GridDivX", "GridDivY", "GridDivZ"};
    for (size_t d = 0; d < 3; ++d) {
      if (!k.contains(divs[d])) continue;
      const json& list = k[divs[d]];
      if (!list.is_array()) fail(at + divs[d], "is not a list of expressions");
      for (const auto& e : list) {
        if (!e.is_string() && !e.is_number_integer()) fail(at + divs[d], "holds " + e.dump() + ", not an expression");
        const std::string expr = e.is_string() ? e.get<std::string>() : e.dump();
        out.grid_div[d].emplace_back(expr, ExpressionNames{names, {}, {}},
                                     "T1 problem " + file_.string() + ": " + at + divs[d]);
      }
    }
    arguments(member(k, at, "Arguments"), out);
  }

  // GlobalSize and LocalSize: Kernel Tuner's T1 reader takes the launch from
  // ProblemSize, GridDiv and the block_size parameters instead (see
  // t1_launch.h), so they are only checked to be of the schema's form.
  void sizes(const json& s, const std::string& key) const {
    only_keys(object(s, key), key + ".", kSizeKeys);
    text(s, key + ".", "X");
    for (const char* axis : {"Y", "Z"})
      if (s.contains(axis)) text(s, key + ".", axis);
  }

  void problem_size(const json& p, T1Problem& out) const {
    const std::string key = "KernelSpecification.ProblemSize";
    if (!p.is_array() || p.empty() || p.size() > 3) fail(key, "is not a list of 1 to 3 whole numbers: " + p.dump());
    for (size_t i = 0; i < p.size(); ++i)
      out.problem_size.push_back(whole(p[i], key + "[" + std::to_string(i) + "]", 1));
  }

  // Relative to the JSON's folder and inside it: a problem file names its own
  // sources, never a path elsewhere on the machine that reads it.
  fs::path kernel_file(const std::string& name) const {
    const std::string key = "KernelSpecification.KernelFile";
    const fs::path relative(name);
    if (relative.is_absolute() || relative.has_root_name())
      fail(key, "'" + name + "' is an absolute path: give it relative to the problem's folder");
    for (const auto& part : relative)
      if (part == "..")
        fail(key, "'" + name + "' leaves the problem's folder: keep the source beside the JSON or below it");
    std::error_code ec;
    const fs::path folder = fs::canonical(file_.parent_path().empty() ? fs::path(".") : file_.parent_path(), ec);
    if (ec) fail(key, "cannot be found: the problem's folder cannot be resolved (" + ec.message() + ")");
    const fs::path source = fs::canonical(folder / relative, ec);
    if (ec || !fs::is_regular_file(source))
      fail(key,
           "'" + name + "' is not a file in " + folder.string() + ": put the kernel source there or correct the name");
    const auto [end, _] = std::mismatch(folder.begin(), folder.end(), source.begin(), source.end());
    if (end != folder.end())
      fail(key, "'" + name + "' is a link that leaves the problem's folder (to " + source.string() +
                    "): copy the source into the folder instead");
    return source;
  }

  std::string read_text(const fs::path& source) const {
    std::error_code ec;
    if (fs::file_size(source, ec) > kMaxKernelFileBytes)
      fail("KernelSpecification.KernelFile",
           "'" + source.string() + "' holds more than 16 MiB: it is not a kernel source");
    std::ifstream in(source, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) fail("KernelSpecification.KernelFile", "'" + source.string() + "' cannot be read");
    return text;
  }

  void arguments(const json& list, T1Problem& out) const {
    const std::string at = "KernelSpecification.Arguments";
    if (!list.is_array()) fail(at, "is not a list of arguments");
    ExpressionNames names;
    for (uint64_t s : out.problem_size) names.sequences["ProblemSize"].push_back(Number::of(static_cast<int64_t>(s)));
    for (const auto& p : out.parameters.parameters)
      for (const auto& v : p.values)
        if (v.is_number())
          names.domains[p.name].push_back(v.is_number_integer() ? Number::of(v.get<int64_t>())
                                                                : Number::of(v.get<double>()));
    uint64_t total = 0;
    for (size_t i = 0; i < list.size(); ++i) {
      T1Argument a = argument(list[i], at + "[" + std::to_string(i) + "]", i, names);
      // Past the limit, before anything is allocated: one argument's size alone may overflow a sum.
      if (a.elements > max_argument_bytes_ / size_of(a.type) || total + a.bytes() > max_argument_bytes_)
        fail(at + "[" + std::to_string(i) + "] (" + a.name + ")",
             "takes " + std::to_string(a.elements) + " elements of " + to_string(a.type) + " (" +
                 std::to_string(a.elements) + " x " + std::to_string(size_of(a.type)) + " bytes), which with the " +
                 std::to_string(total) + " bytes before it is past the limit of " +
                 std::to_string(max_argument_bytes_) + " bytes: make its Size smaller, or raise the device's limit");
      total += a.bytes();
      out.arguments.push_back(std::move(a));
    }
  }

  T1Argument argument(const json& j, const std::string& at, size_t index, const ExpressionNames& names) const {
    object(j, at);
    T1Argument a;
    a.name = j.contains("Name") ? text(j, at + ".", "Name") : "argument " + std::to_string(index);
    const std::string key = at + " (" + a.name + ")";
    only_keys(j, key + ".", kArgumentKeys);
    a.type = element_type(text(j, key + ".", "Type"), key + ".Type");
    const std::string memory = text(j, key + ".", "MemoryType");
    if (memory != "Vector" && memory != "Scalar")
      fail(key + ".MemoryType",
           "is '" + memory + "': only Vector (a buffer) and Scalar (a value) are passed to a CUDA kernel");
    a.scalar = memory == "Scalar";
    if (j.contains("MemType")) {
      const std::string mem = text(j, key + ".", "MemType");
      if (mem != "Constant") fail(key + ".MemType", "is '" + mem + "': only Constant (a __constant__ symbol) is read");
      if (!j.contains("Name"))
        fail(key + ".Name", "is missing: a Constant argument is copied to the symbol of its name");
      a.constant_memory = true;
    }
    if (j.contains("TypeSize") && whole(j["TypeSize"], key + ".TypeSize", 1) != size_of(a.type))
      fail(key + ".TypeSize", "is " + j["TypeSize"].dump() + " but a " + to_string(a.type) + " takes " +
                                  std::to_string(size_of(a.type)) + " bytes: correct it or leave it out");
    a.access = access(j, key);
    if (j.contains("Output")) {
      const json& o = j["Output"];
      if (!o.is_boolean() && !o.is_number_integer()) fail(key + ".Output", "is not 0, 1, true or false: " + o.dump());
      a.output = o.is_boolean() ? o.get<bool>() : o.get<int64_t>() != 0;
    }
    if (j.contains("RandomSeed")) a.random_seed = whole(j["RandomSeed"], key + ".RandomSeed", 0);
    fill(j, key, a);
    a.elements = a.scalar ? 1 : size(member(j, key + ".", "Size"), key + ".Size", names);
    return a;
  }

  ElementType element_type(const std::string& name, const std::string& key) const {
    for (const auto& [n, t] : kTypes)
      if (name == n) return t;
    fail(key, "is '" + name + "', a type not read here: use bool, int8..int64, uint8..uint64, half, float or double");
  }

  AccessType access(const json& j, const std::string& key) const {
    if (!j.contains("AccessType")) return AccessType::unspecified;
    const std::string v = text(j, key + ".", "AccessType");
    if (v == "ReadOnly") return AccessType::read_only;
    if (v == "WriteOnly") return AccessType::write_only;
    if (v == "ReadWrite") return AccessType::read_write;
    fail(key + ".AccessType", "is '" + v + "': ReadOnly, WriteOnly or ReadWrite");
  }

  void fill(const json& j, const std::string& key, T1Argument& a) const {
    const std::string type = a.scalar && !j.contains("FillType") ? "Constant" : text(j, key + ".", "FillType");
    if (type == "Random") {
      if (a.scalar || is_integer(a.type))
        fail(key + ".FillType", std::string("is Random for ") + (a.scalar ? "a Scalar" : to_string(a.type)) +
                                    ": random data is drawn for float, double and half buffers only; use Constant");
      a.fill = FillType::random;
      return;
    }
    if (type != "Constant")
      fail(key + ".FillType",
           "is '" + type + "': only Constant and Random fills are read; generate the data as one of those");
    a.fill = FillType::constant;
    const json& v = member(j, key + ".", "FillValue");
    if (!v.is_number()) fail(key + ".FillValue", "is not a number: " + v.dump());
    a.fill_value = v.get<double>();
    if (!fits(a.type, a.fill_value))
      fail(key + ".FillValue",
           "is " + v.dump() + ", which a " + std::string(to_string(a.type)) + " cannot hold: give a value of its type");
  }

  static bool fits(ElementType type, double v) {
    if (!is_integer(type)) return std::isfinite(v) || type != ElementType::half;
    if (v != std::floor(v)) return false;
    const int bits = static_cast<int>(size_of(type) * 8);
    const bool is_signed = type == ElementType::int8 || type == ElementType::int16 || type == ElementType::int32 ||
                           type == ElementType::int64;
    if (type == ElementType::boolean) return v == 0 || v == 1;
    const double lo = is_signed ? -std::ldexp(1.0, bits - 1) : 0;
    const double hi = is_signed ? std::ldexp(1.0, bits - 1) : std::ldexp(1.0, bits);
    return v >= lo && v < hi;
  }

  // Kernel Tuner evaluates a Size with the parameters as their lists of values:
  // ProblemSize[i] and max(param) are the constants it can use.
  uint64_t size(const json& s, const std::string& key, const ExpressionNames& names) const {
    if (s.is_number_integer()) return whole(s, key, 1);
    if (!s.is_string()) fail(key, "is neither a whole number nor an expression: " + s.dump());
    const Expression e(s.get<std::string>(), names, "T1 problem " + file_.string() + ": " + key);
    const Number n = e.evaluate({});
    // int() of Python: toward zero.
    const double v = n.is_int ? static_cast<double>(n.i) : std::trunc(n.f);
    if (!(v >= 1))
      fail(key, "\"" + e.text() + "\" is " + (n.is_int ? std::to_string(n.i) : std::to_string(n.f)) +
                    ": a Size is at least 1 element");
    if (!n.is_int && v >= 1.8e19) fail(key, "\"" + e.text() + "\" is too large to allocate: make it smaller");
    return n.is_int ? static_cast<uint64_t>(n.i) : static_cast<uint64_t>(v);
  }

  fs::path file_;
  uint64_t max_argument_bytes_;
};

}  // namespace

const char* to_string(ElementType type) {
  for (const auto& [name, t] : kTypes)
    if (t == type) return name;
  return "float";
}

uint64_t size_of(ElementType type) {
  switch (type) {
    case ElementType::boolean:
    case ElementType::int8:
    case ElementType::uint8: return 1;
    case ElementType::int16:
    case ElementType::uint16:
    case ElementType::half: return 2;
    case ElementType::int32:
    case ElementType::uint32:
    case ElementType::float32: return 4;
    case ElementType::int64:
    case ElementType::uint64:
    case ElementType::float64: return 8;
  }
  return 4;
}

bool is_integer(ElementType type) {
  return type != ElementType::half && type != ElementType::float32 && type != ElementType::float64;
}

uint64_t T1Problem::argument_bytes() const {
  uint64_t total = 0;
  for (const auto& a : arguments) total += a.bytes();
  return total;
}

T1Problem read_t1_problem(const std::filesystem::path& file, uint64_t max_argument_bytes) {
  // A T1 file is a few kilobytes: a large one is refused before it is parsed.
  return Reader(file, max_argument_bytes).read(replay::read_json_file(file, kMaxKernelFileBytes));
}

}  // namespace aoe::cuda
