// DepthToSpace (DCR and CRD modes) and SpaceToDepth on N x C x H x W: each
// is a reshape to six dims, a transpose and a reshape back, so the
// Transpose kernel runs it, with its knobs, on that six-dim view.
#include "op_factories.h"

#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"
#include "op_util.h"
#include "reference.h"
#include "transpose_op.h"

namespace aoe::cpu {
namespace {

class DepthSpaceOp final : public CpuOp {
 public:
  DepthSpaceOp(const sdk::OpTask& task, const HostCpu& host) : to_space_(task.op_type == "DepthToSpace") {
    const std::string who = task.op_type + " '" + task.name + "'";
    if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after " + task.op_type);
    require_dtypes(task, Takes::held);
    require_inputs(task, 1, 1);
    const Shape in = task.inputs[0].shape;
    block_ = int_attr(task.attrs, "blocksize", 0);
    const std::string mode = string_attr(task.attrs, "mode", "DCR");
    crd_ = to_space_ && mode == "CRD";
    if (to_space_ && mode != "DCR" && mode != "CRD") invalid(who + ": mode '" + mode + "' is neither DCR nor CRD");
    if (in.size() != 4 || block_ < 1) invalid(who + " takes N x C x H x W and a blocksize of 1 or more");
    const int64_t n = in[0], c = in[1], h = in[2], w = in[3], b = block_;
    Shape view, out;
    std::vector<int64_t> perm;
    if (to_space_) {
      if (c % (b * b) != 0) invalid(who + ": " + std::to_string(c) + " channels are not a multiple of blocksize squared");
      view = crd_ ? Shape{n, c / (b * b), b, b, h, w} : Shape{n, b, b, c / (b * b), h, w};
      perm = crd_ ? std::vector<int64_t>{0, 1, 4, 2, 5, 3} : std::vector<int64_t>{0, 3, 4, 1, 5, 2};
      out = {n, c / (b * b), h * b, w * b};
    } else {
      if (h % b != 0 || w % b != 0) invalid(who + ": H and W must be multiples of the blocksize");
      view = {n, c, h / b, b, w / b, b};
      perm = {0, 3, 5, 1, 2, 4};
      out = {n, c * b * b, h / b, w / b};
    }
    require_output_shape(task, out);
    sdk::OpTask t;
    t.name = task.name;
    t.op_type = "Transpose";
    t.attrs["perm"] = perm;
    t.inputs = {task.inputs[0]};
    t.inputs[0].shape = view;
    transpose_ = std::make_unique<TransposeOp>(t, host);
    inputs_ = {in};
    outputs_ = {out};
    space_ = transpose_->space();
  }

  std::string check(const sdk::Config& c) const override { return transpose_->check(c); }

  std::unique_ptr<Kernel> build(const sdk::Config& c) const override { return transpose_->build(c); }

  // From the definitions, element by element: DCR reads channel
  // (bh * b + bw) * C' + c, CRD c * b * b + bh * b + bw, SpaceToDepth writes so.
  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const Shape& x = inputs_[0];
    const Shape& y = outputs_[0];
    const int64_t b = block_;
    const Shape& space = to_space_ ? y : x;  // the N x C' x H*b x W*b side
    const Shape& depth = to_space_ ? x : y;  // N x C'*b*b x H x W
    const int64_t cs = space[1];
    for (int64_t n = 0; n < space[0]; ++n)
      for (int64_t c = 0; c < cs; ++c)
        for (int64_t h = 0; h < space[2]; ++h)
          for (int64_t w = 0; w < space[3]; ++w) {
            const int64_t bh = h % b, bw = w % b;
            const int64_t cd = crd_ ? c * b * b + bh * b + bw : (bh * b + bw) * cs + c;
            const int64_t s = ((n * cs + c) * space[2] + h) * space[3] + w;
            const int64_t d = ((n * depth[1] + cd) * depth[2] + h / b) * depth[3] + w / b;
            if (to_space_) out[0][s] = in[0][d];
            else out[0][d] = in[0][s];
          }
  }

 private:
  bool to_space_ = true;
  bool crd_ = false;
  int64_t block_ = 1;
  std::unique_ptr<TransposeOp> transpose_;
};

}  // namespace

std::unique_ptr<CpuOp> make_depth_space_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<DepthSpaceOp>(task, host);
}

}  // namespace aoe::cpu
