// The SDK vocabulary: stable signatures, spaces and measurements that survive
// the trip across the boundary.
#include <gtest/gtest.h>

#include <cstddef>

#include "aoe/abi/version.h"
#include "aoe/sdk/host.h"
#include "aoe/sdk/measurement.h"
#include "aoe/sdk/op_task.h"
#include "aoe/sdk/tuning_space.h"
#include "matmul_task.h"

extern "C" int aoe_abi_is_c(void);

namespace aoe::sdk {
namespace {

using aoe::test::matmul;

TEST(Signature, IgnoresNamesAndKeepsShapes) {
  OpTask a = matmul(128, 768, 3072), b = matmul(128, 768, 3072);
  b.name = "other";
  b.inputs[0].name = "renamed";
  EXPECT_EQ(a.signature(), b.signature());
  EXPECT_NE(a.hash(), matmul(128, 768, 768).hash());
  b.attrs["transB"] = 1;
  EXPECT_NE(a.hash(), b.hash());
}

TEST(Signature, HashIsTheSameEverywhere) {
  // A bank written on one machine must be found on another: this value may never change.
  EXPECT_EQ(matmul(128, 768, 3072).signature(),
            R"({"attrs":{},"fused_ops":[],"inputs":[{"dtype":"float16","format":"ND","shape":[128,768]},)"
            R"({"dtype":"float16","format":"ND","shape":[768,3072]}],"op_type":"MatMul",)"
            R"("outputs":[{"dtype":"float16","format":"ND","shape":[128,3072]}]})");
  EXPECT_EQ(matmul(128, 768, 3072).hash(), "6d0a3ed8dc05ba81");
}

TEST(Signature, TaskSurvivesJson) {
  OpTask t = matmul(8, 16, 32);
  t.fused_ops = {"Add", "Relu"};
  t.attrs["alpha"] = 1.5;
  const OpTask back = nlohmann::json(t).get<OpTask>();
  EXPECT_EQ(back.signature(), t.signature());
  EXPECT_EQ(back.name, t.name);
  EXPECT_TRUE(back.inputs[1].constant);
}

TEST(TuningSpace, DomainsAndRoundTrip) {
  TuningSpace s;
  s.version = "3";
  s.knobs = {Knob::integer("block_dim", KnobTag::schedule, 1, 4), Knob::power_of_two("m_l0", KnobTag::schedule, 1, 16),
             Knob::categorical("format", KnobTag::format, {"ND", "NC1HWC0"})};
  s.default_config = {4, 16, 0};
  EXPECT_EQ(s.knobs[1].values, (std::vector<int64_t>{1, 2, 4, 8, 16}));
  EXPECT_DOUBLE_EQ(s.size(), 4 * 5 * 2);
  EXPECT_TRUE(s.in_domain({1, 2, 1}));
  EXPECT_FALSE(s.in_domain({1, 3, 1}));
  EXPECT_FALSE(s.in_domain({1, 2}));
  EXPECT_EQ(s.describe({2, 8, 1}), (nlohmann::json{{"block_dim", 2}, {"m_l0", 8}, {"format", "NC1HWC0"}}));
  const TuningSpace back = nlohmann::json(s).get<TuningSpace>();
  EXPECT_EQ(nlohmann::json(back), nlohmann::json(s));
  EXPECT_EQ(back.knobs[2].tag, KnobTag::format);
}

TEST(TuningSpace, KnobReadsAValueAsBanksAndUsersWriteIt) {
  const auto order = Knob::categorical("order", KnobTag::schedule, {"n_outer", "m_outer"});
  EXPECT_EQ(order.value_of("m_outer"), 1);
  EXPECT_EQ(order.value_of(1), 1) << "the index, as a config holds it";
  EXPECT_EQ(order.value_of(true), 1);
  EXPECT_FALSE(order.value_of("k_outer"));
  EXPECT_FALSE(order.value_of(2));
  const auto mc = Knob::power_of_two("mc", KnobTag::schedule, 16, 256);
  EXPECT_EQ(mc.value_of(64), 64);
  EXPECT_FALSE(mc.value_of(48));
  EXPECT_FALSE(mc.value_of(64.5));
  EXPECT_FALSE(mc.value_of(nlohmann::json::array()));
}

TEST(TuningSpace, RejectsADefaultOutsideIt) {
  nlohmann::json j = {{"knobs", {{{"name", "x"}, {"values", {1, 2}}}}}, {"default", {3}}};
  EXPECT_THROW(j.get<TuningSpace>(), Error);
  j["knobs"][0]["values"] = nlohmann::json::array();
  j["default"] = nlohmann::json::array();
  EXPECT_THROW(j.get<TuningSpace>(), Error);
}

TEST(TuningSpace, ForEachConfigVisitsEveryConfigOnceLastKnobFastest) {
  TuningSpace space;
  space.knobs = {Knob::integer("a", KnobTag::schedule, 1, 2), Knob::power_of_two("b", KnobTag::schedule, 1, 4)};
  std::vector<Config> seen;
  for_each_config(space, [&](const Config& c) { seen.push_back(c); });
  EXPECT_EQ(seen, (std::vector<Config>{{1, 1}, {1, 2}, {1, 4}, {2, 1}, {2, 2}, {2, 4}}));

  space.knobs.push_back(Knob{"empty", KnobTag::schedule, DomainKind::integer, {}, {}});
  size_t visits = 0;
  for_each_config(space, [&](const Config&) { ++visits; });
  EXPECT_EQ(visits, 0u);
}

TEST(Measurement, CrossesTheBoundaryIntact) {
  const Measurement m{ResultStatus::wrong_result, 12.5, 0.01, 7, "max error 3e-2 at element 17"};
  const Measurement back = from_abi(to_abi(m));
  EXPECT_EQ(back.status, m.status);
  EXPECT_DOUBLE_EQ(back.time_us, 12.5);
  EXPECT_EQ(back.repeats, 7u);
  EXPECT_EQ(back.message, m.message);
  // An overlong message is cut, never overflows the fixed field.
  const Measurement longer = from_abi(to_abi(Measurement::failed(ResultStatus::run_failed, std::string(1000, 'x'))));
  EXPECT_EQ(longer.message.size(), AOE_MEASUREMENT_MESSAGE_SIZE - 1);
}

// A host table that lists one entry, as SDK 1.2 hosts do.
aoe_host_services listing_host() {
  aoe_host_services s{};
  s.struct_size = sizeof(aoe_host_services);
  s.bank_entries = [](void*, const char*, aoe_sink* out) -> aoe_status* {
    write_to(out, R"([{"key": {"op_type": "MatMul"}, "after_us": 1}])");
    return nullptr;
  };
  return s;
}

TEST(Host, ListsBankEntriesThroughA12Table) {
  const aoe_host_services table = listing_host();
  const auto entries = Host(&table).bank_entries({{"kind", "op"}, {"op_type", "MatMul"}});
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0]["key"]["op_type"], "MatMul");
}

TEST(Host, AnOlderHostsTableListsNothingAndIsNotReadPastItsEnd) {
  aoe_host_services table = listing_host();
  table.struct_size = offsetof(aoe_host_services, bank_entries);  // a 1.1 host's table
  EXPECT_TRUE(Host(&table).bank_entries({{"kind", "op"}}).empty());
  EXPECT_TRUE(Host().bank_entries({{"kind", "op"}}).empty());
}

// A host table that lends one output buffer, as SDK 1.6 hosts do, and
// records the shape it was asked for.
struct LendingHost {
  std::vector<float> buffer;
  std::vector<int64_t> shape;
  aoe_host_services table{};
  LendingHost() {
    table.struct_size = sizeof(aoe_host_services);
    table.ctx = this;
    table.output_buffer = [](void* ctx, const char*, const int64_t* dims, uint32_t rank, float** out) -> aoe_status* {
      auto& self = *static_cast<LendingHost*>(ctx);
      self.shape.assign(dims, dims + rank);
      int64_t count = 1;
      for (uint32_t i = 0; i < rank; ++i) count *= dims[i];
      self.buffer.assign(static_cast<size_t>(count), 0.0f);
      *out = self.buffer.data();
      return nullptr;
    };
  }
};

TEST(Host, LendsAnOutputBufferOfTheRunTimeShape) {
  LendingHost lender;
  float* data = Host(&lender.table).output_buffer("where", {1, 4});
  EXPECT_EQ(data, lender.buffer.data());
  EXPECT_EQ(lender.buffer.size(), 4u);
  EXPECT_EQ(lender.shape, (std::vector<int64_t>{1, 4}));
}

TEST(Host, AnOlderHostsTableRefusesAnOutputOfRunTimeShapeByName) {
  LendingHost lender;
  lender.table.struct_size = offsetof(aoe_host_services, output_buffer);  // a 1.5 host's table
  EXPECT_FALSE(Host(&lender.table).lends_output_buffers());
  try {
    Host(&lender.table).output_buffer("where", {1, 4});
    ADD_FAILURE() << "a 1.5 host's table lent an output buffer";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::unsupported);
    EXPECT_NE(std::string(e.what()).find("output 'where' has shape [1,4]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("SDK 1.6"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(lender.shape.empty());  // the member past the table's end was never called
  EXPECT_THROW(Host().output_buffer("where", {1}), Error);
}

TEST(Abi, HeadersCompileAsC) { EXPECT_EQ(aoe_abi_is_c(), AOE_SDK_VERSION_MAJOR); }

}  // namespace
}  // namespace aoe::sdk
