// Operator tuning of whole models under mpirun with 1 and more ranks, on the
// simulator and on the cpu device: wall time, the speed-up over one rank, and
// how many tasks each rank tuned, as rank 0's result file says.
//
// Every run goes through mpirun with --bind-to core, one rank too, so each
// rank measures on a core of its own in every row; the cpu device refuses
// ranks that share a core (more ranks than cores), as their timings would be
// each other's noise.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_args.h"
#include "host_runner.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kUsage =
    "usage: mpi_scaling_bench [--models a,b] [--devices a,b] [--ranks 1,2] [--budget N] [--searcher S] [--work DIR] [--keep]\n"
    "  --models   models of the build's models directory, without .onnx (default resnet50,bert_base)\n"
    "  --devices  device targets (default ascend910,cpu)\n"
    "  --ranks    mpirun -np of each run (default 1,2); the first is the speed-up's base\n"
    "  --budget   evaluations per op task (default 8)\n"
    "  --searcher the searcher of every run (default: the host's)\n"
    "  --work     scratch directory for the runs' banks and result files (default: a fresh one in $TMPDIR)\n"
    "  --keep     keep the scratch directory (it is kept anyway when a run fails)\n"
    "Each run starts with an empty bank and --warm_start false, so every run tunes every task.\n";

struct Options {
  std::vector<std::string> models = {"resnet50", "bert_base"};
  std::vector<std::string> devices = {"ascend910", "cpu"};
  std::vector<uint64_t> ranks = {1, 2};
  uint64_t budget = 8;
  std::string searcher;
  fs::path work;
  bool keep = false;
};

Options parse(int argc, char** argv) {
  Options o;
  for (aoe::bench::Args args(argc, argv); args.next();) {
    const std::string& arg = args.option();
    if (arg == "--models") o.models = aoe::bench::split_list(args.value());
    else if (arg == "--devices") o.devices = aoe::bench::split_list(args.value());
    else if (arg == "--ranks") o.ranks = aoe::bench::counts(args.value(), arg);
    else if (arg == "--budget") o.budget = aoe::bench::count(args.value(), arg);
    else if (arg == "--searcher") o.searcher = args.value();
    else if (arg == "--work") o.work = args.value();
    else if (arg == "--keep") o.keep = true;
    else if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else throw std::invalid_argument("unknown option '" + arg + "'");
  }
  if (o.models.empty() || o.devices.empty() || o.ranks.empty())
    throw std::invalid_argument("--models, --devices and --ranks each need at least one value");
  for (auto n : o.ranks)
    if (n == 0) throw std::invalid_argument("--ranks: a run needs at least 1 rank");
  if (o.budget == 0) throw std::invalid_argument("--budget must be at least 1");
  return o;
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::optional<json> opat_section(const fs::path& dir) {
  for (const auto& entry : fs::directory_iterator(dir)) {
    const auto name = entry.path().filename().string();
    if (name.starts_with("aoe_result_opat_") && name.ends_with(".json"))
      return aoe::test::result_sections(json::parse(read_text(entry.path()))).at("OPAT");
  }
  return std::nullopt;
}

struct Row {
  double wall_s = 0;
  size_t tasks = 0;
  std::string per_rank;
};

// One rank is a run alone (mpirun -np 1 starts no farm); its tasks are all rank 0's.
std::optional<Row> measure(const Options& o, const std::string& model, const std::string& device, uint64_t ranks,
                           const fs::path& dir) {
  std::vector<std::string> args = {AOE_BENCH_MPIEXEC, "--allow-run-as-root", "--bind-to", "core", "-np",
                                         std::to_string(ranks), AOE_BENCH_HOST, "--plugin", "opat", "--device", device,
                                         "--model", (fs::path(AOE_BENCH_MODELS_DIR) / (model + ".onnx")).string(),
                                         "--budget", std::to_string(o.budget), "--warm_start", "false"};
  if (!o.searcher.empty()) args.insert(args.end(), {"--searcher", o.searcher});
  const auto run = aoe::bench::run_host(args, dir, dir / "bank");
  const auto opat = run.exit_code == 0 ? opat_section(dir) : std::nullopt;
  if (!opat) {
    std::fprintf(stderr, "%s on %s with %llu ranks: exit %d, see %s\n%s", model.c_str(), device.c_str(),
                 static_cast<unsigned long long>(ranks), run.exit_code, dir.c_str(),
                 read_text(dir / "stderr.txt").c_str());
    return std::nullopt;
  }
  Row row{run.wall_s, (*opat)["opat_tuned_operators"].size() + (*opat)["unsupported_operators"].size(), ""};
  if (opat->contains("mpi"))
    for (const auto& n : (*opat)["mpi"]["tasks_per_rank"])
      row.per_rank += (row.per_rank.empty() ? "" : "/") + std::to_string(n.get<size_t>());
  else
    row.per_rank = std::to_string(row.tasks);
  return row;
}

int run(const Options& o) {
  const fs::path work = o.work.empty() ? fs::temp_directory_path() / "aoe_mpi_scaling_bench" : o.work;
  std::printf("OPAT under mpirun --bind-to core, budget %llu, empty bank, no warm start\n\n",
              static_cast<unsigned long long>(o.budget));
  std::printf("| model | device | ranks | tasks | wall (s) | speed-up | tasks per rank |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  bool failed = false;
  for (const auto& model : o.models)
    for (const auto& device : o.devices) {
      std::optional<double> base;
      for (auto ranks : o.ranks) {
        const auto row = measure(o, model, device, ranks, work / (model + "_" + device + "_" + std::to_string(ranks)));
        if (!row) {
          failed = true;
          continue;
        }
        if (!base) base = row->wall_s;
        std::printf("| %s | %s | %llu | %zu | %.1f | %.2fx | %s |\n", model.c_str(), device.c_str(),
                    static_cast<unsigned long long>(ranks), row->tasks, row->wall_s, *base / row->wall_s,
                    row->per_rank.c_str());
        std::fflush(stdout);
      }
    }
  if (!o.keep && !failed) fs::remove_all(work);
  return failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mpi_scaling_bench: %s\n", e.what());
    return 2;
  }
}
