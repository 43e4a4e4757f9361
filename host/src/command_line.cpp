#include "command_line.h"

#include <algorithm>
#include <sstream>

#include "aoe/abi/version.h"
#include "aoe/sdk/error.h"
#include "options.h"

namespace aoe::host {

using aoe::sdk::Error;
using aoe::sdk::StatusCode;

namespace {

// A boolean option with no value after it: the next word is another option, or none.
bool is_flag(std::string key, const std::vector<std::string>& args, size_t at) {
  std::replace(key.begin(), key.end(), '-', '_');
  const OptionSpec* spec = find_option(key);
  if (!spec || spec->type != OptionType::boolean) return false;
  return at + 1 >= args.size() || args[at + 1].rfind("--", 0) == 0;
}

}  // namespace

CommandLine parse_command_line(const std::vector<std::string>& args) {
  CommandLine cl;
  cl.command = "tune";
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") return cl.command = "help", cl;
    if (arg == "--version") return cl.command = "version", cl;
    if (arg.rfind("--", 0) != 0 && arg != "-o") {
      if (i == 0 && (arg == "plugins" || arg == "tune" || arg == "bank" || arg == "run" || arg == "report" ||
                     arg == "export" || arg == "step")) {
        cl.command = arg;
        continue;
      }
      if (cl.command == "bank" || cl.command == "report" || cl.command == "export" || cl.command == "step") {
        cl.arguments.push_back(arg);
        continue;
      }
      throw Error(StatusCode::invalid_argument, "unexpected argument '" + arg + "' (see --help)");
    }
    std::string key = arg == "-o" ? "output" : arg.substr(2), value;
    const auto eq = key.find('=');
    if (eq != std::string::npos) {
      value = key.substr(eq + 1);
      key = key.substr(0, eq);
    } else if (is_flag(key, args, i)) {
      value = "True";  // a boolean option given alone, as AOE's --reload is
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      throw Error(StatusCode::invalid_argument, "option --" + key + " needs a value");
    }
    std::replace(key.begin(), key.end(), '-', '_');
    if (key == "config") {
      cl.config_file = value;
    } else if (key == "plugin_dir" && cl.options.count(key)) {
      cl.options[key] += ":" + value;  // repeatable
    } else {
      cl.options[key] = value;
    }
  }
  return cl;
}

namespace {

std::string joined(const std::vector<std::string>& values) {
  std::string out;
  for (const auto& v : values) out += (out.empty() ? "" : ", ") + v;
  return out;
}

}  // namespace

std::string help_text(const std::map<std::string, std::vector<std::string>>& loaded) {
  std::ostringstream out;
  out << "aoe-host: tunes a model's operators, subgraphs or gradient communication on a device.\n\n"
         "Usage:\n"
         "  aoe-host --plugin opat --device ascend910 --model m.onnx [options]\n"
         "  aoe-host run --device cpu --model m.onnx [--inputs x.npz|random] [--iterations N] [--threads N]\n"
         "               [--outputs out.npz] [--check] [--tune_on_miss]\n"
         "                                       run the whole model with the operator bank's configs\n"
         "  aoe-host plugins [--plugin-dir DIR]   list the plugins found and any refused\n"
         "  aoe-host bank show [DIR]              list the knowledge bank's entries (default: the configured bank)\n"
         "  aoe-host bank merge A B -o OUT        merge two banks of one soc_version; the faster config wins\n"
         "  aoe-host report WORKSPACE [-o FILE]   a run's tuning as one HTML page (default WORKSPACE/report.html)\n"
         "  aoe-host step --model M [PROFILE.csv...]  the kernels of M's training step by type, beside a profile's\n"
         "  aoe-host export kernel_tuner WORKSPACE --task SIGNATURE|NAME|INDEX -o FILE.json\n"
         "                                       a task's measurements as a Kernel Tuner cachefile\n"
         "  aoe-host --version | --help\n\n"
         "Options (command line > environment > --config YAML file > default; values that are names\n"
         "or from a fixed list are accepted in any case):\n"
         "  --config FILE                YAML file of `key: value` settings, keys as below\n";
  for (const auto& spec : option_specs()) {
    std::string flag = "--" + spec.key;
    out << "  " << flag << std::string(flag.size() < 29 ? 29 - flag.size() : 1, ' ') << spec.help;
    if (!spec.env.empty()) out << " [env " << spec.env << "]";
    if (!spec.default_value.empty()) out << " (default " << spec.default_value << ")";
    const auto names = loaded.find(spec.key);
    if (!spec.choices.empty()) out << "; one of " << joined(spec.choices);
    if (names != loaded.end()) out << "; loaded: " << joined(names->second);
    out << "\n";
  }
  out << "\nPlugins are loaded from --plugin-dir, AOE_PLUGIN_PATH, then " AOE_BIN_TO_PLUGINS " from the binary's folder.\n"
         "\nExit codes:\n"
         "  0    finished (tuned, or nothing to improve)\n"
         "  1    tuning failed\n"
         "  2    bad command line, environment or config file\n"
         "  3    a requested plugin is missing or was refused\n"
         "  4    the model cannot be read, or run: an op the device has no kernel for\n"
         "  130  interrupted (Ctrl-C / SIGTERM); the result file says `tuning incomplete`\n";
  return out.str();
}

}  // namespace aoe::host
