#include "options.h"

namespace aoe::host {

const std::vector<OptionSpec>& option_specs() {
  // AOE's own names where AOE has them, so existing scripts keep working.
  static const std::vector<OptionSpec> specs = {
      {"plugin", "", OptionType::text, "",
       "tuning mode: opat (operators), sgat (subgraphs), gdat (gradients); or use --job_type / AOE_MODE", {}},
      {"job_type", "AOE_MODE", OptionType::text, "", "AOE job type: 1 subgraph (sgat), 2 operator (opat), 4 gradient (gdat)",
       {"1", "2", "4"}},
      {"device", "", OptionType::text, "ascend910", "target device, as listed by `aoe-host plugins`", {}},
      {"model", "", OptionType::path, "", "the model to tune (ONNX)", {}},
      {"singleop", "", OptionType::path, "", "tune ops described in AOE single-op JSON instead of a model", {}},
      {"framework", "", OptionType::text, "5", "model framework, AOE numbering: 5 = ONNX", {"5"}},
      {"input_shape", "", OptionType::text, "", "shapes for dynamic inputs: \"x:1,3,224,224;y:1,10\"", {}},
      {"searcher", "", OptionType::text, "", "search strategy for every task (default: chosen per op)", {}},
      {"budget", "", OptionType::integer, "64", "measured evaluations per op task", {}},
      {"time_limit", "", OptionType::integer, "0", "seconds of search per op task; 0: no limit", {}},
      {"stall", "", OptionType::integer, "0", "end a task's search after this many evaluations without a new best; 0: never", {}},
      {"parallel_num", "TUNING_PARALLEL_NUM", OptionType::integer, "8", "candidates proposed, built and measured per round", {}},
      {"build_threads", "TE_PARALLEL_COMPILER", OptionType::integer, "4",
       "candidates built at once, on devices that build concurrently", {}},
      {"tune_ops_file", "", OptionType::path, "",
       "JSON file {\"tune_ops_name\": [...], \"tune_ops_type\": [...]}: tune only these ops", {}},
      {"cluster", "", OptionType::path, "", "gdat: the cluster YAML (ranks, topology, links, algorithm)", {}},
      {"gradient_profile", "", OptionType::path, "",
       "gdat: CSV of gradient tensor, bytes, ready time (else timed on --device)", {}},
      {"device_options", "", OptionType::text, "", "JSON object of device options, e.g. '{\"noise\": 0.02}'", {}},
      {"seed", "", OptionType::integer, "0", "random seed: the same seed repeats the same search", {}},
      {"plugin_dir", "AOE_PLUGIN_PATH", OptionType::path_list, "",
       "more directories to load plugins from (':'-separated in the environment)", {}},
      {"work_path", "ASCEND_WORK_PATH", OptionType::path, "", "where result files and the workspace go (default: .)", {}},
      {"bank_path", "TUNE_BANK_PATH", OptionType::path, "", "knowledge bank directory (else ASCEND_CACHE_PATH, else "
       "$HOME/Ascend/latest/data/aoe/custom/op)", {}},
      {"cache_path", "ASCEND_CACHE_PATH", OptionType::path, "", "fallback root of the knowledge bank", {}},
      {"reload", "", OptionType::boolean, "False",
       "sgat: continue the newest interrupted job of this model from its workspace, without measuring again", {}},
      {"repeat_tune", "REPEAT_TUNE", OptionType::boolean, "False", "tune again ops already in the bank; keep the faster", {}},
      {"warm_start", "", OptionType::boolean, "True",
       "opat: open each op's search with configs banked for the same op type on nearby shapes", {}},
      {"output", "", OptionType::path, "", "bank merge: the bank directory to write (-o)", {}},
      {"log_level", "AOE_LOG_LEVEL", OptionType::text, "info", "console detail", {"trace", "debug", "info", "warn", "error"}},
  };
  return specs;
}

const OptionSpec* find_option(const std::string& key) {
  for (const auto& spec : option_specs())
    if (spec.key == key) return &spec;
  return nullptr;
}

}  // namespace aoe::host
