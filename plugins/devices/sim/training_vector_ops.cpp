#include "training_vector_ops.h"

#include <algorithm>
#include <vector>

#include "aoe/sdk/error.h"
#include "aoe/sdk/tensor_size.h"
#include "on_chip.h"
#include "vector_model.h"

namespace aoe::sim {
namespace {

using sdk::Error;
using sdk::OpTask;
using sdk::StatusCode;
using sdk::TensorDesc;

// What an input is to its kernel: a tensor of the map's size (or one that
// broadcasts to it), one value per channel, one value, or the pooled
// gradient a GlobalAveragePoolGrad spreads back over the map.
enum class Role { full, channel, scalar, pooled };

struct VectorKernel {
  const char* op_type;
  int simple, transcendental;  // per element
  std::vector<Role> roles;
  std::vector<const char*> names;
  size_t outputs;
  bool more_inputs = false;  // AddN: any number of full ones past the listed
  int temps = 0;             // scratch tiles: a polynomial's terms, moments kept while the update is made
  bool fp32 = false;         // maps narrower than float32 cast in, and the output back: a pass each
};

constexpr Role F = Role::full, C = Role::channel, S = Role::scalar;

// Instructions per element [L], as CANN's kernels lower their formulas:
// batch-norm's update x * a + b, with a = scale * invstd and b = offset -
// a * mean once per channel, and a and b each broadcast over the tile (C0 =
// 16 floats, 64 B, is no single 32 B block a repeat could reread) = 4; its
// data gradient (dy + x * c + d) * e, three broadcasts = 7; both computed
// in float32, as TBE's sources do [M]; ReLU's gradient one select; GeLU's
// gradient by erf from x alone (as the cube's epilogue counts it,
// epilogue.cpp); ReLU6's two compares and a select; sigmoid's y · (1 - y)
// · dy a sub and two muls; HardSwish's x/3 + 0.5 (a mul, an add), two
// compares, two selects and the mul by dy; HardSigmoid's alpha · x + beta,
// two compares, a select and the mul by alpha; AddN one add per extra addend;
// weight decay a mul and an add; momentum accum' = m * accum + g, w -= lr *
// accum' (3); Adam's moments (3 and 4), the root, epsilon, the divide, the
// step (10 + 2 exp-class); Adagrad's accum + g · g, the root, the divide
// and the step (4 + 2); RMSProp's mean square (4), its root, epsilon, the
// divide, momentum and the step (9 + 2); Lamb's moments, bias corrections, ratio and
// decay (12 + 2); its weight step a few muls on one ratio (4 + 1); the
// pooled gradient one scale.
const std::vector<VectorKernel>& kernels() {
  static const std::vector<VectorKernel> table = {
      {"BNTrainingUpdate", 4, 0, {F, C, C, C, C}, {"x", "sum", "square_sum", "scale", "offset"}, 3, false, 0, true},
      {"BNTrainingReduceGrad", 7, 0, {F, F, C, C, C, C, C},
       {"dy", "x", "dscale", "doffset", "scale", "batch_mean", "batch_invstd"}, 1, false, 0, true},
      {"ReluGradV2", 1, 0, {F, F}, {"dy", "y"}, 1},
      {"GeLUGrad", 14, 3, {F, F}, {"dy", "x"}, 1, false, 1},
      {"Relu6Grad", 3, 0, {F, F}, {"dy", "x"}, 1},
      {"SigmoidGrad", 3, 0, {F, F}, {"dy", "y"}, 1},
      {"HardSwishGrad", 7, 0, {F, F}, {"dy", "x"}, 1},
      {"HardSigmoidGrad", 6, 0, {F, F}, {"dy", "x"}, 1},
      {"AddN", 0, 0, {F, F}, {"x0", "x1"}, 1, true},
      {"FusedMulAddN", 2, 0, {F, F}, {"grad", "w"}, 1},
      {"ApplyMomentum", 3, 0, {F, F, F}, {"w", "accum", "grad"}, 2},
      {"ApplyAdam", 10, 2, {F, F, F, F}, {"w", "m", "v", "grad"}, 3, false, 1},
      {"ApplyAdagrad", 4, 2, {F, F, F}, {"w", "accum", "grad"}, 2},
      {"ApplyRMSProp", 9, 2, {F, F, F, F}, {"w", "ms", "mom", "grad"}, 3, false, 1},
      {"LambApplyOptimizerAssign", 12, 2, {F, F, F, F}, {"grad", "m", "v", "w"}, 3, false, 1},
      {"LambApplyWeightAssign", 4, 1, {S, S, F, F}, {"w_square_sum", "update_square_sum", "update", "w"}, 1},
      {"GlobalAveragePoolGrad", 1, 0, {Role::pooled}, {"dy"}, 1},
  };
  return table;
}

// A follower: its instructions and the inputs it reads besides the value the
// chain hands it (the first for Relu and Add, the gradient for ApplyMomentum).
struct Follower {
  const char* anchor;
  std::vector<std::string> ops;
  int simple;
  std::vector<const char*> extra_names;
  size_t outputs;
};

const std::vector<Follower>& followers() {
  static const std::vector<Follower> table = {
      {"BNTrainingUpdate", {"Relu"}, 1, {}, 3},
      {"BNTrainingUpdate", {"Add", "Relu"}, 2, {"the shortcut"}, 3},
      {"Mul", {"ApplyMomentum"}, 1 + 3, {"w", "accum"}, 2},  // the unscaling, then momentum
  };
  return table;
}

const VectorKernel* find_kernel(const std::string& op_type) {
  for (const auto& k : kernels())
    if (op_type == k.op_type) return &k;
  return nullptr;
}

const Follower* find_follower(const OpTask& task) {
  for (const auto& f : followers())
    if (task.op_type == f.anchor && task.fused_ops == f.ops) return &f;
  return nullptr;
}


// Whether `t` broadcasts to `main` (numpy: trailing dims equal or 1).
bool broadcasts_to(const std::vector<int64_t>& t, const std::vector<int64_t>& main) {
  if (t.size() > main.size()) return false;
  for (size_t i = 0; i < t.size(); ++i) {
    const int64_t d = t[t.size() - 1 - i], m = main[main.size() - 1 - i];
    if (d != m && d != 1) return false;
  }
  return true;
}

}  // namespace

bool is_training_vector_op(const OpTask& task) {
  if (find_kernel(task.op_type)) return true;
  return task.op_type == "Mul" && !task.fused_ops.empty() && task.fused_ops.front() == "ApplyMomentum";
}

ElementwiseProblem training_vector_problem(const OpTask& task, const Soc& soc) {
  auto bad = [&](const std::string& why) { malformed(task, why); };
  const VectorKernel mul{"Mul", 0, 0, {F, F}, {"grad", "loss_scale"}, 1};
  const VectorKernel* k = task.op_type == "Mul" ? &mul : find_kernel(task.op_type);
  if (!k) not_modelled(soc, task.op_type);
  const Follower* follower = nullptr;
  if (!task.fused_ops.empty() || task.op_type == "Mul") {
    follower = find_follower(task);
    if (!follower) {
      std::string chain;
      for (const auto& op : task.fused_ops) chain += " " + op;
      throw Error(StatusCode::unsupported, soc.target + " simulator does not model" + chain + " fused after " + task.op_type);
    }
  }
  std::vector<Role> roles = k->roles;
  std::vector<std::string> names(k->names.begin(), k->names.end());
  while (k->more_inputs && roles.size() < task.inputs.size()) {
    roles.push_back(F);
    names.push_back("x" + std::to_string(names.size()));
  }
  if (follower)
    for (const char* extra : follower->extra_names) roles.push_back(F), names.emplace_back(extra);
  if (task.inputs.size() != roles.size()) {
    std::string list;
    for (size_t i = 0; i < names.size(); ++i) list += (i ? ", " : "") + names[i];
    bad("takes " + std::to_string(roles.size()) + " inputs (" + list + "), has " + std::to_string(task.inputs.size()));
  }
  require_known_inputs(task.inputs, roles.size(), task.op_type);

  // The map every full-size tensor matches: the first input's, or for the
  // pooled gradient its N x C spread over input_size.
  size_t first_full = 0;
  while (roles[first_full] == Role::scalar || roles[first_full] == Role::channel) ++first_full;
  std::vector<int64_t> main = task.inputs[first_full].shape;
  if (roles[0] == Role::pooled) {
    const auto size = attr_ints(task.attrs, "input_size", {});
    if (main.size() != 4 || main[2] != 1 || main[3] != 1) bad("dy must be N x C x 1 x 1, is " + shape_text(main));
    if (size.size() != 2 || size[0] < 1 || size[1] < 1) bad("input_size must give the map's H and W");
    main = {main[0], main[1], size[0], size[1]};
  }
  for (size_t i = 0; i < roles.size(); ++i) {
    const auto& t = task.inputs[i];
    switch (roles[i]) {
      case Role::full:
      case Role::pooled:
        if (!broadcasts_to(t.shape, main)) bad(names[i] + " is " + shape_text(t.shape) + ", not " + shape_text(main) + " nor a shape that broadcasts to it");
        break;
      case Role::channel:
        if (main.size() < 2) bad(names[i] + " holds one value per channel of a map of rank >= 2; " + names[first_full] + " is " + shape_text(main));
        if (t.elements() != main[1]) bad(names[i] + " is " + shape_text(t.shape) + ", not one value per channel (" + std::to_string(main[1]) + ")");
        break;
      case Role::scalar:
        if (t.elements() != 1) bad(names[i] + " is " + shape_text(t.shape) + ", not one value");
        break;
    }
  }
  const size_t outputs = follower ? follower->outputs : k->outputs;
  if (!task.outputs.empty() && task.outputs.size() != outputs)
    bad("has " + std::to_string(task.outputs.size()) + " outputs, not " + std::to_string(outputs));

  ElementwiseProblem p;
  const auto elements = sdk::checked_elements(main);
  if (!elements || *elements <= 0) bad(names[first_full] + " is empty or holds more elements than a 64-bit count");
  p.elements = *elements;
  if (!task.outputs.empty() && task.outputs[0].elements() != p.elements)
    bad("its first output is " + shape_text(task.outputs[0].shape) + ", not " + shape_text(main));
  p.simple_passes = k->simple + (k->more_inputs ? static_cast<int>(task.inputs.size()) - 1 : 0);
  const int follower_passes = follower ? follower->simple : 0;
  p.transcendental_passes = k->transcendental;
  p.temps = k->temps;
  p.out_bytes = sdk::dtype_bytes(task.outputs.empty() ? task.inputs[first_full].dtype : task.outputs[0].dtype);
  if (p.out_bytes == 0) bad("its output has an undefined dtype");
  p.bytes = p.out_bytes;
  const auto on_chip = OnChip::of(task);
  p.out_on_chip = on_chip.output(0);
  // A tensor of the map's size streams; a smaller one stays in UB where it
  // fits, else is read again tile by tile. Further outputs of the map's size
  // stream out as the inputs stream in.
  auto place = [&](const TensorDesc& t, bool kept) {
    const int b = sdk::dtype_bytes(t.dtype);
    if (b == 0) bad((t.name.empty() ? std::string("a tensor") : t.name) + " has an undefined dtype");
    p.bytes = std::max(p.bytes, b);
    if (t.elements() == p.elements || t.elements() * b > soc.ub_bytes / 8) {
      p.streamed_bytes.push_back(b);
      p.streamed_on_chip.push_back(kept);
    } else {
      p.broadcast_elements.push_back(t.elements());
      p.broadcast_bytes.push_back(b);
      p.broadcast_on_chip.push_back(kept);
    }
  };
  for (size_t i = 0; i < task.inputs.size(); ++i) place(task.inputs[i], on_chip.input(i));
  for (size_t i = 1; i < task.outputs.size(); ++i) place(task.outputs[i], on_chip.output(i));
  if (k->fp32) {
    p.bytes = std::max(p.bytes, 4);
    for (size_t i = 0; i < k->roles.size(); ++i)
      if (k->roles[i] == F && sdk::dtype_bytes(task.inputs[i].dtype) < 4) ++p.simple_passes;
    if (p.out_bytes < 4) ++p.simple_passes;
  }
  // A follower works on the kernel's result as written: after an fp32
  // kernel's cast to a narrower output, at that output's width.
  (k->fp32 && p.out_bytes < p.bytes ? p.output_passes : p.simple_passes) += follower_passes;
  return p;
}

}  // namespace aoe::sim
