// The model under the tuning: the DP against brute force, the timeline's
// invariants, the split formats, the baselines, cluster files and profiles.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <random>

#include "aoe/sdk/error.h"
#include "allreduce_cost.h"
#include "baselines.h"
#include "cluster.h"
#include "model_gradients.h"
#include "optimal_split.h"
#include "reference_profiles.h"
#include "split_search.h"
#include "timeline.h"

namespace aoe::gdat {
namespace {

const std::filesystem::path kModels = AOE_MODELS_DIR;
const std::filesystem::path kClusters = AOE_GDAT_CLUSTERS_DIR;

Cluster ring(int ranks, const std::string& bandwidth, const std::string& latency) {
  return parse_cluster("ranks: " + std::to_string(ranks) + "\nlink: {bandwidth: " + bandwidth + ", latency: " + latency +
                           "}\ntuning: {max_segments: 0}\n",
                       "test.yaml");
}

GradientProfile random_profile(std::mt19937_64& rng, size_t count) {
  std::uniform_int_distribution<uint64_t> bytes(1, 4 << 20);
  std::exponential_distribution<double> gap(1.0 / 300);
  GradientProfile p;
  double t = 0;
  for (size_t i = 0; i < count; ++i) {
    t += (rng() % 4 == 0) ? 0 : gap(rng);  // some gradients share a layer
    p.grads.push_back({"g" + std::to_string(i), bytes(rng), t});
  }
  p.backward_us = t + gap(rng);
  p.forward_us = p.backward_us / 2;
  return p;
}

AllreduceCost random_cost(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  if (rng() % 3 == 0) {
    std::vector<TablePoint> table;
    double bytes = 1024, us = 5 + 50 * u(rng);
    for (int i = 0; i < 6; ++i) {
      table.push_back({bytes, us});
      bytes *= 2 + 10 * u(rng);
      us += 1000 * u(rng) * u(rng);  // flat stretches too
    }
    return AllreduceCost::from_table(table, 10 * u(rng), "random table");
  }
  Cluster c = ring(2 + static_cast<int>(rng() % 30), std::to_string(0.5 + 50 * u(rng)) + " GB/s",
                   std::to_string(200 * u(rng) * u(rng)) + " us");
  const Algorithm algorithms[] = {Algorithm::ring, Algorithm::tree, Algorithm::recursive_doubling, Algorithm::automatic};
  c.algorithm = algorithms[rng() % 4];
  c.overhead_us = 30 * u(rng);
  return AllreduceCost(c);
}

bool fits(const Split& split, const std::vector<uint64_t>& bytes, int max_segments, double cap) {
  if (max_segments > 0 && split.size() > static_cast<size_t>(max_segments)) return false;
  const auto starts = segment_starts(split);
  const auto sizes = segment_bytes(split, bytes);
  for (size_t k = 0; k < split.size(); ++k)
    if (cap > 0 && static_cast<double>(sizes[k]) > cap && split[k] != starts[k]) return false;
  return true;
}

std::vector<uint64_t> sizes_of(const GradientProfile& p) {
  std::vector<uint64_t> out;
  for (const auto& g : p.grads) out.push_back(g.bytes);
  return out;
}

void expect_close(double a, double b, const std::string& what) {
  EXPECT_NEAR(a, b, 1e-9 * std::max(1.0, std::abs(b))) << what;
}

TEST(OptimalSplit, EqualsBruteForceOnSmallRandomInstances) {
  std::mt19937_64 rng(20240611);
  for (int instance = 0; instance < 300; ++instance) {
    const size_t L = 1 + rng() % 11;
    const auto profile = random_profile(rng, L);
    const auto cost = random_cost(rng);
    const auto bytes = sizes_of(profile);
    const int max_segments = static_cast<int>(rng() % 5);  // 0: no limit
    const double cap = rng() % 3 == 0 ? static_cast<double>(profile.total_bytes()) / (1 + rng() % 4) : 0;
    double best = std::numeric_limits<double>::infinity();
    for (uint64_t mask = 0; mask < (uint64_t{1} << (L - 1)); ++mask) {
      Split split;
      for (size_t i = 0; i + 1 < L; ++i)
        if (mask >> i & 1) split.push_back(i);
      split.push_back(L - 1);
      if (fits(split, bytes, max_segments, cap)) best = std::min(best, simulate(profile, cost, split).comm_end_us);
    }
    const auto dp = optimal_split(profile, cost, max_segments, cap);
    const std::string what = "instance " + std::to_string(instance) + ", L " + std::to_string(L) + ", K " +
                             std::to_string(max_segments) + ", cap " + std::to_string(cap);
    if (std::isinf(best)) {  // no split fits both limits
      EXPECT_TRUE(dp.split.empty()) << what;
      EXPECT_TRUE(std::isinf(dp.comm_end_us)) << what;
      continue;
    }
    ASSERT_NO_THROW(check_split(dp.split, L)) << what;
    EXPECT_TRUE(fits(dp.split, bytes, max_segments, cap)) << what;
    expect_close(dp.comm_end_us, best, what);
    expect_close(simulate(profile, cost, dp.split).comm_end_us, dp.comm_end_us, what);
    expect_close(comm_end(profile, profile.prefix_bytes(), cost, dp.split), dp.comm_end_us, what);
  }
}

TEST(OptimalSplit, PrefersFewerSegmentsWhenComputeHidesCommunication) {
  GradientProfile p;
  for (int i = 0; i < 6; ++i) p.grads.push_back({"g", 1000, 1000.0 * i});
  p.backward_us = 6000;
  const auto constant = AllreduceCost::from_table({{1, 1}, {1e6, 1}}, 0, "constant 1 us");
  // Every split ends at 5001: one bucket is as good as six.
  auto dp = optimal_split(p, constant, 0);
  EXPECT_DOUBLE_EQ(dp.comm_end_us, 5001);
  EXPECT_EQ(dp.split, (Split{5}));
  // 1 us per byte: each gradient's allreduce exactly fills the next layer's backward.
  const auto linear = AllreduceCost::from_table({{0, 0}, {1e6, 1e6}}, 0, "1 us per byte");
  dp = optimal_split(p, linear, 0);
  EXPECT_DOUBLE_EQ(dp.comm_end_us, 6000);
  EXPECT_EQ(dp.split, (Split{0, 1, 2, 3, 4, 5}));
  dp = optimal_split(p, linear, 2);
  EXPECT_DOUBLE_EQ(dp.comm_end_us, 8000);  // [0, 2] ends at 5000, then [3, 5]
  EXPECT_EQ(dp.split, (Split{2, 5}));
}

void expect_timeline_invariants(const GradientProfile& p, const AllreduceCost& cost, const Split& split,
                                const std::vector<double>& release, const std::string& what) {
  const auto t = simulate(p, cost, split, release);
  ASSERT_EQ(t.segments.size(), split.size()) << what;
  size_t next = 0;
  for (size_t k = 0; k < t.segments.size(); ++k) {
    const auto& s = t.segments[k];
    EXPECT_EQ(s.first, next) << what;  // contiguous, in gradient order
    EXPECT_EQ(s.last, split[k]) << what;
    for (size_t i = s.first; i <= s.last; ++i) EXPECT_GE(s.start_us, p.grads[i].ready_us) << what;
    if (k < release.size()) {
      EXPECT_GE(s.start_us, release[k]) << what;
    }
    if (k > 0) {
      EXPECT_GE(s.start_us, t.segments[k - 1].end_us) << what;  // one link: no overlap, FIFO
    }
    EXPECT_DOUBLE_EQ(s.end_us, s.start_us + cost(static_cast<double>(s.bytes))) << what;
    next = s.last + 1;
  }
  EXPECT_EQ(next, p.size()) << what;
  EXPECT_DOUBLE_EQ(t.comm_end_us, t.segments.back().end_us) << what;
  EXPECT_DOUBLE_EQ(t.tail_us(), std::max(0.0, t.comm_end_us - p.backward_us)) << what;
  EXPECT_DOUBLE_EQ(t.step_us(), p.forward_us + p.backward_us + t.tail_us()) << what;
}

TEST(Timeline, InvariantsHoldForRandomSplitsAndEveryBaseline) {
  std::mt19937_64 rng(7);
  for (int instance = 0; instance < 200; ++instance) {
    const size_t L = 1 + rng() % 60;
    const auto p = random_profile(rng, L);
    const auto cost = random_cost(rng);
    Split split;
    for (size_t i = 0; i + 1 < L; ++i)
      if (rng() % 5 == 0) split.push_back(i);
    split.push_back(L - 1);
    expect_timeline_invariants(p, cost, split, {}, "random split " + std::to_string(instance));
    for (const auto& b : all_baselines(p, cost)) {
      ASSERT_NO_THROW(check_split(b.split, L)) << b.name;
      expect_timeline_invariants(p, cost, b.split, b.release, b.name + " " + std::to_string(instance));
    }
  }
}

TEST(Timeline, HorovodWaitsForItsCycle) {
  GradientProfile p;
  p.grads = {{"a", 100, 100}, {"b", 100, 200}, {"c", 100, 7000}};
  p.backward_us = 7000;
  const auto cost = AllreduceCost::from_table({{1, 10}, {1e9, 10}}, 0, "10 us");
  const auto b = horovod(p, cost, 64.0 * 1048576, 5000, "hvd");
  EXPECT_EQ(b.split, (Split{1, 2}));  // a and b in the first 5 ms cycle, c in the third
  EXPECT_EQ(b.release, (std::vector<double>{5000, 10000}));
  EXPECT_DOUBLE_EQ(simulate(p, cost, b.split, b.release).comm_end_us, 10010);
}

TEST(SplitFormats, RoundTripThroughEveryApi) {
  std::mt19937_64 rng(11);
  for (const char* name : {"resnet50", "bert_base"}) {
    const auto p = test::reference_profile(kModels / (std::string(name) + ".onnx"));
    const auto bytes = sizes_of(p);
    for (int trial = 0; trial < 300; ++trial) {
      Split split;
      const size_t cuts = rng() % 12;
      for (size_t c = 0; c < cuts; ++c) split.push_back(rng() % (p.size() - 1));
      split.push_back(p.size() - 1);
      std::sort(split.begin(), split.end());
      split.erase(std::unique(split.begin(), split.end()), split.end());
      const auto sizes = size_percentages(split, bytes);
      double sum = 0;
      for (double s : sizes) sum += s;
      EXPECT_NEAR(sum, 100, 1e-6);
      EXPECT_EQ(split_from_sizes(sizes, bytes), split) << segments_text(split);
      EXPECT_EQ(split_from_ddp_caps(ddp_caps_mb(split, bytes), bytes), split) << segments_text(split);
      const std::vector<int64_t> idx(split.begin(), split.end());
      EXPECT_EQ(split_from_indices(idx, p.size()), split);
    }
  }
}

TEST(SplitFormats, MindSporeExtendsTheLastSegmentAndDropsBadIndices) {
  EXPECT_EQ(split_from_indices({85, 160}, 199), (Split{85, 198}));
  EXPECT_EQ(split_from_indices({85, 400, 50, 160}, 161), (Split{85, 160}));
  EXPECT_EQ(segments_text({107, 160}), "[0, 107] [108, 160]");
}

// 96.54% of ResNet-50's bytes end at layer2.1.bn3.weight: index 107 of the
// 160-gradient list HCCL's documentation counts, 108 of ours, which has fc.bias.
TEST(Baselines, HcclDefaultCutsResNet50AfterLayer2_1Bn3) {
  const auto p = test::reference_profile(kModels / "resnet50.onnx");
  ASSERT_EQ(p.size(), 161u);
  const auto split = hccl_default(sizes_of(p)).split;
  EXPECT_EQ(split, (Split{108, 160}));
  EXPECT_EQ(comparable_name(p.grads[split[0]].name), "layer2.1.bn3.weight");
  EXPECT_EQ(mindspore_resnet50(p.size()).split, (Split{85, 160}));
}

TEST(Baselines, DdpClosesABucketOnceItReachesItsCap) {
  const auto p = test::reference_profile(kModels / "bert_base.onnx");
  const auto bytes = sizes_of(p);
  const auto b = ddp_default(bytes);
  const auto sizes = segment_bytes(b.split, bytes);
  for (size_t k = 0; k + 1 < sizes.size(); ++k) {
    const double cap = (k == 0 ? 1.0 : 25.0) * 1048576;
    EXPECT_GE(static_cast<double>(sizes[k]), cap);
    EXPECT_LT(static_cast<double>(sizes[k] - bytes[b.split[k]]), cap);
  }
}

// The answer against every baseline, under the same timeline and cost: the
// HCCL-limited optimum beats those that fit HCCL's 8 segments, the unlimited
// optimum beats them all.
TEST(OptimalSplit, NeverWorseThanAnyBaselineOnRealProfilesAndClusters) {
  std::vector<Cluster> clusters;
  for (const auto& e : std::filesystem::directory_iterator(kClusters)) clusters.push_back(load_cluster(e.path()));
  ASSERT_GE(clusters.size(), 5u);
  for (const char* name : {"resnet50", "bert_base"}) {
    for (int batch : {8, 32, 128}) {
      const auto p = test::reference_profile(kModels / (std::string(name) + ".onnx"), batch);
      const auto bytes = sizes_of(p);
      for (const auto& cluster : clusters) {
        const AllreduceCost cost(cluster);
        const auto limited = optimal_split(p, cost, 8);
        const auto unlimited = optimal_split(p, cost, 0);
        EXPECT_LE(unlimited.comm_end_us, limited.comm_end_us * (1 + 1e-12));
        EXPECT_LE(limited.split.size(), 8u);
        for (const auto& b : all_baselines(p, cost)) {
          const double end = simulate(p, cost, b.split, b.release).comm_end_us;
          const std::string what = std::string(name) + " batch " + std::to_string(batch) + " on " + cluster.name +
                                   ": " + b.name;
          EXPECT_LE(unlimited.comm_end_us, end * (1 + 1e-12)) << what;
          if (b.split.size() <= 8) {
            EXPECT_LE(limited.comm_end_us, end * (1 + 1e-12)) << what;
          }
        }
      }
    }
  }
}

TEST(AllreduceCost, FormulasGrowWithSizeAndAutoTakesTheFastest) {
  const Cluster hier = load_cluster(kClusters / "hier64_nvlink_roce.yaml");
  ASSERT_EQ(hier.topology, Topology::hierarchical);
  Cluster c = hier;
  double previous = 0;
  for (double n = 0; n < 1e9; n = n * 1.7 + 1000) {
    c.algorithm = Algorithm::automatic;
    const double a = AllreduceCost(c)(n);
    for (auto alg : {Algorithm::ring, Algorithm::tree, Algorithm::recursive_doubling, Algorithm::hierarchical}) {
      c.algorithm = alg;
      EXPECT_LE(a, AllreduceCost(c)(n) + 1e-9);
    }
    EXPECT_GE(a, previous);
    previous = a;
  }
  // Ring on a flat cluster: 2(p-1) alpha + 2(p-1)/p n beta.
  const auto flat = ring(8, "10 GB/s", "5 us");
  EXPECT_NEAR(AllreduceCost(flat)(1e6), 2 * 7 * 5 + 2 * 7.0 / 8 * 1e6 / 1e4, 1e-9);
}

TEST(AllreduceCost, TableIsInterpolatedAndExtrapolated) {
  const auto cost = AllreduceCost::from_table({{1000, 10}, {2000, 20}, {4000, 20}}, 1, "t");
  EXPECT_DOUBLE_EQ(cost(10), 11);
  EXPECT_DOUBLE_EQ(cost(1500), 16);
  EXPECT_DOUBLE_EQ(cost(3000), 21);
  EXPECT_DOUBLE_EQ(cost(8000), 21);  // the last segment is flat
  const auto fit = fit_alpha_beta({{1000, 12}, {2000, 14}, {3000, 16}});
  EXPECT_NEAR(fit.alpha_us, 10, 1e-9);
  EXPECT_NEAR(fit.us_per_byte, 0.002, 1e-12);
}

void expect_cluster_error(const std::string& yaml, const std::string& key, const std::string& why) {
  try {
    parse_cluster(yaml, "bad.yaml");
    ADD_FAILURE() << "accepted: " << yaml;
  } catch (const aoe::sdk::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("cluster file bad.yaml"), std::string::npos) << m;
    EXPECT_NE(m.find("key '" + key + "'"), std::string::npos) << m;
    EXPECT_NE(m.find(why), std::string::npos) << m;
  }
}

TEST(ClusterFile, ErrorsNameTheFileAndTheKey) {
  expect_cluster_error("link: {bandwidth: 1 GB/s}\n", "ranks", "missing");
  expect_cluster_error("ranks: 8\nlink: {bandwidth: 25}\n", "link.bandwidth", "needs a unit");
  expect_cluster_error("ranks: 8\nlink: {bandwidth: 25 furlongs}\n", "link.bandwidth", "unknown unit");
  expect_cluster_error("ranks: 8\nlink: {bandwidth: 1 GB/s}\nspeed: 3\n", "speed", "unknown key");
  expect_cluster_error("ranks: 8\ntopology: hierarchical\n", "ranks_per_node", "missing");
  expect_cluster_error("ranks: 8\ntopology: hierarchical\nranks_per_node: 3\n", "ranks_per_node", "does not divide");
  expect_cluster_error("ranks: 8\n", "link", "missing");
  expect_cluster_error("ranks: 1\nlink: {bandwidth: 1 GB/s}\n", "ranks", "out of range");
  expect_cluster_error("ranks: 8\nlink: {bandwidth: 1 GB/s}\nalgorithm: hierarchical\n", "algorithm", "hierarchical");
  expect_cluster_error("ranks: 8\nallreduce_table: [[1 KiB, 10 us], [1 MiB, 5 us]]\n", "allreduce_table[1]",
                       "non-decreasing");
  expect_cluster_error("ranks: 8\nlink: {bandwidth: 1 GB/s}\ntuning: {max_segments: many}\n", "tuning.max_segments",
                       "integer");
}

TEST(ClusterFile, ShippedExamplesLoad) {
  size_t count = 0;
  for (const auto& e : std::filesystem::directory_iterator(kClusters)) {
    const auto c = load_cluster(e.path());
    EXPECT_GE(c.ranks, 2) << e.path();
    EXPECT_GT(AllreduceCost(c)(64 << 20), 0) << e.path();
    ++count;
  }
  EXPECT_GE(count, 5u);
  const auto hccs = load_cluster(kClusters / "ascend910_8p_hccs.yaml");
  EXPECT_EQ(hccs.limits.max_segments, 8);
}

TEST(ModelGradients, TrainedWeightsInReverseGraphOrder) {
  using aoe::sdk::DType;
  aoe::sdk::Graph g;
  auto tensor = [&](const std::string& name, std::vector<int64_t> shape, bool constant, DType dtype = DType::f32) {
    g.tensors[name] = {name, shape, dtype, "ND", constant};
  };
  tensor("x", {1, 3, 8, 8}, false);
  tensor("conv.W", {4, 3, 3, 3}, true);
  tensor("conv.B", {4}, true);
  tensor("c", {1, 4, 8, 8}, false);
  for (const char* n : {"bn.scale", "bn.bias", "bn.mean", "bn.var"}) tensor(n, {4}, true);
  tensor("b", {1, 4, 8, 8}, false);
  tensor("shape", {2}, true, DType::i64);
  tensor("r", {1, 256}, false);
  tensor("fc.W", {256, 10}, true);
  tensor("m", {1, 10}, false);
  tensor("fc.bias", {10}, true);
  tensor("a", {1, 10}, false);
  tensor("half", {}, true);
  tensor("y", {1, 10}, false);
  g.nodes = {{"conv", "Conv", {"x", "conv.W", "conv.B"}, {"c"}, {}},
             {"bn", "BatchNormalization", {"c", "bn.scale", "bn.bias", "bn.mean", "bn.var"}, {"b"}, {}},
             {"reshape", "Reshape", {"b", "shape"}, {"r"}, {}},
             {"fc", "MatMul", {"r", "fc.W"}, {"m"}, {}},
             {"bias", "Add", {"m", "fc.bias"}, {"a"}, {}},
             {"scale", "Mul", {"a", "half"}, {"y"}, {}}};
  const auto t = trainable_tensors(g);
  std::vector<std::string> names;
  for (const auto& x : t) names.push_back(x.name);
  EXPECT_EQ(names, (std::vector<std::string>{"fc.bias", "fc.W", "bn.bias", "bn.scale", "conv.B", "conv.W"}));
  EXPECT_EQ(t[1].bytes, 256u * 10 * 4);
  const auto p = profile_from_model(t, {10, 1, 0, 5, 1, 1}, 9, "test");
  ASSERT_EQ(p.size(), 6u);
  EXPECT_DOUBLE_EQ(p.grads[0].ready_us, 2);   // Mul and Add behind it
  EXPECT_DOUBLE_EQ(p.grads[1].ready_us, 7);   // then the MatMul
  EXPECT_DOUBLE_EQ(p.grads[2].ready_us, 8);   // Reshape (0), BatchNormalization
  EXPECT_DOUBLE_EQ(p.grads[5].ready_us, 18);  // the Conv, last
  EXPECT_DOUBLE_EQ(p.backward_us, 18);
  EXPECT_NO_THROW(check_profile(p, "test"));
}

TEST(GradientProfileFile, ReadsThePerTensorSizesFormatAndItsOwn) {
  // Per-tensor sizes in definition order, as a framework's parameter listing writes them.
  const auto file = std::filesystem::temp_directory_path() / ("gdat_profile_" + std::to_string(::getpid()) + ".csv");
  {
    std::ofstream out(file);
    out << "index,name,shape,numel,bytes_fp32\n"
           "0,conv1.weight,64x3x7x7,9408,37632\n"
           "1,bn1.weight,64,64,256\n"
           "2,bn1.bias,64,64,256\n";
  }
  const auto sizes = read_profile_csv(file);
  EXPECT_FALSE(sizes.has_ready);
  ASSERT_EQ(sizes.rows.size(), 3u);
  EXPECT_EQ(sizes.rows[0].name, "conv1.weight");
  EXPECT_EQ(sizes.rows[0].bytes, 37632u);
  EXPECT_EQ(sizes.rows[2].bytes, 256u);

  auto p = test::reference_profile(kModels / "resnet50.onnx");
  write_profile_csv(file, p);
  const auto back = read_profile_csv(file);
  std::filesystem::remove(file);
  ASSERT_TRUE(back.has_ready);
  const auto q = profile_from_file(back, "round trip");
  ASSERT_EQ(q.size(), p.size());
  for (size_t i = 0; i < p.size(); ++i) {
    EXPECT_EQ(q.grads[i].bytes, p.grads[i].bytes);
    EXPECT_NEAR(q.grads[i].ready_us, p.grads[i].ready_us, 1e-3);
  }
  EXPECT_NEAR(q.backward_us, p.backward_us, 1e-3);
  EXPECT_EQ(q.canonical_text(), p.canonical_text());
}

// A deterministic random searcher, standing in for the plugins.
class UniformSearcher {
 public:
  void start(const aoe::sdk::TuningSpace& space, const aoe::sdk::SearchOptions& options) {
    space_ = space;
    rng_.seed(options.seed);
  }
  std::vector<aoe::sdk::Config> propose(size_t n) {
    std::vector<aoe::sdk::Config> out(n);
    for (auto& c : out)
      for (const auto& k : space_.knobs) c.push_back(k.values[rng_() % k.values.size()]);
    return out;
  }
  void observe(const aoe::sdk::Config&, const aoe::sdk::Measurement&) {}

 private:
  aoe::sdk::TuningSpace space_;
  std::mt19937_64 rng_;
};

TEST(SplitSearch, EncodesSplitsAndNeverBeatsTheOptimum) {
  const auto p = test::reference_profile(kModels / "resnet50.onnx");
  const auto cluster = load_cluster(kClusters / "ethernet16_25g.yaml");
  const AllreduceCost cost(cluster);
  const auto bytes = sizes_of(p);
  const SplitSpace space(p.size(), 8, hccl_default(bytes).split);
  EXPECT_EQ(space.knobs(), 7u);
  EXPECT_EQ(space.decode(space.space().default_config), (Split{108, 160}));
  EXPECT_EQ(space.decode(space.encode({3, 50, 99, 160})), (Split{3, 50, 99, 160}));
  EXPECT_EQ(space.decode({160, 7, 7, 3, 160, 160, 160}), (Split{3, 7, 160}));
  EXPECT_THROW(space.encode(no_fusion(p.size()).split), std::invalid_argument);

  const auto prefix = p.prefix_bytes();
  const double cap = 40.0 * 1048576;
  auto evaluate = [&](const Split& s) -> std::optional<double> {
    if (!fits(s, bytes, 8, cap)) return std::nullopt;
    return comm_end(p, prefix, cost, s);
  };
  UniformSearcher searcher;
  const auto r = search_split(searcher, space, evaluate, {500, 3, 8});
  EXPECT_EQ(r.evaluations, 500u);
  EXPECT_EQ(r.stop_reason, "budget");
  EXPECT_GT(r.refused, 0u);
  const auto dp = optimal_split(p, cost, 8, cap);
  EXPECT_GE(r.comm_end_us, dp.comm_end_us * (1 - 1e-12));
  EXPECT_TRUE(fits(r.best, bytes, 8, cap));
}

}  // namespace
}  // namespace aoe::gdat
