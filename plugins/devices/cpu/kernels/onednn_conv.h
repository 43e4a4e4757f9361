// oneDNN's convolution primitive as an implementation the tuner may pick over
// the device's own kernels, shape by shape (Conv's "algo" knob's value
// "onednn"). Offered only where the device was built with oneDNN.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "chain.h"
#include "conv.h"
#include "onednn_runtime.h"
#include "thread_pool.h"

namespace aoe::cpu {

inline constexpr const char* kOneDnnWinogradLabel = "onednn_winograd";

// One convolution of one shape, its primitive made once. Its input and its
// output are each NCHW (lanes 0) or channel-blocked by that many lanes (the
// device's NCHWc, which is oneDNN's nChw8c / nChw16c); weights arrive as the model has them,
// [m][c/group][kh][kw], and are reordered once into the primitive's layout.
class OneDnnConv {
 public:
  // `post_ops`: the ops fused after the convolution, in order; a binary one's
  // operand indexes `operand_full`, which says whether that operand is a
  // whole tensor of the output's shape in the output's layout (a residual).
  // oneDNN applies the longest prefix it has a fast kernel for (unary
  // activations, Add and Mul of whole operands) as it writes the output;
  // taken() says how many, the caller runs the rest. It runs on `threads`
  // threads of the device's pool, each running a part of it (whole images,
  // else whole channel blocks) through a primitive of its own. With
  // `winograd`, oneDNN's Winograd convolution (fewer multiplies for a 3x3
  // stride-1 convolution; where oneDNN has one for the shape).
  OneDnnConv(const ConvShape& s, int src_lanes, int dst_lanes, bool bias, const std::vector<ChainStep>& post_ops,
             const std::vector<bool>& operand_full, int threads, bool winograd = false);
  ~OneDnnConv();
  OneDnnConv(const OneDnnConv&) = delete;
  OneDnnConv& operator=(const OneDnnConv&) = delete;

  size_t taken() const;
  void set_weights(const float* weights);
  // Where the reordered weights lie, and their bytes.
  std::vector<std::pair<const void*, size_t>> weights_memory() const;
  // `operands`: the fused ops' operands, as `post_ops` index them.
  void run(const float* src, const float* bias, const std::vector<const float*>& operands, float* dst, ThreadPool& pool);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace aoe::cpu
