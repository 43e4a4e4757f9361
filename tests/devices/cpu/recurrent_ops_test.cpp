// LSTM, GRU and RNN against their double-precision reference on every
// threads count: both directions, batch-first layout, sequence lengths that
// differ per batch entry, initial states, peepholes, GRU's
// linear_before_reset both ways, clip, weights the model holds (packed once) or
// computed as it runs, hidden sizes no vector width divides. Few steps:
// with weights drawn from [-1, 1] a wide cell is chaotic, and float and
// double part by 1e-3 after some 40 steps whatever order sums them.
#include <gtest/gtest.h>

#include <cmath>

#include "tasks.h"

namespace aoe::cpu {
namespace {

using test::f32;
using test::host;
using test::op;
using test::pool;

struct Recurrent {
  std::string cell;  // LSTM, GRU or RNN
  int64_t steps, batch, input, hidden, directions = 1;
  nlohmann::json attrs = nlohmann::json::object();
  bool bias = true, weights_constant = true;
  std::vector<int64_t> lengths;  // per batch entry; none: every entry runs every step
  bool initial = false, peepholes = false;
  std::vector<int> outputs = {0, 1, 2};  // Y, Y_h and (LSTM) Y_c
};

sdk::OpTask task(const Recurrent& r) {
  const int64_t gates = r.cell == "LSTM" ? 4 : r.cell == "GRU" ? 3 : 1;
  const bool batch_first = r.attrs.value("layout", 0) == 1;
  const Shape x = batch_first ? Shape{r.batch, r.steps, r.input} : Shape{r.steps, r.batch, r.input};
  const Shape state = batch_first ? Shape{r.batch, r.directions, r.hidden} : Shape{r.directions, r.batch, r.hidden};
  std::vector<sdk::TensorDesc> inputs = {f32(x), f32({r.directions, gates * r.hidden, r.input}, r.weights_constant),
                                         f32({r.directions, gates * r.hidden, r.hidden}, true)};
  std::vector<int> slots = {0, 1, 2};
  nlohmann::json attrs = r.attrs;
  attrs["hidden_size"] = r.hidden;
  if (r.directions == 2) attrs["direction"] = "bidirectional";
  if (r.bias) inputs.push_back(f32({r.directions, 2 * gates * r.hidden}, true)), slots.push_back(3);
  if (!r.lengths.empty()) {
    inputs.push_back(test::of_dtype({r.batch}, sdk::DType::i32, true));
    slots.push_back(4);
    attrs["sequence_lens"] = r.lengths;
  }
  if (r.initial) {
    inputs.push_back(f32(state)), slots.push_back(5);
    if (r.cell == "LSTM") inputs.push_back(f32(state)), slots.push_back(6);
  }
  if (r.peepholes) inputs.push_back(f32({r.directions, 3 * r.hidden}, true)), slots.push_back(7);
  attrs["input_slots"] = slots;
  sdk::OpTask t = op(r.cell, inputs, attrs);
  std::vector<int> outs;
  for (int o : r.outputs)
    if (o < 2 || r.cell == "LSTM") {
      outs.push_back(o);
      t.outputs.push_back(o == 0 ? f32(batch_first ? Shape{r.batch, r.steps, r.directions, r.hidden}
                                                   : Shape{r.steps, r.directions, r.batch, r.hidden})
                                 : f32(state));
    }
  t.attrs["output_slots"] = outs;
  return t;
}

TEST(RecurrentOps, MatchTheirReferenceOnEveryThreadsCount) {
  const std::vector<Recurrent> cases = {
      {.cell = "LSTM", .steps = 5, .batch = 3, .input = 7, .hidden = 20, .directions = 2, .lengths = {5, 2, 4},
       .initial = true, .peepholes = true},
      {.cell = "LSTM", .steps = 6, .batch = 2, .input = 9, .hidden = 33, .attrs = {{"layout", 1}, {"direction", "reverse"}},
       .bias = false, .weights_constant = false, .outputs = {1}},
      {.cell = "LSTM", .steps = 12, .batch = 1, .input = 64, .hidden = 128},
      {.cell = "GRU", .steps = 7, .batch = 2, .input = 5, .hidden = 33, .directions = 2,
       .attrs = {{"linear_before_reset", 1}}},
      {.cell = "GRU", .steps = 4, .batch = 2, .input = 6, .hidden = 17, .attrs = {{"direction", "reverse"}},
       .lengths = {3, 1}, .initial = true},
      {.cell = "GRU", .steps = 4, .batch = 3, .input = 16, .hidden = 48, .attrs = {{"linear_before_reset", 1}},
       .bias = true, .weights_constant = false},
      {.cell = "RNN", .steps = 9, .batch = 4, .input = 10, .hidden = 64},
      {.cell = "RNN", .steps = 3, .batch = 2, .input = 4, .hidden = 5, .directions = 2, .attrs = {{"layout", 1}},
       .lengths = {1, 3}, .initial = true},
      {.cell = "LSTM", .steps = 4, .batch = 2, .input = 6, .hidden = 9, .directions = 2, .attrs = {{"clip", 0.4}},
       .peepholes = true},
      {.cell = "GRU", .steps = 4, .batch = 2, .input = 6, .hidden = 9, .attrs = {{"clip", 0.3}, {"linear_before_reset", 1}}},
      {.cell = "GRU", .steps = 4, .batch = 1, .input = 6, .hidden = 9, .attrs = {{"clip", 0.3}}},
      {.cell = "RNN", .steps = 4, .batch = 2, .input = 6, .hidden = 9, .attrs = {{"clip", 0.2}}},
      {.cell = "LSTM", .steps = 4, .batch = 2, .input = 6, .hidden = 9, .directions = 2, .attrs = {{"input_forget", 1}},
       .initial = true, .peepholes = true},
  };
  std::vector<sdk::Config> configs;
  for (int64_t threads = 1; threads <= std::min(host().threads, 3); ++threads) configs.push_back({threads});
  for (const auto& r : cases) {
    const sdk::OpTask t = task(r);
    SCOPED_TRACE(r.cell + " " + t.attrs.dump());
    test::expect_matches_reference(*make_op(t, host()), configs, pool());
  }
}

// clip bounds each gate's input to its activation: an RNN step of W x = 3
// and -0.1 (no recurrence, no bias) with clip 0.5 is tanh(0.5) and tanh(-0.1).
TEST(RecurrentOps, ClipBoundsWhatEachActivationTakes) {
  for (const bool clipped : {false, true}) {
    Recurrent r{.cell = "RNN", .steps = 2, .batch = 1, .input = 1, .hidden = 2, .bias = false, .outputs = {0}};
    if (clipped) r.attrs["clip"] = 0.5;
    const auto o = make_op(task(r), host());
    const std::vector<float> x = {1, 1}, w = {3, -0.1f}, rec = {0, 0, 0, 0};
    const float first = std::tanh(clipped ? 0.5f : 3.0f), second = std::tanh(-0.1f);
    const auto got = run_once(*o, {1}, {x.data(), w.data(), rec.data()}, pool());
    ASSERT_EQ(got.size(), 1u);
    ASSERT_EQ(got[0].size(), 4u);
    for (size_t step = 0; step < 2; ++step) {
      EXPECT_NEAR(got[0][2 * step], first, 1e-6) << clipped;
      EXPECT_NEAR(got[0][2 * step + 1], second, 1e-6) << clipped;
    }
  }
  Recurrent bad{.cell = "GRU", .steps = 2, .batch = 1, .input = 1, .hidden = 2, .attrs = {{"clip", 0.0}}};
  EXPECT_NE(test::refusal(task(bad)).find("clip must be above 0"), std::string::npos) << test::refusal(task(bad));
}

// input_forget couples LSTM's forget gate to its input gate, f = 1 - i, as
// ONNX Runtime runs it. Two steps of one unit on x = 1 (no recurrence, no
// bias), gate weights i 0.5, o 0.3, f 2, c 0.7: the second step's cell is
// f c1 + i tanh(0.7), with f = 1 - sigmoid(0.5) coupled and sigmoid(2) not.
TEST(RecurrentOps, InputForgetCouplesTheForgetGateToTheInputGate) {
  const auto sigmoid = [](double v) { return 1 / (1 + std::exp(-v)); };
  for (const bool coupled : {false, true}) {
    Recurrent r{.cell = "LSTM", .steps = 2, .batch = 1, .input = 1, .hidden = 1, .bias = false, .outputs = {2}};
    if (coupled) r.attrs["input_forget"] = 1;
    const auto o = make_op(task(r), host());
    const std::vector<float> x = {1, 1}, w = {0.5f, 0.3f, 2, 0.7f}, rec = {0, 0, 0, 0};
    const auto got = run_once(*o, {1}, {x.data(), w.data(), rec.data()}, pool());
    ASSERT_EQ(got.size(), 1u);
    ASSERT_EQ(got[0].size(), 1u);
    const double i = sigmoid(0.5), f = coupled ? 1 - i : sigmoid(2), c1 = i * std::tanh(0.7);
    EXPECT_NEAR(got[0][0], f * c1 + i * std::tanh(0.7), 1e-6) << coupled;
  }
}

}  // namespace
}  // namespace aoe::cpu
