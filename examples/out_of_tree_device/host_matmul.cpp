// A device built outside the aoe tree, against the installed SDK: the host
// CPU running one real op, a blocked fp32 matrix multiply (MatMul, or Gemm
// with its bias), with an Add of a row vector and a Relu fused after it.
// Its tuning space is its own: the row and column block of the loop nest
// and the order of its inner loops. A vendor replaces the kernel with a
// launch on its hardware and the clock with the hardware's.
#include <aoe/sdk/plugin.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

using aoe::sdk::Built;
using aoe::sdk::Config;
using aoe::sdk::Error;
using aoe::sdk::Knob;
using aoe::sdk::KnobTag;
using aoe::sdk::Measurement;
using aoe::sdk::ResultStatus;
using aoe::sdk::StatusCode;

enum KnobIndex : size_t { kTileM, kTileN, kOrder };

// C[m][n] = sum_k A[m][k] * B(k, n), then + bias[n], then max(0, .).
struct MatMulShape {
  int64_t m = 0, n = 0, k = 0;
  bool trans_b = false;
  bool bias = false;  // a [n] vector added after the product
  bool relu = false;
};

[[noreturn]] void unsupported(const std::string& why) { throw Error(StatusCode::unsupported, why); }

MatMulShape shape_of(const aoe::sdk::OpTask& task) {
  if (task.op_type != "MatMul" && task.op_type != "Gemm") unsupported("host_matmul runs MatMul and Gemm, not " + task.op_type);
  MatMulShape s;
  s.trans_b = task.op_type == "Gemm" && task.attrs.value("transB", 0) != 0;
  if (task.op_type == "Gemm" && (task.attrs.value("transA", 0) != 0 || task.attrs.value("alpha", 1.0) != 1.0 ||
                                 task.attrs.value("beta", 1.0) != 1.0))
    unsupported("host_matmul runs Gemm without transA, alpha or beta");
  size_t inputs = 2;
  for (const auto& op : task.fused_ops) {
    if (op == "Add" && !s.bias && !s.relu) {
      s.bias = true;
    } else if (op == "Relu" && !s.relu) {
      s.relu = true;
    } else {
      unsupported("host_matmul fuses one Add then one Relu, not " + op);
    }
  }
  if (task.op_type == "Gemm" && task.inputs.size() == 3 + (s.bias ? 1 : 0)) {
    if (s.bias) unsupported("host_matmul adds one bias");
    s.bias = true;  // Gemm's C
  }
  inputs += s.bias ? 1 : 0;
  if (task.inputs.size() != inputs) unsupported("host_matmul expects " + std::to_string(inputs) + " inputs");
  const auto& a = task.inputs[0].shape;
  const auto& b = task.inputs[1].shape;
  if (a.size() != 2 || b.size() != 2) unsupported("host_matmul runs 2-D matrices only");
  s.m = a[0];
  s.k = a[1];
  s.n = s.trans_b ? b[0] : b[1];
  if ((s.trans_b ? b[1] : b[0]) != s.k) throw Error(StatusCode::invalid_argument, "inner dims differ");
  if (s.bias && task.inputs.back().shape != std::vector<int64_t>{s.n}) unsupported("host_matmul adds a [N] bias only");
  return s;
}

// The smallest power of two >= dim, and at least `least`.
int64_t cover(int64_t dim, int64_t least) {
  int64_t p = least;
  while (p < dim) p *= 2;
  return p;
}

class MatMulCandidate final : public aoe::sdk::Candidate {
 public:
  explicit MatMulCandidate(Config config) : config(std::move(config)) {}
  Config config;
};

class HostMatMulTask final : public aoe::sdk::DeviceTask {
 public:
  explicit HostMatMulTask(MatMulShape s) : s_(s) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1, 1);
    for (auto* v : {&a_, &b_}) v->resize(static_cast<size_t>(v == &a_ ? s.m * s.k : s.k * s.n));
    bias_.resize(static_cast<size_t>(s.n));
    for (auto* v : {&a_, &b_, &bias_})
      for (auto& x : *v) x = u(rng);
    expected_ = reference();
  }

  aoe::sdk::TuningSpace space() const override {
    aoe::sdk::TuningSpace space;
    space.knobs = {Knob::power_of_two("tile_m", KnobTag::schedule, 4, 64),
                   Knob::power_of_two("tile_n", KnobTag::schedule, 16, 256),
                   Knob::categorical("order", KnobTag::schedule, {"mkn", "mnk"})};
    space.default_config = {std::min<int64_t>(16, cover(s_.m, 4)), std::min<int64_t>(64, cover(s_.n, 16)), 0};
    return space;
  }

  // A tile past the smallest that covers its dim runs the same loops: not worth a measurement.
  Measurement check(const Config& c) const override {
    if (c[kTileM] > cover(s_.m, 4)) return Measurement::failed(ResultStatus::invalid, "tile_m exceeds what covers M");
    if (c[kTileN] > cover(s_.n, 16)) return Measurement::failed(ResultStatus::invalid, "tile_n exceeds what covers N");
    return {};
  }

  Built build(const Config& c) override { return Built::ok(std::make_unique<MatMulCandidate>(c)); }

  std::vector<Measurement> measure(const std::vector<aoe::sdk::Candidate*>& batch,
                                   const aoe::sdk::MeasureOptions& options) override {
    std::vector<Measurement> out;
    for (auto* candidate : batch) out.push_back(time(static_cast<MatMulCandidate*>(candidate)->config, options));
    return out;
  }

 private:
  float b_at(int64_t k, int64_t n) const {
    return s_.trans_b ? b_[static_cast<size_t>(n * s_.k + k)] : b_[static_cast<size_t>(k * s_.n + n)];
  }

  void epilogue(std::vector<float>& c) const {
    for (int64_t i = 0; i < s_.m; ++i)
      for (int64_t j = 0; j < s_.n; ++j) {
        float& x = c[static_cast<size_t>(i * s_.n + j)];
        if (s_.bias) x += bias_[static_cast<size_t>(j)];
        if (s_.relu) x = std::max(0.0f, x);
      }
  }

  std::vector<float> reference() const {
    std::vector<float> c(static_cast<size_t>(s_.m * s_.n));
    for (int64_t i = 0; i < s_.m; ++i)
      for (int64_t j = 0; j < s_.n; ++j) {
        double sum = 0;
        for (int64_t k = 0; k < s_.k; ++k) sum += double(a_[static_cast<size_t>(i * s_.k + k)]) * b_at(k, j);
        c[static_cast<size_t>(i * s_.n + j)] = static_cast<float>(sum);
      }
    epilogue(c);
    return c;
  }

  void run(const Config& c, std::vector<float>& out) const {
    std::fill(out.begin(), out.end(), 0.0f);
    const int64_t tm = c[kTileM], tn = c[kTileN];
    for (int64_t i0 = 0; i0 < s_.m; i0 += tm)
      for (int64_t j0 = 0; j0 < s_.n; j0 += tn) {
        const int64_t i1 = std::min(s_.m, i0 + tm), j1 = std::min(s_.n, j0 + tn);
        if (c[kOrder] == 0) {  // mkn: a row of B streams through the tile of C
          for (int64_t i = i0; i < i1; ++i)
            for (int64_t k = 0; k < s_.k; ++k) {
              const float a = a_[static_cast<size_t>(i * s_.k + k)];
              for (int64_t j = j0; j < j1; ++j) out[static_cast<size_t>(i * s_.n + j)] += a * b_at(k, j);
            }
        } else {  // mnk: one dot product per element
          for (int64_t i = i0; i < i1; ++i)
            for (int64_t j = j0; j < j1; ++j) {
              float sum = 0;
              for (int64_t k = 0; k < s_.k; ++k) sum += a_[static_cast<size_t>(i * s_.k + k)] * b_at(k, j);
              out[static_cast<size_t>(i * s_.n + j)] = sum;
            }
        }
      }
    epilogue(out);
  }

  Measurement time(const Config& c, const aoe::sdk::MeasureOptions& options) const {
    std::vector<float> out(expected_.size());
    run(c, out);
    for (size_t i = 0; i < out.size(); ++i)
      if (std::abs(out[i] - expected_[i]) > 1e-3f + 1e-4f * std::abs(expected_[i]))
        return Measurement::failed(ResultStatus::wrong_result, "element " + std::to_string(i) + " differs from the reference");
    for (uint32_t w = 1; w < options.warmup; ++w) run(c, out);
    std::vector<double> times;
    for (uint32_t r = 0; r < std::max(1u, options.repeats); ++r) {
      const auto start = std::chrono::steady_clock::now();
      run(c, out);
      times.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(times.begin(), times.end());
    const double median = times[times.size() / 2];
    return Measurement::timed(median, median > 0 ? (times.back() - times.front()) / median : 0,
                              static_cast<uint32_t>(times.size()));
  }

  MatMulShape s_;
  std::vector<float> a_, b_, bias_, expected_;
};

class HostMatMul final : public aoe::sdk::Device {
 public:
  // soc_version names the bank's folder: entries of one target stay together.
  // fused_op_types: what the tuner may fuse after an anchor for this device.
  nlohmann::json describe() const override {
    return {{"soc_version", "host_matmul"}, {"cores", 1}, {"fused_op_types", {"Add", "Relu"}}};
  }

  std::unique_ptr<aoe::sdk::DeviceTask> prepare(const aoe::sdk::OpTask& task) override {
    for (const auto& t : task.inputs)
      if (t.dtype != aoe::sdk::DType::f32 || !t.fully_known()) unsupported("host_matmul runs float32 of known dims");
    return std::make_unique<HostMatMulTask>(shape_of(task));
  }
};

}  // namespace

AOE_REGISTER_DEVICE(HostMatMul, "host_matmul", "a blocked fp32 MatMul on the host: a device to start from");
