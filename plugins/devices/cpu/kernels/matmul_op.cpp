#include "matmul_op.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "catalog.h"
#include "onednn_matmul.h"
#include "openblas_gemm.h"
#include "op_util.h"
#include "reference.h"

namespace aoe::cpu {
namespace {

const std::vector<int64_t> kMcValues = {16, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048};
const std::vector<int64_t> kKcValues = {32, 64, 96, 128, 192, 256, 384, 512, 768, 1024};
const std::vector<int64_t> kNcValues = {64, 128, 256, 512, 1024, 2048, 4096, 8192};

enum PackB : int64_t { kPackPerCall, kPackOnce, kPackNone };

// The device's micro-kernels, then OpenBLAS and oneDNN where built: the
// values past the catalog stand for the whole product by that library.
const std::vector<std::string>& ukernel_labels() {
  static const std::vector<std::string> labels = [] {
    std::vector<std::string> out;
    for (const auto& u : ukernel_catalog()) out.push_back(u.label());
    if (openblas_built()) out.push_back(kOpenBlasLabel);
    if (onednn_built()) out.push_back(kOneDnnLabel);
    return out;
  }();
  return labels;
}

MatMulImpl impl_of(const sdk::Config& c) {
  const auto u = static_cast<size_t>(c[MatMulOp::kUKernel]);
  if (u < ukernel_catalog().size()) return MatMulImpl::own;
  return ukernel_labels().at(u) == kOpenBlasLabel ? MatMulImpl::openblas : MatMulImpl::onednn;
}

// Offsets, per element of the broadcast batch, of a matrix whose own batch
// dims are `batch` (right-aligned to `out_batch`), `matrix` elements each.
std::vector<int64_t> batch_offsets(const Shape& batch, const Shape& out_batch, int64_t matrix) {
  const Shape a = align_rank(batch, out_batch.size());
  const auto strides = strides_of(a);
  std::vector<int64_t> out;
  std::vector<int64_t> index(out_batch.size(), 0);
  do {
    int64_t off = 0;
    for (size_t d = 0; d < a.size(); ++d) off += a[d] == 1 ? 0 : index[d] * strides[d];
    out.push_back(off * matrix);
  } while (next_index(index, out_batch));
  return out;
}

}  // namespace

class MatMulKernel final : public Kernel {
 public:
  MatMulKernel(const MatMulOp& op, const GemmConfig& cfg, bool pack_once, MatMulImpl impl)
      : op_(op),
        cfg_(cfg),
        pack_once_(pack_once && impl == MatMulImpl::own),
        impl_(impl),
        out_(elements(op.output_shapes()[0])),
        ws_(cfg, impl == MatMulImpl::own ? cfg.threads : 0) {
    if (impl == MatMulImpl::onednn)
      onednn_ = std::make_unique<OneDnnMatMul>(op.m_, op.n_, op.k_, op.a_layout_, op.b_layout_, op.b_constant_, cfg.threads);
  }

  void bind(const std::vector<const float*>& inputs) override {
    inputs_ = inputs;
    chain_.steps = op_.epilogue_;
    chain_.operands.clear();
    for (size_t i = 0; i < op_.operand_inputs_.size(); ++i)
      chain_.operands.push_back({inputs[op_.operand_inputs_[i]], &op_.operand_layouts_[i]});
    sources_.clear();
    packed_.clear();
    for (size_t b = 0; b < op_.a_offset_.size(); ++b) {
      StridedMatrix bm = op_.b_layout_;
      bm.data = inputs[1] + op_.b_offset_[b];
      sources_.push_back(std::make_unique<DenseSource>(bm));
    }
    if (onednn_) onednn_->set_weights(inputs[1] + op_.b_offset_[0]);
    if (pack_once_) {
      // One packed copy per distinct B matrix: a shared B is packed once.
      std::map<int64_t, size_t> seen;
      packed_index_.assign(op_.b_offset_.size(), 0);
      for (size_t b = 0; b < op_.b_offset_.size(); ++b) {
        auto [it, fresh] = seen.emplace(op_.b_offset_[b], packed_.size());
        if (fresh) packed_.push_back(std::make_unique<PackedB>(*sources_[b], op_.k_, op_.n_, cfg_));
        packed_index_[b] = it->second;
      }
    }
  }

  void run(ThreadPool& pool) override {
    const int64_t batches = static_cast<int64_t>(op_.a_offset_.size());
    if (impl_ == MatMulImpl::openblas) return run_openblas(pool);
    if (impl_ == MatMulImpl::onednn) return run_onednn(pool);
    if (cfg_.split == Split::batch) {
      pool.run(batches, cfg_.threads, [&](int64_t b, int thread) { gemm(cfg_, call(b), ws_, nullptr, thread); });
    } else {
      for (int64_t b = 0; b < batches; ++b) gemm(cfg_, call(b), ws_, &pool);
    }
  }

  void read_output(size_t, float* out) const override { std::memcpy(out, out_.data(), out_.bytes()); }
  float* output_data() override { return out_.data(); }
  const float* kept_output(size_t) const override { return out_.data(); }

  Footprint footprint() const override {
    Footprint f = ws_.footprint();
    f.emplace_back(out_.data(), out_.bytes());
    add_input_buffers(f, inputs_, op_);
    return f;
  }
  int64_t placeable_elements(size_t) const override { return out_.size(); }
  void place_output(size_t, float* at) override { out_.place(at); }
  bool reads_at_run(size_t index) const override {
    return index != 1 || !(pack_once_ || (onednn_ && op_.b_constant_));
  }

 private:
  GemmCall call(int64_t b) {
    GemmCall c;
    c.m = op_.m_;
    c.n = op_.n_;
    c.k = op_.k_;
    c.a = op_.a_layout_;
    c.a.data = inputs_[0] + op_.a_offset_[static_cast<size_t>(b)];
    c.b = sources_[static_cast<size_t>(b)].get();
    c.packed_b = pack_once_ ? packed_[packed_index_[static_cast<size_t>(b)]].get() : nullptr;
    c.c = out_.data() + b * op_.m_ * op_.n_;
    c.ldc = op_.n_;
    c.epilogue = chain_.empty() ? nullptr : &chain_;
    c.epilogue_row = b * op_.m_;
    return c;
  }

  // Each product by OpenBLAS, then the epilogue over its rows.
  void run_openblas(ThreadPool& pool) {
    for (size_t b = 0; b < op_.a_offset_.size(); ++b) {
      StridedMatrix a = op_.a_layout_, bm = op_.b_layout_;
      a.data = inputs_[0] + op_.a_offset_[b];
      bm.data = inputs_[1] + op_.b_offset_[b];
      float* c = out_.data() + static_cast<int64_t>(b) * op_.m_ * op_.n_;
      openblas_sgemm(a, bm, op_.m_, op_.n_, op_.k_, c, cfg_.threads, pool);
      if (chain_.empty()) continue;
      apply_to_rows(chain_, *cfg_.isa, c, static_cast<int64_t>(b) * op_.m_, op_.m_, op_.n_, cfg_.threads, pool);
    }
  }

  // Each product by oneDNN, each part's rows through the epilogue as it finishes.
  void run_onednn(ThreadPool& pool) {
    for (size_t b = 0; b < op_.a_offset_.size(); ++b) {
      float* c = out_.data() + static_cast<int64_t>(b) * op_.m_ * op_.n_;
      const int64_t row0 = static_cast<int64_t>(b) * op_.m_;
      OneDnnMatMul::PartDone after;
      if (!chain_.empty())
        after = [&](int64_t row, int64_t rows, int64_t col, int64_t cols) {
          for (int64_t r = row; r < row + rows; ++r) chain_.apply(*cfg_.isa, c + r * op_.n_ + col, row0 + r, col, cols);
        };
      onednn_->run(inputs_[0] + op_.a_offset_[b], inputs_[1] + op_.b_offset_[b], c, pool, after);
    }
  }

  const MatMulOp& op_;
  GemmConfig cfg_;
  bool pack_once_;
  MatMulImpl impl_;
  std::unique_ptr<OneDnnMatMul> onednn_;
  Buffer out_;
  GemmWorkspace ws_;
  std::vector<const float*> inputs_;
  Chain chain_;
  std::vector<std::unique_ptr<DenseSource>> sources_;
  std::vector<std::unique_ptr<PackedB>> packed_;
  std::vector<size_t> packed_index_;
};

MatMulOp::MatMulOp(const sdk::OpTask& task, const HostCpu& host) : host_(host), gemm_(task.op_type == "Gemm") {
  require_f32(task);
  const FusedOps fused = fused_ops(task);
  const std::string& op = task.op_type;
  if (gemm_) {
    if (fused.anchor_inputs < 2 || fused.anchor_inputs > 3) invalid("Gemm takes 2 or 3 inputs");
  } else if (fused.anchor_inputs != 2) {
    invalid(op + " takes 2 inputs");
  }
  for (size_t i = 0; i < task.inputs.size(); ++i) inputs_.push_back(task.inputs[i].shape);
  Shape a = inputs_[0], b = inputs_[1];
  if (a.empty() || b.empty()) invalid(op + " needs inputs of rank >= 1");
  Shape out_real;
  if (gemm_) {
    if (a.size() != 2 || b.size() != 2) invalid("Gemm takes 2-D A and B");
    trans_a_ = int_attr(task.attrs, "transA", 0) != 0;
    trans_b_ = int_attr(task.attrs, "transB", 0) != 0;
    m_ = trans_a_ ? a[1] : a[0];
    k_ = trans_a_ ? a[0] : a[1];
    n_ = trans_b_ ? b[0] : b[1];
    if ((trans_b_ ? b[1] : b[0]) != k_) invalid("Gemm inner dims differ: " + to_string(a) + " and " + to_string(b));
    a_layout_ = trans_a_ ? StridedMatrix{nullptr, 1, m_} : StridedMatrix{nullptr, k_, 1};
    b_layout_ = trans_b_ ? StridedMatrix{nullptr, 1, k_} : StridedMatrix{nullptr, n_, 1};
    a_offset_ = b_offset_ = {0};
    out_full_ = out_real = {m_, n_};
  } else {
    // BatchMatMul transposes the last two dims of a where adj_x1 is 1, of b where adj_x2 is.
    if (op == "BatchMatMul") {
      if (a.size() < 2 || b.size() < 2)
        invalid(op + " '" + task.name + "': input '" + (a.size() < 2 ? "a" : "b") + "' is " +
                to_string(a.size() < 2 ? a : b) + "; expected rank at least 2");
      trans_a_ = int_attr(task.attrs, "adj_x1", 0) != 0;
      trans_b_ = int_attr(task.attrs, "adj_x2", 0) != 0;
    }
    const bool drop_m = a.size() == 1, drop_n = b.size() == 1;
    if (drop_m) a.insert(a.begin(), 1);
    if (drop_n) b.push_back(1);
    m_ = a[a.size() - (trans_a_ ? 1 : 2)];
    k_ = a[a.size() - (trans_a_ ? 2 : 1)];
    n_ = b[b.size() - (trans_b_ ? 2 : 1)];
    if (b[b.size() - (trans_b_ ? 1 : 2)] != k_)
      invalid(op + " '" + task.name + "' inner dims differ: a " + to_string(inputs_[0]) + " and b " + to_string(inputs_[1]) +
              (trans_a_ || trans_b_ ? " (adj_x1 " + std::to_string(trans_a_) + ", adj_x2 " + std::to_string(trans_b_) + ")" : ""));
    const Shape a_batch(a.begin(), a.end() - 2), b_batch(b.begin(), b.end() - 2);
    const Shape out_batch = broadcast({a_batch, b_batch}, "MatMul batch dims");
    a_offset_ = batch_offsets(a_batch, out_batch, m_ * k_);
    b_offset_ = batch_offsets(b_batch, out_batch, k_ * n_);
    out_full_ = out_batch;
    out_full_.push_back(m_);
    out_full_.push_back(n_);
    out_real = out_batch;
    if (!drop_m) out_real.push_back(m_);
    if (!drop_n) out_real.push_back(n_);
    a_layout_ = trans_a_ ? StridedMatrix{nullptr, 1, m_} : StridedMatrix{nullptr, k_, 1};
    b_layout_ = trans_b_ ? StridedMatrix{nullptr, 1, k_} : StridedMatrix{nullptr, n_, 1};
    // A shared B under an unbroadcast A: one GEMM over every batch's rows
    // (whose rows follow each other only where A is not transposed).
    if (!trans_a_ && elements(b_batch) == 1 && align_rank(a_batch, out_batch.size()) == out_batch && a_offset_.size() > 1) {
      m_ *= static_cast<int64_t>(a_offset_.size());
      a_offset_ = b_offset_ = {0};
    }
    // Operands broadcast against the real output; the epilogue sees the full one.
    auto to_full = [&](const Shape& s) {
      Shape aligned = align_rank(s, out_real.size());
      if (aligned.size() > out_real.size()) invalid(op + ": a fused operand has more dims than the output");
      if (drop_n) aligned.push_back(1);
      if (drop_m) aligned.insert(aligned.end() - 1, 1);
      return aligned;
    };
    for (size_t i = fused.anchor_inputs; i < inputs_.size(); ++i) operand_shapes_.push_back(to_full(inputs_[i]));
  }
  outputs_ = {out_real};
  if (!task.outputs.empty() && task.outputs[0].shape != out_real)
    invalid(op + " output is " + to_string(task.outputs[0].shape) + ", expected " + to_string(out_real));
  b_constant_ = task.inputs[1].constant;

  // Epilogue: alpha, then beta * C, then the fused ops.
  if (gemm_) {
    const double alpha = float_attr(task.attrs, "alpha", 1.0), beta = float_attr(task.attrs, "beta", 1.0);
    if (alpha != 1.0) epilogue_.push_back({EltOp::scale, static_cast<float>(alpha), 0, -1});
    if (fused.anchor_inputs == 3 && beta != 0.0) {
      epilogue_.push_back({beta == 1.0 ? EltOp::add : EltOp::add_scaled, static_cast<float>(beta), 0,
                           static_cast<int>(operand_inputs_.size())});
      operand_inputs_.push_back(2);
    }
    std::vector<Shape> shapes;
    for (size_t i = 2; i < inputs_.size(); ++i) shapes.push_back(inputs_[i]);
    if (fused.anchor_inputs == 3 && beta == 0.0) shapes.erase(shapes.begin());
    operand_shapes_ = shapes;
  }
  const int first_fused = static_cast<int>(operand_inputs_.size());
  for (auto step : fused.steps) {
    if (step.operand >= 0) step.operand += first_fused;
    epilogue_.push_back(step);
  }
  for (size_t i : fused.inputs) operand_inputs_.push_back(i);
  for (const auto& s : operand_shapes_) {
    if (broadcast({s, out_full_}, op + " fused operand") != out_full_)
      invalid(op + ": fused operand " + to_string(s) + " does not broadcast to the output " + to_string(out_full_));
    operand_layouts_.push_back(*operand_layout(s, out_full_, out_full_.size() - 1));
  }

  space_.version = "1";
  space_.knobs.resize(kKnobCount);
  space_.knobs[kUKernel] = choice_knob("ukernel", sdk::KnobTag::impl, ukernel_labels());
  space_.knobs[kMc] = sized_knob("mc", kMcValues, m_);
  space_.knobs[kKc] = sized_knob("kc", kKcValues, k_);
  space_.knobs[kNc] = sized_knob("nc", kNcValues, n_);
  space_.knobs[kOrder] = choice_knob("loop_order", sdk::KnobTag::schedule, {"n_outer", "m_outer"});
  space_.knobs[kSplit] = choice_knob("split", sdk::KnobTag::schedule, {"m", "n", "batch", "m_shared"});
  space_.knobs[kThreads] = threads_knob(host);
  space_.knobs[kChunks] = sdk::Knob::power_of_two("chunks_per_thread", sdk::KnobTag::schedule, 1, 4);
  space_.knobs[kPackB] = choice_knob("pack_b", sdk::KnobTag::format, {"per_call", "once", "none"});
  space_.default_config = default_config(host);
  if (const auto why = check(space_.default_config); !why.empty())
    throw sdk::Error(sdk::StatusCode::internal, "the default " + op + " config is refused: " + why);
}

GemmConfig MatMulOp::gemm_config(const sdk::Config& c) const {
  // A library's product keeps the default micro-kernel's ISA for the epilogue.
  const sdk::Config& kernel_of = impl_of(c) != MatMulImpl::own ? space_.default_config : c;
  GemmConfig g = gemm_blocking(kernel_of[kUKernel], c[kMc], c[kKc], c[kNc]);
  g.order = c[kOrder] == 0 ? LoopOrder::n_outer : LoopOrder::m_outer;
  g.split = static_cast<Split>(c[kSplit]);
  g.threads = static_cast<int>(c[kThreads]);
  g.chunks_per_thread = static_cast<int>(c[kChunks]);
  g.b_in_place = c[kPackB] == kPackNone;
  return g;
}

std::string MatMulOp::check(const sdk::Config& c) const {
  // A library blocks by itself: only the thread count is its.
  if (impl_of(c) == MatMulImpl::openblas) return {};
  if (impl_of(c) == MatMulImpl::onednn) {
    if (b_constant_ && std::any_of(b_offset_.begin(), b_offset_.end(), [&](int64_t o) { return o != b_offset_[0]; }))
      return "ukernel=onednn reorders one constant B once; this op has a batch of them";
    if (!onednn_compiles(static_cast<int>(c[kThreads]))) return "oneDNN has only its reference matmul for this product";
    return {};
  }
  const auto& shape = ukernel_catalog()[static_cast<size_t>(c[kUKernel])];
  if (auto why = isa_refusal(host_, static_cast<int64_t>(shape.isa)); !why.empty()) return why;
  if (static_cast<Split>(c[kSplit]) == Split::batch && batches() < 2)
    return "split=batch needs more than one matrix product; this op has one";
  if (c[kPackB] == kPackOnce && !b_constant_) return "pack_b=once needs a constant B (weights)";
  if (c[kPackB] == kPackNone && trans_b_) return "pack_b=none reads B's rows in place; a transposed B has none";
  if (c[kChunks] > 1 && c[kThreads] == 1) return "chunks_per_thread above 1 needs threads above 1";
  if (c[kChunks] > 1 && static_cast<Split>(c[kSplit]) == Split::m_shared)
    return "split=m_shared shares out row blocks of mc, not chunks";
  if (c[kMc] < shape.mr / 2 && c[kMc] < m_)
    return "mc " + std::to_string(c[kMc]) + " is under half the micro-kernel's " + std::to_string(shape.mr) + " rows";
  return {};
}

std::unique_ptr<Kernel> MatMulOp::build(const sdk::Config& c) const {
  return std::make_unique<MatMulKernel>(*this, gemm_config(c), c[kPackB] == kPackOnce, impl_of(c));
}

bool MatMulOp::onednn_compiles(int threads) const {
  std::lock_guard<std::mutex> lock(onednn_mutex_);
  const auto known = onednn_compiles_.find(threads);
  if (known != onednn_compiles_.end()) return known->second;
  bool ok = true;
  try {
    OneDnnMatMul(m_, n_, k_, a_layout_, b_layout_, b_constant_, threads);
  } catch (const sdk::Error&) {
    ok = false;
  }
  return onednn_compiles_[threads] = ok;
}

// A library's choice without tuning: the ISA's widest micro-kernel, kc so
// that a B sliver takes two thirds of L1, an mc x kc block of A in half of L2,
// B's panel in a share of L3, threads for the work, splitting the dimension
// whose split repacks less (B once per row chunk, A once per column chunk).
sdk::Config MatMulOp::default_config(const HostCpu& host) const {
  sdk::Config c(kKnobCount, 0);
  // A row or two is a matrix-vector product: the thinnest kernel, B streamed unpacked.
  const bool gemv = m_ <= 2;
  c[kUKernel] = ukernel_for_rows(host.best_isa(), m_);
  const auto& u = ukernel_catalog()[static_cast<size_t>(c[kUKernel])];
  const double flops = 2.0 * static_cast<double>(m_) * static_cast<double>(n_) * static_cast<double>(k_) * batches();
  const int threads = default_threads(host, flops / 20.0);
  c[kThreads] = threads;
  c[kKc] = at_most(space_.knobs[kKc], host.l1d_bytes() * 2 / 3 / (u.nr * 4));
  const int64_t kc = std::min(c[kKc], k_);
  c[kMc] = at_most(space_.knobs[kMc], host.l2_bytes() / 2 / (kc * 4));
  const int64_t l3_share = host.l3_bytes() / std::max(1, host.threads) / 2;
  c[kNc] = at_most(space_.knobs[kNc], std::max<int64_t>(u.nr, l3_share / (kc * 4)));
  c[kOrder] = 0;
  if (batches() >= threads && m_ * n_ <= 256 * 256 && threads > 1) {
    c[kSplit] = static_cast<int64_t>(Split::batch);
  } else if (m_ >= n_ || (b_constant_ && m_ >= u.mr * threads)) {
    c[kSplit] = static_cast<int64_t>(Split::m);
  } else {
    c[kSplit] = static_cast<int64_t>(Split::n);
  }
  c[kChunks] = 1;
  c[kPackB] = b_constant_ ? kPackOnce : gemv && !trans_b_ ? kPackNone : kPackPerCall;
  if (gemv && c[kSplit] == static_cast<int64_t>(Split::m)) c[kSplit] = static_cast<int64_t>(Split::n);
  return c;
}

void MatMulOp::reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const {
  // Batch and row of every output row, from the full output shape.
  const Shape batch(out_full_.begin(), out_full_.end() - 2);
  const int64_t rows = out_full_[out_full_.size() - 2];
  const int64_t cols = n_;
  Shape a_full = inputs_[0], b_full = inputs_[1];
  if (!gemm_) {
    if (a_full.size() == 1) a_full.insert(a_full.begin(), 1);
    if (b_full.size() == 1) b_full.push_back(1);
  }
  const Shape a_batch(a_full.begin(), a_full.end() - 2), b_batch(b_full.begin(), b_full.end() - 2);
  std::vector<double> values(static_cast<size_t>(elements(out_full_)), 0.0);
  std::vector<int64_t> bi(batch.size(), 0);
  int64_t flat_batch = 0;
  do {
    // Offsets of this batch's A and B, broadcasting dims of extent 1.
    auto offset = [&](const Shape& own) {
      const Shape al = align_rank(own, batch.size());
      int64_t off = 0, stride = 1;
      for (size_t d = al.size(); d-- > 0;) {
        off += (al[d] == 1 ? 0 : bi[d]) * stride;
        stride *= al[d];
      }
      return off;
    };
    const float* a = inputs[0] + offset(a_batch) * rows * k_;
    const float* b = inputs[1] + offset(b_batch) * k_ * cols;
    double* c = values.data() + flat_batch * rows * cols;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t p = 0; p < k_; ++p) {
        const double av = trans_a_ ? a[p * rows + i] : a[i * k_ + p];
        for (int64_t j = 0; j < cols; ++j) c[i * cols + j] += av * (trans_b_ ? b[j * k_ + p] : b[p * cols + j]);
      }
    ++flat_batch;
  } while (next_index(bi, batch));
  std::vector<RefOperand> operands;
  for (size_t i = 0; i < operand_inputs_.size(); ++i) operands.push_back({inputs[operand_inputs_[i]], operand_shapes_[i]});
  reference_chain(epilogue_, operands, out_full_, values);
  store(values, outputs[0]);
}

}  // namespace aoe::cpu
