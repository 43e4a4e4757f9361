// Warm start's pieces: how far apart two ops' shapes are, how a banked config
// lands in another space, and which seeds a search opens with.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "bank_keys.h"
#include "matmul_task.h"
#include "warm_start.h"

namespace aoe::opat {
namespace {

using aoe::sdk::Config;
using aoe::sdk::DType;
using aoe::sdk::Knob;
using aoe::sdk::KnobTag;
using aoe::sdk::OpTask;
using aoe::sdk::TuningSpace;
using aoe::test::matmul;
using nlohmann::json;

TuningSpace matmul_space() {
  TuningSpace s;
  s.knobs = {Knob::integer("block_dim", KnobTag::schedule, 1, 32), Knob::power_of_two("m_l0", KnobTag::schedule, 1, 64),
             Knob::categorical("db_l0", KnobTag::schedule, {"off", "on"})};
  s.default_config = {32, 4, 0};
  return s;
}

json entry(const OpTask& op, json config, double after_us) {
  return {{"key", {{"kind", "op"}, {"op_type", op.op_type}, {"signature", op.signature()}, {"hash", op.hash()}}},
          {"config", std::move(config)},
          {"after_us", after_us}};
}

TEST(ShapeDistance, SumsLogRatiosOverEveryDim) {
  const auto d = shape_distance(matmul(128, 768, 768).signature(), matmul(256, 768, 3072).signature());
  ASSERT_TRUE(d);
  // m twice (a and y), n twice (b and y).
  EXPECT_NEAR(*d, 2 * std::log(2.0) + 2 * std::log(4.0), 1e-12);
  EXPECT_EQ(d, shape_distance(matmul(256, 768, 3072).signature(), matmul(128, 768, 768).signature()));
  EXPECT_EQ(shape_distance(matmul(8, 8, 8).signature(), matmul(8, 8, 8).signature()), 0.0);
}

// base changed in each way that makes a config of one mean something else on
// the other: type, fused ops, attributes, dtype, rank, format, tensor count.
std::vector<OpTask> unlike(const OpTask& base) {
  std::vector<OpTask> out(7, base);
  out[0].op_type = "Gemm";
  out[1].fused_ops = {"Relu"};
  out[2].attrs["transB"] = 1;
  out[3].inputs[0].dtype = DType::f32;
  out[4].inputs[0].shape = {1, 128, 768};
  out[5].outputs[0].format = "FRACTAL_NZ";
  out[6].inputs.pop_back();
  return out;
}

TEST(ShapeDistance, OpsUnlikeEachOtherHaveNone) {
  const OpTask base = matmul(128, 768, 768);
  for (const OpTask& other : unlike(base))
    EXPECT_FALSE(shape_distance(base.signature(), other.signature())) << other.signature();
  EXPECT_FALSE(shape_distance(base.signature(), "{ not json"));
  EXPECT_FALSE(shape_distance(base.signature(), R"({"op_type":"MatMul","inputs":[3],"outputs":[]})"));
}

// The bank is asked for the op's family: it must hold every op that
// shape_distance can rank, and none that it cannot.
TEST(OpFamily, JoinsOpsApartInDimsAloneAndNothingElse) {
  const OpTask base = matmul(128, 768, 768);
  EXPECT_EQ(aoe::modes::op_family(base), aoe::modes::op_family(matmul(256, 64, 3072)));
  for (const OpTask& other : unlike(base))
    EXPECT_NE(aoe::modes::op_family(base), aoe::modes::op_family(other)) << other.signature();
  EXPECT_EQ(aoe::modes::op_bank_key(base, "Ascend910", "1")["family"], aoe::modes::op_family(base));
}

// The bank ranks a family's entries by op_dims alone (bank_nearest): within
// a family that must be shape_distance.
TEST(OpDims, WithinAFamilyTheirLogDistanceIsTheShapeDistance) {
  const OpTask a = matmul(128, 768, 768), b = matmul(256, 64, 3072);
  EXPECT_EQ(aoe::modes::op_dims(a), (std::vector<int64_t>{128, 768, 768, 768, 128, 768}));
  const auto da = aoe::modes::op_dims(a), db = aoe::modes::op_dims(b);
  double sum = 0;
  for (size_t i = 0; i < da.size(); ++i) sum += std::abs(std::log(double(da[i]) / double(db[i])));
  EXPECT_NEAR(sum, *shape_distance(a.signature(), b.signature()), 1e-12);
  EXPECT_EQ(aoe::modes::op_bank_key(a, "Ascend910", "1")["dims"], json(da));
}

TEST(MapConfig, KeepsAllowedValuesAndMovesOthersToTheNearest) {
  const TuningSpace space = matmul_space();
  EXPECT_EQ(map_config(space, {{"block_dim", 7}, {"m_l0", 16}, {"db_l0", "on"}}), (Config{7, 16, 1}));
  // Sizes by ratio: 48 lies nearer 64 than 32; past the top is the top.
  EXPECT_EQ(map_config(space, {{"block_dim", 40}, {"m_l0", 48}, {"db_l0", "off"}}), (Config{32, 64, 0}));
  EXPECT_EQ(map_config(space, {{"m_l0", 512}}), (Config{32, 64, 0}));
  EXPECT_EQ(map_config(space, {{"m_l0", 0}}), (Config{32, 1, 0}));
}

TEST(MapConfig, WhatItCannotPlaceTakesTheDefault) {
  const TuningSpace space = matmul_space();
  EXPECT_EQ(map_config(space, {{"m_l0", 16}}), (Config{32, 16, 0}));  // knobs it lacks
  EXPECT_EQ(map_config(space, {{"db_l0", "twice"}, {"block_dim", "many"}}), space.default_config);
  EXPECT_EQ(map_config(space, {{"unknown_knob", 3}}), space.default_config);
  EXPECT_EQ(map_config(space, json::array({1, 2, 3})), space.default_config);
}

TEST(RankedSeeds, NearestFirstEachConfigOnceWithoutTheOwnEntryOrTheDefault) {
  const TuningSpace space = matmul_space();
  const OpTask task = matmul(128, 768, 768);
  OpTask unlike = matmul(128, 768, 768);
  unlike.fused_ops = {"Gelu"};
  const std::vector<json> entries = {
      entry(matmul(1024, 768, 768), {{"block_dim", 8}, {"m_l0", 64}, {"db_l0", "on"}}, 10),
      entry(task, {{"block_dim", 1}, {"m_l0", 1}, {"db_l0", "on"}}, 5),         // the op itself: a bank hit
      entry(unlike, {{"block_dim", 2}, {"m_l0", 2}, {"db_l0", "on"}}, 5),       // another kind of op
      entry(matmul(256, 768, 768), {{"block_dim", 16}, {"m_l0", 32}, {"db_l0", "on"}}, 30),
      entry(matmul(64, 768, 768), {{"block_dim", 32}, {"m_l0", 4}, {"db_l0", "off"}}, 3),  // the default
      entry(matmul(128, 768, 1536), {{"block_dim", 16}, {"m_l0", 32}, {"db_l0", "on"}}, 20),  // same config
      entry(matmul(64, 768, 768), {{"block_dim", 4}, {"m_l0", 8}}, 2),
      json{{"key", "not an object"}},
  };
  const auto seeds = ranked_seeds(space, task.signature(), entries);
  ASSERT_EQ(seeds.size(), 3u);
  // 256 and 64 rows lie equally near (2 log 2); 128x1536 too, and ran faster than 256's entry.
  EXPECT_EQ(seeds[0].config, (Config{4, 8, 0}));
  EXPECT_EQ(seeds[1].config, (Config{16, 32, 1}));
  EXPECT_EQ(seeds[2].config, (Config{8, 64, 1}));
  EXPECT_NEAR(seeds[0].distance, 2 * std::log(2.0), 1e-12);
  EXPECT_NEAR(seeds[2].distance, 2 * std::log(8.0), 1e-12);
}

TEST(SeedCount, AFewSeedsThatLeaveTheSearcherMostOfTheBudget) {
  EXPECT_EQ(seed_count(0), 0u);
  EXPECT_EQ(seed_count(1), 0u);
  EXPECT_EQ(seed_count(2), 1u);
  EXPECT_EQ(seed_count(8), 2u);
  EXPECT_EQ(seed_count(12), 3u);
  EXPECT_EQ(seed_count(24), 4u);
  EXPECT_EQ(seed_count(64), 4u);
  EXPECT_EQ(seed_count(100000), 4u);
}

}  // namespace
}  // namespace aoe::opat
