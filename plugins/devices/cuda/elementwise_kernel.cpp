#include "elementwise_kernel.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "aoe/sdk/error.h"
#include "op_source.h"

namespace aoe::cuda {
namespace {

// Expressions of v0 (and v1, v2 for binary and ternary ops) and the #defined parameters.
const std::map<std::string, std::string>& unary_ops() {
  static const std::map<std::string, std::string> ops = {
      {"Relu", "(v0 > 0.0f ? v0 : 0.0f)"},
      {"Sigmoid", "(1.0f / (1.0f + expf(-v0)))"},
      {"Tanh", "tanhf(v0)"},
      {"Exp", "expf(v0)"},
      {"Log", "logf(v0)"},
      {"Sqrt", "sqrtf(v0)"},
      {"Reciprocal", "(1.0f / v0)"},
      {"Neg", "(-v0)"},
      {"Abs", "fabsf(v0)"},
      {"Floor", "floorf(v0)"},
      {"Ceil", "ceilf(v0)"},
      {"Round", "rintf(v0)"},
      {"Sign", "(v0 > 0.0f ? 1.0f : v0 < 0.0f ? -1.0f : v0)"},
      {"Erf", "erff(v0)"},
      {"Sin", "sinf(v0)"},
      {"Cos", "cosf(v0)"},
      {"Softsign", "(v0 / (1.0f + fabsf(v0)))"},
      {"Not", "(v0 == 0.0f ? 1.0f : 0.0f)"},
      {"LeakyRelu", "(v0 < 0.0f ? ALPHA * v0 : v0)"},
      {"Elu", "(v0 < 0.0f ? ALPHA * (expf(v0) - 1.0f) : v0)"},
      {"Selu", "(GAMMA * (v0 < 0.0f ? ALPHA * (expf(v0) - 1.0f) : v0))"},
      {"HardSigmoid", "fminf(1.0f, fmaxf(0.0f, ALPHA * v0 + BETA))"},
      {"HardSwish", "(v0 * fminf(1.0f, fmaxf(0.0f, v0 / 6.0f + 0.5f)))"},
      {"Swish", "(v0 / (1.0f + expf(-ALPHA * v0)))"},
      // log(1 + e^x) without overflow where e^x would.
      {"Softplus", "(v0 > 0.0f ? v0 + log1pf(expf(-v0)) : log1pf(expf(v0)))"},
      {"Identity", "v0"},
      {"Expand", "v0"},
  };
  return ops;
}

const std::map<std::string, std::string>& binary_ops() {
  static const std::map<std::string, std::string> ops = {
      {"Add", "(v0 + v1)"},
      {"Sub", "(v0 - v1)"},
      {"Mul", "(v0 * v1)"},
      {"Div", "(v0 / v1)"},
      {"Pow", "powf(v0, v1)"},
      {"PRelu", "(v0 < 0.0f ? v1 * v0 : v0)"},
      {"Equal", "(v0 == v1 ? 1.0f : 0.0f)"},
      {"Less", "(v0 < v1 ? 1.0f : 0.0f)"},
      {"LessOrEqual", "(v0 <= v1 ? 1.0f : 0.0f)"},
      {"Greater", "(v0 > v1 ? 1.0f : 0.0f)"},
      {"GreaterOrEqual", "(v0 >= v1 ? 1.0f : 0.0f)"},
      {"And", "(v0 != 0.0f && v1 != 0.0f ? 1.0f : 0.0f)"},
      {"Or", "(v0 != 0.0f || v1 != 0.0f ? 1.0f : 0.0f)"},
      {"Xor", "((v0 != 0.0f) != (v1 != 0.0f) ? 1.0f : 0.0f)"},
  };
  return ops;
}

// Sum, Max, Min and Mean take one to eight inputs.
const std::map<std::string, std::string>& variadic_ops() {
  static const std::map<std::string, std::string> ops = {
      {"Sum", "(@A + @B)"}, {"Mean", "(@A + @B)"}, {"Max", "fmaxf(@A, @B)"}, {"Min", "fminf(@A, @B)"}};
  return ops;
}

const char* const kGeluErf = "(0.5f * v0 * (1.0f + erff(v0 * 0.7071067811865476f)))";
const char* const kGeluTanh = "(0.5f * v0 * (1.0f + tanhf(0.7978845608028654f * (v0 + 0.044715f * v0 * v0 * v0))))";

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
  return text;
}

// The expression, its parameters as #define lines, and the node inputs it reads as v0, v1...
struct Expression {
  std::string text, defines;
  std::vector<int> inputs;
  // Per input, the shape it is read as where that is not its own (BatchNormalization's [C] as [1, C, 1, 1]).
  std::vector<Dims> read_as;
  // Per input, the values of a constant the node holds as an attribute (Where's condition), written into the source.
  std::vector<std::vector<int64_t>> constants = {};
};

Expression clip(const OpNode& n) {
  Expression x{"v0", "", {0}, {}};
  // Bounds: attributes (opset < 11, or inputs the frontend folded), else inputs 1 and 2 read at run time.
  const auto bound = [&](const char* attr, size_t input, const char* fn) {
    if (n.has_attr(attr)) {
      x.defines += define(attr[1] == 'i' ? "LOWER" : "UPPER", float_literal(n.float_attr(attr, 0)));
      x.text = std::string(fn) + "(" + x.text + ", " + (attr[1] == 'i' ? "LOWER" : "UPPER") + ")";
    } else if (n.has_input(input)) {
      if (element_count(n.in_shape(input)) != 1) n.invalid(std::string(attr) + " must be a single value");
      x.text = std::string(fn) + "(" + x.text + ", v" + std::to_string(x.inputs.size()) + ")";
      x.inputs.push_back(static_cast<int>(input));
    }
  };
  bound("min", 1, "fmaxf");
  bound("max", 2, "fminf");
  return x;
}

Expression cast(const OpNode& n) {
  switch (n.output(0).dtype) {
    case sdk::DType::f32:
    case sdk::DType::f64: return {"v0", "", {0}, {}};
    case sdk::DType::boolean: return {"(v0 != 0.0f ? 1.0f : 0.0f)", "", {0}, {}};
    case sdk::DType::i8: case sdk::DType::i16: case sdk::DType::i32: case sdk::DType::i64:
    case sdk::DType::u8: case sdk::DType::u16: case sdk::DType::u32: case sdk::DType::u64:
      // Integers are held as whole floats: a cast to one drops the fraction.
      return {"truncf(v0)", "", {0}, {}};
    default:
      n.unsupported(std::string("a cast to ") + sdk::to_string(n.output(0).dtype) + " (runs hold float32 and integers as floats)");
  }
}

Expression batch_norm(const OpNode& n) {
  const Dims x = n.in_shape(0);
  if (x.size() < 2) n.invalid("takes an input of rank >= 2, not " + to_string(x));
  if (n.int_attr("training_mode", 0) != 0 || n.output_count() > 1) n.unsupported("training mode (the run is inference)");
  Expression e;
  e.defines = define("EPSILON", float_literal(n.float_attr("epsilon", 1e-5)));
  e.text = "((v0 - v3) * (v1 / sqrtf(v4 + EPSILON)) + v2)";
  e.inputs = {0, 1, 2, 3, 4};
  Dims per_channel(x.size(), 1);
  per_channel[1] = x[1];
  e.read_as = {x, per_channel, per_channel, per_channel, per_channel};
  for (int i = 1; i < 5; ++i)
    if (element_count(n.in_shape(static_cast<size_t>(i))) != x[1])
      n.invalid("input " + std::to_string(i) + " of " + to_string(n.in_shape(static_cast<size_t>(i))) + " for " + std::to_string(x[1]) + " channels");
  return e;
}

Expression expression(const OpNode& n) {
  const std::string& op = n.op();
  if (op == "Gelu") {
    const std::string approximate = n.string_attr("approximate", "none");
    if (approximate != "none" && approximate != "tanh") n.invalid("approximate must be \"none\" or \"tanh\", not \"" + approximate + "\"");
    return {approximate == "tanh" ? kGeluTanh : kGeluErf, "", {0}, {}};
  }
  if (op == "Clip") return clip(n);
  if (op == "Cast") return cast(n);
  if (op == "BatchNormalization") return batch_norm(n);
  if (op == "Where") {
    Expression e{"(v0 != 0.0f ? v1 : v2)", "", {0, 1, 2}, {}};
    // A constant condition the frontend folded into the attribute "condition".
    if (n.has_attr("condition")) {
      e.constants = {n.ints_attr("condition")};
      if (static_cast<int64_t>(e.constants[0].size()) != element_count(n.in_shape(0)))
        n.invalid(std::to_string(e.constants[0].size()) + " condition values for a condition of " + to_string(n.in_shape(0)));
      if (e.constants[0].size() > 65536) n.unsupported("a constant condition of more than 65536 values");
    }
    return e;
  }
  if (const auto it = unary_ops().find(op); it != unary_ops().end()) {
    Expression e{it->second, "", {0}, {}};
    if (op == "LeakyRelu") e.defines = define("ALPHA", float_literal(n.float_attr("alpha", 0.01)));
    if (op == "Elu" || op == "Swish") e.defines = define("ALPHA", float_literal(n.float_attr("alpha", 1.0)));
    if (op == "Selu")
      e.defines = define("ALPHA", float_literal(n.float_attr("alpha", 1.67326319217681884765625))) +
                  define("GAMMA", float_literal(n.float_attr("gamma", 1.05070102214813232421875)));
    if (op == "HardSigmoid")
      e.defines = define("ALPHA", float_literal(n.float_attr("alpha", 0.2))) + define("BETA", float_literal(n.float_attr("beta", 0.5)));
    return e;
  }
  if (const auto it = binary_ops().find(op); it != binary_ops().end()) return {it->second, "", {0, 1}, {}};
  if (const auto it = variadic_ops().find(op); it != variadic_ops().end()) {
    const size_t count = n.input_count();
    if (count < 1 || count > static_cast<size_t>(kOpKernelInputs))
      n.unsupported("takes 1 to " + std::to_string(kOpKernelInputs) + " inputs here, not " + std::to_string(count));
    Expression e{"v0", "", {0}, {}};
    for (size_t i = 1; i < count; ++i) {
      e.text = replace_all(replace_all(it->second, "@A", e.text), "@B", "v" + std::to_string(i));
      e.inputs.push_back(static_cast<int>(i));
    }
    if (op == "Mean") e.text = "(" + e.text + " / " + float_literal(static_cast<double>(count)) + ")";
    return e;
  }
  n.unsupported("no elementwise kernel for it");
}

}  // namespace

bool is_elementwise_op(const std::string& op) {
  return op == "Gelu" || op == "Clip" || op == "Cast" || op == "Where" || op == "BatchNormalization" || unary_ops().count(op) ||
         binary_ops().count(op) || variadic_ops().count(op);
}

namespace {

// The kernel computing `ex` over the node's output, each input read where the broadcast puts it.
OpKernel kernel_of(const OpNode& n, const Expression& ex, const GpuLimits& limits) {
  const Dims out = n.out_shape(0);
  IndexWalk walk;
  walk.dims = out;
  std::string body, constants;
  OpKernel kernel;
  for (size_t k = 0; k < ex.inputs.size(); ++k) {
    const Dims in = k < ex.read_as.size() ? ex.read_as[k] : n.in_shape(static_cast<size_t>(ex.inputs[k]));
    bool ok = false;
    walk.strides.push_back(broadcast_strides(in, out, ok));
    if (!ok) n.invalid("input " + std::to_string(ex.inputs[k]) + " of " + to_string(in) + " does not broadcast to the output's " + to_string(out));
    std::string from;
    if (k < ex.constants.size() && !ex.constants[k].empty()) {
      from = "aoe_constant" + std::to_string(k);
      constants += "__device__ const float " + from + "[" + std::to_string(ex.constants[k].size()) + "] = {";
      for (size_t i = 0; i < ex.constants[k].size(); ++i) constants += (i ? ", " : "") + std::to_string(ex.constants[k][i]);
      constants += "};\n";
    } else {
      from = operand(kernel, ex.inputs[k]);
    }
    body += "    const float v" + std::to_string(k) + " = " + from + "[o" + std::to_string(k) + "];\n";
  }
  body += "    y[e] = EXPRESSION;\n";
  const auto inputs = kernel.inputs;
  kernel = walk_kernel(walk, ex.defines + define("EXPRESSION", ex.text) + constants, body, limits);
  kernel.inputs = inputs;
  return kernel;
}

// `next`'s parameters renamed apart from those of the ops before it (the `at`-th of the chain).
Expression renamed(Expression next, size_t at) {
  std::string defines;
  for (size_t line = 0; line < next.defines.size();) {
    const size_t end = next.defines.find('\n', line);
    const std::string text = next.defines.substr(line, end - line);
    const size_t name_end = text.find(' ', 8);  // after "#define "
    const std::string name = text.substr(8, name_end - 8), fresh = name + "_" + std::to_string(at);
    defines += "#define " + fresh + text.substr(name_end) + "\n";
    next.text = replace_all(next.text, name, fresh);
    line = end == std::string::npos ? next.defines.size() : end + 1;
  }
  next.defines = defines;
  return next;
}

}  // namespace

std::vector<OpKernel> elementwise_kernels(const OpNode& n, const GpuLimits& limits) { return {kernel_of(n, expression(n), limits)}; }

bool follows_in_chain(const sdk::Graph& graph, const sdk::Node& node) {
  const std::string& op = node.op_type;
  if (!is_elementwise_op(op) || op == "Expand" || op == "BatchNormalization" || op == "Where") return false;
  if (node.inputs.empty() || node.inputs[0].empty() || node.outputs.size() != 1 || node.outputs[0].empty()) return false;
  if (graph.tensor(node.inputs[0]).shape != graph.tensor(node.outputs[0]).shape) return false;
  // It reads the value before it alone: a Clip whose bounds the frontend
  // made attributes does, though its node still names them as inputs.
  try {
    const Expression e = expression(OpNode(graph, node));
    return e.inputs == std::vector<int>{0} && e.constants.empty();
  } catch (const sdk::Error&) {
    return false;  // no kernel computes it: it runs, and is refused, alone
  }
}

namespace {

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// `text` with each name (not part of a longer one) that `by` maps replaced
// by its text, in one pass, so no replacement is read again.
std::string substituted(const std::string& text, const std::map<std::string, std::string>& by) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (!name_char(text[i])) {
      out += text[i++];
      continue;
    }
    size_t end = i;
    while (end < text.size() && name_char(text[end])) ++end;
    const auto it = by.find(text.substr(i, end - i));
    out += it == by.end() ? text.substr(i, end - i) : it->second;
    i = end;
  }
  return out;
}

bool broadcasts_to(const Dims& in, const Dims& out) {
  bool ok = false;
  broadcast_strides(in, out, ok);
  return ok;
}

// Past this, a chain's expression (each value written out wherever it is
// read) stops growing: NVRTC folds the repeats, but would parse them all.
constexpr size_t kMostChainText = 4096;

}  // namespace

bool is_scalar(const sdk::Graph& graph, const std::string& tensor, const ScalarOf& scalar) {
  const auto& t = graph.tensor(tensor);
  return scalar && t.constant && t.elements() == 1 && scalar(tensor).has_value();
}

bool joins_chain(const sdk::Graph& graph, const sdk::Node& node, const std::set<std::string>& values, const ScalarOf& scalar,
                 const std::map<std::string, std::string>& shared, const OperandCheck& further) {
  if (values.empty() || node.outputs.size() != 1 || node.outputs[0].empty()) return false;
  // Every value of a chain has the shape of the tensor it enters with.
  const Dims& chain_shape = graph.tensor(*values.begin()).shape;
  if (graph.tensor(node.outputs[0]).shape != chain_shape) return false;
  if (follows_in_chain(graph, node)) return values.count(node.inputs[0]) > 0;
  if (!is_elementwise_op(node.op_type) || node.op_type == "Expand") return false;
  Expression e;
  try {
    e = expression(OpNode(graph, node));
  } catch (const sdk::Error&) {
    return false;  // no kernel computes it: it runs, and is refused, alone
  }
  if (!e.constants.empty() || !e.read_as.empty()) return false;
  bool reads_value = false;
  for (const int input : e.inputs) {
    const std::string& t = node.inputs.at(static_cast<size_t>(input));
    const bool value = values.count(t) > 0;
    const bool operand = further && broadcasts_to(graph.tensor(t).shape, chain_shape) && further(t);
    if (!value && !shared.count(t) && !is_scalar(graph, t, scalar) && !operand) return false;
    reads_value = reads_value || value;
  }
  return reads_value;
}

std::vector<std::string> further_operands(const sdk::Graph& graph, const sdk::Node& node, const std::set<std::string>& values,
                                          const ScalarOf& scalar, const std::map<std::string, std::string>& shared) {
  std::vector<std::string> further;
  if (follows_in_chain(graph, node)) return further;
  for (const int input : expression(OpNode(graph, node)).inputs) {
    const std::string& t = node.inputs.at(static_cast<size_t>(input));
    if (!values.count(t) && !shared.count(t) && !is_scalar(graph, t, scalar) &&
        std::find(further.begin(), further.end(), t) == further.end())
      further.push_back(t);
  }
  return further;
}

std::string ChainExpression::of(const std::string& value) const { return substituted(text, {{kChainEntering, value}}); }

bool ChainExpression::fits() const { return text.size() <= kMostChainText; }

ChainExpression follow_on_expression(const sdk::Graph& graph, const std::string& entering, const std::vector<const sdk::Node*>& chain,
                                     size_t first_position, const ScalarOf& scalar, const std::map<std::string, std::string>& shared) {
  ChainExpression ex;
  // Each value of the chain as an expression of what enters it and `shared`.
  std::map<std::string, std::string> text_of = shared;
  text_of[entering] = kChainEntering;
  std::set<std::string> values = {entering};
  for (size_t i = 0; i < chain.size(); ++i) {
    const OpNode n(graph, *chain[i]);
    if (!joins_chain(graph, *chain[i], values, scalar, shared))
      n.invalid("reads more than the values of the ops before it and constant scalars, so it cannot join their kernel");
    const Expression next = renamed(expression(n), first_position + i);
    std::map<std::string, std::string> operands;
    for (size_t k = 0; k < next.inputs.size(); ++k) {
      const std::string& t = chain[i]->inputs.at(static_cast<size_t>(next.inputs[k]));
      operands["v" + std::to_string(k)] = text_of.count(t) ? text_of[t] : float_literal(*scalar(t));
    }
    ex.text = substituted(next.text, operands);
    ex.defines += next.defines;
    text_of[chain[i]->outputs[0]] = ex.text;
    values.insert(chain[i]->outputs[0]);
  }
  return ex;
}

void ChainOperands::add(const std::string& tensor) {
  names.emplace(tensor, "v" + std::to_string(first_reads + further.size()));
  further.push_back(tensor);
}

ChainOperands chain_operands(const OpNode& first) {
  ChainOperands operands;
  if (!is_elementwise_op(first.op())) return operands;
  // Every input the expression reads is loaded at each output element's
  // place, where the broadcast puts it, so later ops may read it as it is.
  const Expression ex = expression(first);
  operands.first_reads = ex.inputs.size();
  for (size_t k = 0; k < ex.inputs.size(); ++k)
    operands.names.emplace(first.node().inputs.at(static_cast<size_t>(ex.inputs[k])), "v" + std::to_string(k));
  return operands;
}

OpKernel elementwise_chain_kernel(const sdk::Graph& graph, const std::vector<const sdk::Node*>& chain,
                                  const std::vector<std::string>& further, const GpuLimits& limits, const ScalarOf& scalar) {
  const OpNode first(graph, *chain.front());
  Expression ex = expression(first);
  ChainOperands operands = chain_operands(first);
  // The further operands are the chain's inputs past the first op's, each read as its own shape.
  for (size_t k = ex.read_as.size(); k < ex.inputs.size(); ++k) ex.read_as.push_back(first.in_shape(static_cast<size_t>(ex.inputs[k])));
  for (const auto& t : further) {
    operands.add(t);
    ex.inputs.push_back(static_cast<int>(first.input_count() + operands.further.size() - 1));
    ex.read_as.push_back(graph.tensor(t).shape);
  }
  const ChainExpression rest =
      follow_on_expression(graph, chain.front()->outputs.at(0), {chain.begin() + 1, chain.end()}, 1, scalar, operands.names);
  ex.text = rest.of(ex.text);
  ex.defines += rest.defines;
  return kernel_of(first, ex, limits);
}

}  // namespace aoe::cuda
