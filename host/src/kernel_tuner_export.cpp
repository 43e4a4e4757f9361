#include "kernel_tuner_export.h"

#include <ctime>
#include <fstream>
#include <map>
#include <set>

#include "aoe/sdk/atomic_file.h"
#include "command_line.h"
#include "exit_error.h"
#include "report_data.h"

namespace aoe::host {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// Kernel Tuner's names for the ways a config fails (what the replay device reads back).
std::string failure_name(const std::string& status) {
  if (status == "invalid") return "InvalidConfig";
  if (status == "build_failed") return "CompilationFailedConfig";
  return "RuntimeFailedConfig";
}

// Kernel Tuner's cache key: the values as Python's str() writes them, joined by commas.
std::string cache_key(const ordered_json& config) {
  std::string key;
  for (const auto& [name, value] : config.items())
    key += (key.empty() ? "" : ",") + (value.is_string() ? value.get<std::string>() : value.dump());
  return key;
}

// Kernel Tuner's timestamp, str(datetime.now(timezone.utc)): "2026-11-26 07:59:05.748000+00:00".
std::string utc_timestamp(double epoch_s) {
  if (!(epoch_s >= 0 && epoch_s < 1e11)) epoch_s = 0;  // a crafted log's figure: no cast out of range
  const auto whole = static_cast<std::time_t>(epoch_s);
  std::tm utc{};
  gmtime_r(&whole, &utc);
  char text[64];
  const size_t n = std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &utc);
  std::snprintf(text + n, sizeof text - n, ".%06d+00:00", static_cast<int>((epoch_s - whole) * 1e6));
  return text;
}

ordered_json ordered(const json& j) { return ordered_json::parse(j.dump()); }

struct TaskLines {
  std::string name, signature;
  std::vector<json> lines;
};

// The log's tasks in the order first measured.
std::vector<TaskLines> read_tasks(const std::filesystem::path& log) {
  std::vector<TaskLines> tasks;
  std::ifstream in(log);
  for (std::string text; std::getline(in, text);) {
    json line;
    try {
      line = json::parse(text);
      line.at("task").get<std::string>();
    } catch (const json::exception&) {
      continue;  // a line cut short by a crash
    }
    const std::string name = line["task"];
    auto it = std::find_if(tasks.begin(), tasks.end(), [&](const TaskLines& t) { return t.name == name; });
    if (it == tasks.end()) it = tasks.insert(tasks.end(), {name, line.value("signature", ""), {}});
    it->lines.push_back(std::move(line));
  }
  return tasks;
}

std::string task_list(const std::vector<TaskLines>& tasks) {
  std::string out;
  for (size_t i = 0; i < tasks.size(); ++i)
    out += "\n  " + std::to_string(i + 1) + "  " + tasks[i].signature + "  " + tasks[i].name;
  return out;
}

const TaskLines& pick(const std::vector<TaskLines>& tasks, const std::string& wanted, const std::filesystem::path& log) {
  for (const auto& t : tasks)
    if (t.signature == wanted || t.name == wanted) return t;
  if (!wanted.empty() && wanted.size() < 10 && std::all_of(wanted.begin(), wanted.end(), ::isdigit)) {
    const size_t index = std::stoul(wanted);
    if (index >= 1 && index <= tasks.size()) return tasks[index - 1];
  }
  throw ExitError(exit_usage, "export: no task '" + wanted + "' in " + log.string() +
                                  "; give --task a signature, a name or an index of:" + task_list(tasks));
}

// The task's op type and the device, from the workspace's copy of the result file, when there is one.
std::pair<std::string, std::string> kernel_and_device(const std::filesystem::path& workspace, const TaskLines& task) {
  std::string kernel = task.name, device;
  std::ifstream in(workspace / workspace_result_name);
  const json result = json::parse(in, nullptr, false);
  if (!result.is_array()) return {kernel, device};
  for (const auto& section : result)
    for (const auto& [name, body] : section.items()) {
      if (name == "basic") device = body.value("soc_version", "");
      for (const auto& op : body.value("opat_tuned_operators", json::array()))
        if (op.value("op_name", "") == task.name) kernel = op.value("op_type", kernel);
    }
  return {kernel, device};
}

}  // namespace

ordered_json kernel_tuner_cachefile(const std::filesystem::path& workspace, const std::string& wanted) {
  const auto log = workspace / "measurements.jsonl";
  if (!std::filesystem::is_regular_file(log))
    throw ExitError(exit_usage, "export: " + log.string() + " does not exist; give a tuning run's workspace, "
                                "aoe_workspace/<model>_<timestamp>");
  gather_report_data(workspace);  // checks the workspace's files as the report does
  const auto tasks = read_tasks(log);
  if (tasks.empty()) throw ExitError(exit_usage, "export: " + log.string() + " holds no measurement");
  const TaskLines& task = pick(tasks, wanted, log);
  const auto [kernel, device] = kernel_and_device(workspace, task);

  std::vector<std::string> keys;
  for (const auto& [name, value] : task.lines.front()["config"].items()) keys.push_back(name);
  std::map<std::string, std::set<json>> values;
  ordered_json cache = ordered_json::object();
  std::map<std::string, std::vector<double>> times_ms;
  // In the order measured: the first, the default the search timed first, is the replay device's default.
  for (const auto& line : task.lines) {
    const json& config = line["config"];
    ordered_json entry = ordered_json::object();
    for (const auto& k : keys) {
      if (!config.contains(k))
        throw ExitError(exit_usage, "export: " + log.string() + ": evaluation " + line.value("evaluation", json()).dump() +
                                        " of " + task.name + " has no knob '" + k + "'; the log mixes spaces");
      entry[k] = ordered(config[k]);
      values[k].insert(config[k]);
    }
    const std::string key = cache_key(entry);
    if (line.value("status", "") == "ok") {
      auto& times = times_ms[key];
      times.push_back(line.at("time_us").get<double>() / 1000);
      double sum = 0;
      for (double t : times) sum += t;
      entry["time"] = sum / times.size();
      entry["times"] = times;
    } else if (cache.contains(key) && cache[key]["time"].is_number()) {
      continue;  // a config timed once stays timed
    } else {
      entry["time"] = failure_name(line.value("status", ""));
    }
    for (const char* cost : {"compile_time", "verification_time", "benchmark_time", "strategy_time", "framework_time"})
      entry[cost] = 0;
    entry["timestamp"] = utc_timestamp(line.value("wall_time_s", 0.0));
    cache[key] = std::move(entry);
  }
  ordered_json params = ordered_json::object();
  for (const auto& k : keys) {
    params[k] = ordered_json::array();
    for (const auto& v : values[k]) params[k].push_back(ordered(v));
  }
  return {{"version", "1.0"},
          {"device_name", device},
          {"kernel_name", kernel},
          {"problem_size", ordered_json::array()},
          {"objective", "time"},
          {"tune_params_keys", keys},
          {"tune_params", params},
          {"cache", cache}};
}

int run_export_command(const std::vector<std::string>& arguments, const Settings& settings, std::ostream& out) {
  if (arguments.size() != 2 || arguments[0] != "kernel_tuner")
    throw ExitError(exit_usage, "export takes a format and a workspace: aoe-host export kernel_tuner WORKSPACE "
                                "--task SIGNATURE|NAME|INDEX -o FILE.json");
  if (!settings.has("task")) throw ExitError(exit_usage, "export: give the task with --task SIGNATURE|NAME|INDEX");
  if (!settings.has("output")) throw ExitError(exit_usage, "export: give the cachefile to write with -o FILE.json");
  const auto cachefile = kernel_tuner_cachefile(arguments[1], settings.text("task"));
  const std::filesystem::path file = settings.text("output");
  try {
    aoe::sdk::write_atomically(file, cachefile.dump(1) + "\n");
  } catch (const std::exception& e) {
    throw ExitError(exit_usage, "export: cannot write " + file.string() + ": " + e.what());
  }
  out << "export: " << cachefile["cache"].size() << " configs of " << cachefile["kernel_name"].get<std::string>()
      << " to " << file.string() << "\n";
  return exit_ok;
}

}  // namespace aoe::host
