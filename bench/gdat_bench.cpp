// GDAT's answer against what frameworks do, under the same cost model: the
// predicted communication tail and step time of ResNet-50 and BERT-base's
// twelve encoder layers (the trainable tensors of the generated models,
// ready times from a FLOP and byte count of each node at batch 32) on fast
// and slow clusters of 8 to 64
// ranks, for every baseline, for the searcher plugins at a budget, and for
// the exact optimum by dynamic programming (within HCCL's 8 segments, which
// is GDAT's answer, and without a limit).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "aoe/abi/aoe.h"
#include "aoe/sdk/host.h"
#include "aoe/sdk/searcher_client.h"
#include "allreduce_cost.h"
#include "baselines.h"
#include "cluster.h"
#include "optimal_split.h"
#include "reference_profiles.h"
#include "searcher_plugins.h"
#include "split_search.h"
#include "timeline.h"

namespace {

namespace fs = std::filesystem;
using namespace aoe::gdat;
using aoe::bench::SearcherPlugin;

struct Settings {
  fs::path models_dir = AOE_BENCH_MODELS_DIR;
  fs::path clusters_dir = AOE_BENCH_GDAT_CLUSTERS;
  fs::path plugin_dir = AOE_BENCH_PLUGIN_DIR;
  std::vector<std::string> clusters = {"nvlink8_a100",   "ascend910_8p_hccs",  "ethernet16_25g",
                                       "ib56_16_table",  "hier64_nvlink_roce", "ascend910_64p_roce"};
  std::vector<std::string> searchers = {"ga", "rl", "random"};
  uint64_t budget = 2000;
  int batch = 32;
  int max_segments = 8;
};

// ---------------------------------------------------------------- searcher plugins

// The named searchers among the directory's plugins, in the order named.
std::vector<SearcherPlugin> load_searchers(const fs::path& dir, const std::vector<std::string>& wanted) {
  std::vector<SearcherPlugin> out;
  if (!fs::is_directory(dir)) return out;
  const auto all = aoe::bench::load_searchers(dir);
  for (const auto& name : wanted)
    for (const auto& plugin : all)
      if (plugin.name == name) out.push_back(plugin);
  return out;
}

// ---------------------------------------------------------------- figures

struct Row {
  std::string name;
  size_t segments = 0;
  double tail_us = 0, step_us = 0;
  bool fits = true;
};

std::vector<uint64_t> sizes(const GradientProfile& p) {
  std::vector<uint64_t> out;
  for (const auto& g : p.grads) out.push_back(g.bytes);
  return out;
}

Row row(const std::string& name, const GradientProfile& p, const AllreduceCost& cost, const Split& split,
        const std::vector<double>& release, int max_segments) {
  const auto t = simulate(p, cost, split, release);
  return {name, split.size(), t.tail_us(), t.step_us(), max_segments <= 0 || split.size() <= size_t(max_segments)};
}

std::vector<Row> rows_for(const GradientProfile& p, const Cluster& cluster, const Settings& s,
                          const std::vector<SearcherPlugin>& searchers) {
  const AllreduceCost cost(cluster);
  std::vector<Row> rows;
  for (const auto& b : all_baselines(p, cost)) rows.push_back(row(b.name, p, cost, b.split, b.release, s.max_segments));
  const auto prefix = p.prefix_bytes();
  const SplitSpace space(p.size(), s.max_segments, hccl_default(sizes(p)).split);
  for (const auto& plugin : searchers) {
    auto searcher = plugin.create();
    const auto r = search_split(
        *searcher, space, [&](const Split& split) -> std::optional<double> { return comm_end(p, prefix, cost, split); },
        {s.budget, 1, 8});
    rows.push_back(row(plugin.name, p, cost, r.best, {}, s.max_segments));
  }
  const auto limited = optimal_split(p, cost, s.max_segments);
  rows.push_back(row("dp", p, cost, limited.split, {}, s.max_segments));
  const auto free = optimal_split(p, cost, 0);
  rows.push_back(row("dp_any", p, cost, free.split, {}, 0));
  return rows;
}

std::string short_name(const std::string& n) {
  static const std::map<std::string, std::string> names = {
      {"no_fusion", "nofuse"},   {"single_bucket", "single"},  {"ddp_25mb", "ddp25"},
      {"horovod_64mb_5ms", "hvd64/5"}, {"horovod_128mb_1ms", "hvd128/1"}, {"hccl_default", "hccl"},
      {"mindspore_auto_64mb", "ms-auto"}, {"mindspore_85_160", "ms85/160"}, {"dp", "DP<=8"}, {"dp_any", "DP-any"}};
  const auto it = names.find(n);
  return it == names.end() ? n : it->second;
}

void print_table(const char* title, const std::vector<std::pair<std::string, std::vector<Row>>>& blocks, bool tail) {
  std::printf("\n%s\n", title);
  std::vector<std::string> columns;
  for (const auto& [label, rows] : blocks)
    for (const auto& r : rows)
      if (std::find(columns.begin(), columns.end(), r.name) == columns.end()) columns.push_back(r.name);
  std::printf("%-34s", "model @ cluster");
  for (const auto& c : columns) std::printf(" %8s", short_name(c).c_str());
  std::printf("\n");
  for (const auto& [label, rows] : blocks) {
    std::printf("%-34s", label.c_str());
    for (const auto& c : columns) {
      const auto it = std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.name == c; });
      if (it == rows.end()) {
        std::printf(" %8s", "-");
        continue;
      }
      char cell[32];
      std::snprintf(cell, sizeof cell, "%.2f%s", (tail ? it->tail_us : it->step_us) / 1000, it->fits ? "" : "*");
      std::printf(" %8s", cell);
    }
    std::printf("\n");
  }
}

void usage() {
  std::printf(
      "gdat_bench [--budget N] [--batch B] [--max-segments K] [--searchers ga,rl,random] [--clusters a,b]\n"
      "           [--models-dir DIR] [--clusters-dir DIR] [--plugin-dir DIR]\n"
      "Tail and step time (ms) of ResNet-50 and BERT-base's encoder (resnet50.onnx and bert_encoder12.onnx\n"
      "of the models folder) under each split, predicted by the cost model.\n");
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") return usage(), 0;
    if (i + 1 >= argc) return usage(), 2;
    const std::string value = argv[++i];
    if (arg == "--budget") s.budget = std::stoull(value);
    else if (arg == "--batch") s.batch = std::stoi(value);
    else if (arg == "--max-segments") s.max_segments = std::stoi(value);
    else if (arg == "--searchers") s.searchers = split_list(value);
    else if (arg == "--clusters") s.clusters = split_list(value);
    else if (arg == "--models-dir") s.models_dir = value;
    else if (arg == "--clusters-dir") s.clusters_dir = value;
    else if (arg == "--plugin-dir") s.plugin_dir = value;
    else return usage(), 2;
  }
  try {
    const auto searchers = load_searchers(s.plugin_dir, s.searchers);
    std::vector<std::pair<std::string, GradientProfile>> models;
    for (const char* m : {"resnet50", "bert_encoder12"})
      models.emplace_back(m, aoe::gdat::test::reference_profile(s.models_dir / (std::string(m) + ".onnx"), s.batch));
    std::printf("Predicted by the cost model: FIFO allreduces on one link, each starting once its last gradient is\n"
                "ready and the previous one is done. Batch %d; searchers get %llu evaluations in HCCL's space of\n"
                "at most %d segments; DP<=%d is GDAT's answer, DP-any the optimum without a segment limit.\n"
                "* marks a split over %d segments, which HCCL's split APIs do not take.\n\n",
                s.batch, static_cast<unsigned long long>(s.budget), s.max_segments, s.max_segments, s.max_segments);
    for (const auto& [name, p] : models)
      std::printf("%-10s %3zu gradients, %7.1f MiB, forward %6.2f ms, backward %6.2f ms\n", name.c_str(), p.size(),
                  static_cast<double>(p.total_bytes()) / 1048576, p.forward_us / 1000, p.backward_us / 1000);
    std::vector<Cluster> clusters;
    for (const auto& c : s.clusters) clusters.push_back(load_cluster(s.clusters_dir / (c + ".yaml")));
    for (const auto& c : clusters) std::printf("%-20s %s\n", c.name.c_str(), AllreduceCost(c).label().c_str());

    std::vector<std::pair<std::string, std::vector<Row>>> blocks;
    for (const auto& [name, p] : models)
      for (const auto& c : clusters) blocks.emplace_back(name + " @ " + c.name, rows_for(p, c, s, searchers));
    print_table("Communication tail after backward (ms)", blocks, true);
    print_table("Step time: forward + backward + tail (ms)", blocks, false);

    std::printf("\nGDAT (DP<=%d) against the best baseline that fits HCCL, and against HCCL's default split\n"
                "(improvement as AOE reports it: (hccl step - GDAT step) / GDAT step)\n",
                s.max_segments);
    std::printf("%-34s %-18s %10s %10s %10s %9s\n", "model @ cluster", "best baseline", "its step", "GDAT step",
                "hccl step", "improved");
    for (const auto& [label, rows] : blocks) {
      const Row* best = nullptr;
      const Row *dp = nullptr, *hccl = nullptr;
      for (const auto& r : rows) {
        if (r.name == "dp") dp = &r;
        if (r.name == "hccl_default") hccl = &r;
        const bool baseline = r.name != "dp" && r.name != "dp_any" &&
                              std::find(s.searchers.begin(), s.searchers.end(), r.name) == s.searchers.end();
        if (baseline && r.fits && (!best || r.step_us < best->step_us)) best = &r;
      }
      if (!best || !dp || !hccl) continue;
      std::printf("%-34s %-18s %10.2f %10.2f %10.2f %8.1f%%\n", label.c_str(), best->name.c_str(), best->step_us / 1000,
                  dp->step_us / 1000, hccl->step_us / 1000, (hccl->step_us - dp->step_us) / dp->step_us * 100);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gdat_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
