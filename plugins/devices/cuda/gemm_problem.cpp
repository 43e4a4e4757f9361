#include "gemm_problem.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "aoe/sdk/error.h"

namespace aoe::cuda {
namespace {

using Shape = std::vector<int64_t>;

[[noreturn]] void unsupported(const std::string& who, const std::string& why) {
  throw sdk::Error(sdk::StatusCode::unsupported, who + ": " + why);
}
[[noreturn]] void invalid(const std::string& who, const std::string& why) {
  throw sdk::Error(sdk::StatusCode::invalid_argument, who + ": " + why);
}

std::string text(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out + "]";
}

int64_t product(const Shape& s) {
  int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

// `s` with leading 1s up to `rank` dims.
Shape align_rank(const Shape& s, size_t rank) {
  Shape out(rank > s.size() ? rank - s.size() : 0, 1);
  out.insert(out.end(), s.begin(), s.end());
  return out;
}

const nlohmann::json& fused_attrs(const sdk::OpTask& task, size_t i) {
  static const nlohmann::json none = nlohmann::json::object();
  if (!task.attrs.is_object() || !task.attrs.contains("fused_attrs")) return none;
  const auto& list = task.attrs.at("fused_attrs");
  return list.is_array() && i < list.size() && list[i].is_object() ? list[i] : none;
}

double number_attr(const std::string& who, const nlohmann::json& attrs, const char* key, double fallback) {
  if (!attrs.is_object() || !attrs.contains(key)) return fallback;
  if (!attrs.at(key).is_number()) invalid(who, std::string("attribute '") + key + "' must be a number");
  return attrs.at(key).get<double>();
}

// The fused ops, in the only order the kernel applies them: an Add, then an activation.
struct Epilogue {
  int addends = 0;
  GemmActivation activation = GemmActivation::none;
};

Epilogue read_epilogue(const std::string& who, const sdk::OpTask& task) {
  Epilogue e;
  for (size_t i = 0; i < task.fused_ops.size(); ++i) {
    const std::string& op = task.fused_ops[i];
    if (op == "Add") {
      if (e.activation != GemmActivation::none) unsupported(who, "fuses an Add after its activation; the epilogue adds before it");
      if (++e.addends > 2) unsupported(who, "fuses more than two Adds; the epilogue reads a bias and a residual");
    } else if (op == "Relu" || op == "Gelu") {
      if (e.activation != GemmActivation::none) unsupported(who, "fuses two activations; the epilogue applies one");
      if (op == "Relu") {
        e.activation = GemmActivation::relu;
      } else {
        const auto& attrs = fused_attrs(task, i);
        const std::string form = attrs.value("approximate", std::string("none"));
        if (form != "none" && form != "tanh") invalid(who, "Gelu approximate must be \"none\" or \"tanh\", not \"" + form + "\"");
        e.activation = form == "tanh" ? GemmActivation::gelu_tanh : GemmActivation::gelu_erf;
      }
    } else {
      unsupported(who, "fuses '" + op + "'; the cuda GEMM epilogue takes Add, Relu and Gelu");
    }
  }
  return e;
}

// The element strides of `addend` broadcast to `out` (batch dims, then rows
// and cols), 0 where it is broadcast; its batch dims must be all 1 or all
// the output's, so that one stride steps through them.
void set_addend(GemmProblem& p, const std::string& who, size_t input, const Shape& addend, const Shape& out) {
  if (addend.size() > out.size()) unsupported(who, "addend " + text(addend) + " has more dims than the output " + text(out));
  const Shape s = align_rank(addend, out.size());
  for (size_t d = 0; d < s.size(); ++d)
    if (s[d] != out[d] && s[d] != 1) invalid(who, "addend " + text(addend) + " does not broadcast to the output " + text(out));
  const size_t rank = s.size();
  const int64_t cols = s[rank - 1], rows = s[rank - 2];
  // The first addend is the bias, the second the residual.
  const bool residual = p.has_bias;
  (residual ? p.has_residual : p.has_bias) = true;
  (residual ? p.residual_input : p.bias_input) = static_cast<int>(input);
  int64_t& col_stride = residual ? p.residual_col_stride : p.bias_col_stride;
  int64_t& row_stride = residual ? p.residual_row_stride : p.bias_row_stride;
  int64_t& batch_stride = residual ? p.residual_batch_stride : p.bias_batch_stride;
  col_stride = cols == 1 ? 0 : 1;
  row_stride = rows == 1 ? 0 : cols;
  const Shape batch(s.begin(), s.end() - 2), out_batch(out.begin(), out.end() - 2);
  if (product(batch) == 1) {
    batch_stride = 0;
  } else if (batch == out_batch) {
    batch_stride = rows * cols;
  } else {
    unsupported(who, "addend " + text(addend) + " is broadcast over part of the batch " + text(out_batch) +
                     "; the kernel steps through a whole batch or none");
  }
}

void read_gemm(GemmProblem& p, const sdk::OpTask& task, const std::string& who, size_t anchor_inputs, const Epilogue& e) {
  const Shape& a = task.inputs[0].shape;
  const Shape& b = task.inputs[1].shape;
  if (a.size() != 2 || b.size() != 2) invalid(who, "Gemm takes 2-D A and B, not " + text(a) + " and " + text(b));
  const auto flag = [&](const char* key) { return number_attr(who, task.attrs, key, 0) != 0; };
  p.trans_a = flag("transA");
  p.trans_b = flag("transB");
  p.m = p.trans_a ? a[1] : a[0];
  p.k = p.trans_a ? a[0] : a[1];
  p.n = p.trans_b ? b[0] : b[1];
  if ((p.trans_b ? b[1] : b[0]) != p.k) invalid(who, "inner dims differ: A " + text(a) + ", B " + text(b));
  p.alpha = static_cast<float>(number_attr(who, task.attrs, "alpha", 1.0));
  const float beta = static_cast<float>(number_attr(who, task.attrs, "beta", 1.0));
  const Shape out = {p.m, p.n};
  if (!task.outputs.empty() && task.outputs[0].shape != out)
    invalid(who, "output is " + text(task.outputs[0].shape) + ", expected " + text(out));
  // ONNX's Gemm ignores C when beta is 0, as the cpu device does.
  const bool has_c = anchor_inputs == 3 && beta != 0.0f;
  if (has_c && e.addends > 1) unsupported(who, "adds C and two fused Adds; the epilogue reads a bias and a residual");
  if (has_c) {
    set_addend(p, who, 2, task.inputs[2].shape, out);
    p.beta = beta;
  }
  for (int i = 0; i < e.addends; ++i) {
    const size_t input = anchor_inputs + static_cast<size_t>(i);
    set_addend(p, who, input, task.inputs[input].shape, out);
  }
}

void read_matmul(GemmProblem& p, const sdk::OpTask& task, const std::string& who, size_t anchor_inputs, const Epilogue& e) {
  Shape a = task.inputs[0].shape, b = task.inputs[1].shape;
  if (a.empty() || b.empty()) invalid(who, "needs inputs of rank 1 or more");
  // ONNX's 1-D operands: a vector is a 1-row A or a 1-column B, that dim then dropped from the output.
  const bool drop_m = a.size() == 1, drop_n = b.size() == 1;
  if (drop_m) a.insert(a.begin(), 1);
  if (drop_n) b.push_back(1);
  p.m = a[a.size() - 2];
  p.k = a[a.size() - 1];
  p.n = b[b.size() - 1];
  if (b[b.size() - 2] != p.k) invalid(who, "inner dims differ: A " + text(task.inputs[0].shape) + ", B " + text(task.inputs[1].shape));
  const Shape a_batch(a.begin(), a.end() - 2), b_batch(b.begin(), b.end() - 2);
  const size_t rank = std::max(a_batch.size(), b_batch.size());
  const Shape a_al = align_rank(a_batch, rank), b_al = align_rank(b_batch, rank);
  Shape out_batch(rank);
  for (size_t d = 0; d < rank; ++d) {
    if (a_al[d] != b_al[d] && a_al[d] != 1 && b_al[d] != 1)
      invalid(who, "batch dims " + text(a_batch) + " and " + text(b_batch) + " do not broadcast");
    out_batch[d] = std::max(a_al[d], b_al[d]);
  }
  p.batch = product(out_batch);
  const auto batch_stride = [&](const Shape& own, int64_t matrix, const char* name) -> int64_t {
    if (product(own) == 1) return 0;
    if (own == out_batch) return matrix;
    unsupported(who, std::string(name) + "'s batch dims " + text(own) + " are broadcast over part of the batch " +
                         text(out_batch) + "; the kernel steps through a whole batch or none");
  };
  p.a_batch_stride = batch_stride(a_al, p.m * p.k, "A");
  p.b_batch_stride = batch_stride(b_al, p.k * p.n, "B");

  Shape out = out_batch;
  if (!drop_m) out.push_back(p.m);
  if (!drop_n) out.push_back(p.n);
  if (!task.outputs.empty() && task.outputs[0].shape != out)
    invalid(who, "output is " + text(task.outputs[0].shape) + ", expected " + text(out));
  for (int i = 0; i < e.addends; ++i) {
    // The addend against the output with its dropped dims put back as 1s.
    const size_t input = anchor_inputs + static_cast<size_t>(i);
    Shape addend = align_rank(task.inputs[input].shape, out.size());
    if (task.inputs[input].shape.size() > out.size())
      unsupported(who, "addend " + text(task.inputs[input].shape) + " has more dims than the output " + text(out));
    if (drop_n) addend.push_back(1);
    if (drop_m) addend.insert(addend.end() - 1, 1);
    Shape full = out_batch;
    full.push_back(p.m);
    full.push_back(p.n);
    set_addend(p, who, input, addend, full);
  }
  // Batches of A in a row, sharing one B, are one taller product (as the cpu
  // and sim devices fold them): fewer, fuller tiles. The bias must step
  // through the folded rows as it stepped through batches, and so must the residual.
  if (!p.trans_a && p.batch > 1 && p.a_batch_stride != 0 && p.b_batch_stride == 0 &&
      (!p.has_bias || p.bias_batch_stride == p.m * p.bias_row_stride) &&
      (!p.has_residual || p.residual_batch_stride == p.m * p.residual_row_stride)) {
    p.m *= p.batch;
    p.batch = 1;
    p.a_batch_stride = 0;
    p.bias_batch_stride = 0;
    p.residual_batch_stride = 0;
  }
}

}  // namespace

const char* to_string(GemmActivation activation) {
  switch (activation) {
    case GemmActivation::none: return "none";
    case GemmActivation::relu: return "relu";
    case GemmActivation::gelu_erf: return "gelu_erf";
    case GemmActivation::gelu_tanh: return "gelu_tanh";
  }
  return "none";
}

GemmProblem gemm_problem(const sdk::OpTask& task) {
  const std::string who = task.op_type + " '" + task.name + "'";
  const bool gemm = task.op_type == "Gemm";
  if (!gemm && task.op_type != "MatMul") unsupported(who, "the cuda GEMM takes MatMul and Gemm");
  const auto check = [&](const sdk::TensorDesc& t, const char* role) {
    if (t.dtype != sdk::DType::f32)
      unsupported(who, std::string(role) + " '" + t.name + "' is " + sdk::to_string(t.dtype) + "; the cuda GEMM takes float32 only");
    if (!t.fully_known()) unsupported(who, std::string(role) + " '" + t.name + "' has unknown dims " + text(t.shape));
  };
  for (const auto& t : task.inputs) check(t, "input");
  for (const auto& t : task.outputs) check(t, "output");

  const Epilogue e = read_epilogue(who, task);
  if (task.inputs.size() < static_cast<size_t>(e.addends) + 2)
    invalid(who, "has " + std::to_string(task.inputs.size()) + " inputs for its operands and fused Add");
  const size_t anchor_inputs = task.inputs.size() - static_cast<size_t>(e.addends);
  if (gemm ? anchor_inputs > 3 : anchor_inputs != 2)
    invalid(who, "takes " + std::string(gemm ? "2 or 3" : "2") + " inputs, not " + std::to_string(anchor_inputs));

  GemmProblem p;
  p.op = who;
  p.activation = e.activation;
  if (gemm)
    read_gemm(p, task, who, anchor_inputs, e);
  else
    read_matmul(p, task, who, anchor_inputs, e);
  if (p.batch == 0 || p.m == 0 || p.n == 0) unsupported(who, "has an empty output");
  if (!std::isfinite(p.alpha) || !std::isfinite(p.beta)) invalid(who, "alpha and beta must be finite");
  return p;
}

}  // namespace aoe::cuda
