#include "options.h"

namespace aoe::host {

const std::vector<OptionSpec>& option_specs() {
  // AOE's own names where AOE has them, so existing scripts keep working.
  static const std::vector<OptionSpec> specs = {
      {"plugin", "", OptionType::text, "",
       "tuning mode: opat (operators), sgat (subgraphs), gdat (gradients); or use --job_type / AOE_MODE", {}},
      {"job_type", "AOE_MODE", OptionType::text, "2",
       "AOE job type, when --plugin is not given: 1 subgraph (sgat), 2 operator (opat), 4 gradient (gdat)",
       {"1", "2", "4"}},
      {"device", "", OptionType::text, "ascend910", "target device, as listed by `aoe-host plugins`", {}},
      {"model", "", OptionType::path, "", "the model to tune (ONNX, a Caffe prototxt with --framework 0, a TensorFlow frozen graph .pb or .pbtxt with --framework 3)", {}},
      {"singleop", "", OptionType::path, "", "tune ops described in AOE single-op JSON instead of a model", {}},
      {"framework", "", OptionType::text, "5",
       "model framework, AOE numbering: 5 = ONNX, 0 = Caffe (--model prototxt, --weight caffemodel), "
       "3 = TensorFlow (--model frozen GraphDef .pb, or its text form .pbtxt); 1 MindSpore is not read yet", {"0", "3", "5"}},
      {"weight", "", OptionType::path, "",
       "Caffe (--framework 0): the trained weights (.caffemodel) of the --model prototxt; without it the "
       "weights are known by their shapes alone", {}},
      {"input_shape", "", OptionType::text, "", "shapes for dynamic inputs: \"x:1,3,224,224;y:1,10\"", {}},
      {"searcher", "", OptionType::text, "",
       "search strategy: one for every task, or per op class cube=NAME,vector=NAME, or AOE's RL,GA "
       "(GA for cube ops: Conv, MatMul, Gemm, attention, recurrent cells; RL for the rest); default: on Ascend SoCs rl for "
       "cube ops and surrogate for the rest, elsewhere surrogate",
       {}},
      {"budget", "", OptionType::integer, "64", "measured evaluations per op task", {}},
      {"time_limit", "", OptionType::integer, "0", "seconds of search per op task; 0: no limit", {}},
      {"stall", "", OptionType::integer, "0", "end a task's search after this many evaluations without a new best; 0: never", {}},
      {"rank_timeout", "", OptionType::integer, "60",
       "opat, sgat under mpirun: seconds a rank may be silent at a task before its task goes to another rank; 0: never",
       {}},
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
      {"allow_insecure_plugins", "AOE_ALLOW_INSECURE_PLUGINS", OptionType::boolean, "False",
       "load plugins from files or directories other users may write (refused by default)", {}},
      {"result_file", "", OptionType::path, "",
       "write the result file exactly here (default: aoe_result_<mode>_<timestamp>_pid<pid>.json in work_path)", {}},
      {"device_id", "ASCEND_DEVICE_ID", OptionType::integer, "0",
       "the device's number on this machine; the simulators, cpu and replay have only device 0", {}},
      {"work_path", "ASCEND_WORK_PATH", OptionType::path, "", "where result files and the workspace go (default: .)", {}},
      {"bank_path", "TUNE_BANK_PATH", OptionType::path, "", "knowledge bank root: op/, graph/ and gradient/ folders "
       "under it (else ASCEND_CACHE_PATH/aoe_data, else $HOME/Ascend/latest/data/aoe/custom)", {}},
      {"cache_path", "ASCEND_CACHE_PATH", OptionType::path, "", "fallback root of the knowledge bank", {}},
      {"reload", "", OptionType::boolean, "False",
       "sgat: continue the newest interrupted job of this model from its workspace, without measuring again", {}},
      {"repeat_tune", "REPEAT_TUNE", OptionType::boolean, "False", "tune again ops already in the bank; keep the faster", {}},
      {"warm_start", "", OptionType::boolean, "True",
       "opat: open each op's search with configs banked for the same op type on nearby shapes", {}},
      {"training", "", OptionType::boolean, "False",
       "opat: tune the kernels of a training step derived from the model (forward, loss, backward, optimizer) "
       "instead of its inference ops; sgat: tune that step's subgraphs; gdat: take the backward's times from that step's kernels; docs/training.md", {}},
      {"optimizer", "", OptionType::text, "momentum", "training: the optimizer whose update kernels the step runs",
       {"momentum", "adam", "lamb"}},
      {"training_precision", "", OptionType::text, "",
       "training: mixed (float16 activations, float32 master weights) or fp32; default mixed where the device "
       "lists float16 among its dtypes (or lists none), else fp32", {"mixed", "fp32"}},
      {"output", "", OptionType::path, "", "bank merge: the bank directory to write; report: the HTML file; export: the file (-o)", {}},
      {"task", "", OptionType::text, "", "export: the task, by signature, name or index in measurements.jsonl", {}},
      {"searcher_options", "", OptionType::text, "",
       "hyperparameters as JSON, for every searcher used ({\"population\": 32}) or by searcher name "
       "({\"ga\": {...}}); docs/searchers.md lists each searcher's", {}},
      {"json", "", OptionType::boolean, "False", "plugins, bank show: print JSON instead of a table", {}},
      {"inputs", "", OptionType::text, "random",
       "run: the model's inputs, an .npz file of float32 arrays named as the inputs, or random (drawn from --seed)", {}},
      {"iterations", "", OptionType::integer, "10", "run: timed runs of the whole model (after one untimed)", {}},
      {"threads", "", OptionType::integer, "0", "run: threads for the whole model; 0: one per physical core the process may use", {}},
      {"outputs", "", OptionType::path, "", "run: write the model's outputs to this .npz file", {}},
      {"check", "", OptionType::boolean, "False",
       "run: compare the outputs with the device's reference kernels (atol + rtol*|ref|)", {}},
      {"tune_on_miss", "", OptionType::boolean, "False",
       "run: tune the ops the operator bank misses (opat, with --budget and --searcher), bank them, then run", {}},
      {"run_report", "", OptionType::path, "", "run: write the run report here (default: aoe_run_<model>.json in work_path)", {}},
      {"log_level", "AOE_LOG_LEVEL", OptionType::text, "info", "console detail", {"trace", "debug", "info", "warn", "error"}},
  };
  return specs;
}

const std::string* aoe_option_not_supported(const std::string& key) {
  static const std::string no_om = "aoe-host writes no offline (.om) model; it tunes and fills the knowledge bank";
  static const std::map<std::string, std::string> notes = {
      {"soc_version", "the SoC comes from --device (e.g. --device ascend910b); `aoe-host plugins` lists them"},
      {"precision_mode", no_om},
      {"op_select_implmode", no_om},
      {"optypelist_for_implmode", no_om},
      {"insert_op_conf", no_om},
      {"out_nodes", no_om},
      {"input_format", "inputs are read as the model declares them"},
      {"dynamic_batch_size", "give dynamic inputs one shape with --input_shape"},
      {"dynamic_image_size", "give dynamic inputs one shape with --input_shape"},
      {"dynamic_dims", "give dynamic inputs one shape with --input_shape"},
      {"tune_optimization_level", "the search effort is set with --budget, --time_limit and --stall"},
      {"Fdeeper_opat", "the search effort is set with --budget, --time_limit and --stall"},
      {"ip", "remote tuning hosts are not supported yet"},
      {"port", "remote tuning hosts are not supported yet"},
      {"log", "use --log_level (trace, debug, info, warn, error)"},
  };
  const auto it = notes.find(key);
  return it == notes.end() ? nullptr : &it->second;
}

const OptionSpec* find_option(const std::string& key) {
  for (const auto& spec : option_specs())
    if (spec.key == key) return &spec;
  return nullptr;
}

}  // namespace aoe::host
