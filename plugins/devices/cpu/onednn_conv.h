// oneDNN's convolution primitive as an implementation the tuner may pick over
// the device's own kernels, shape by shape (Conv's "algo" knob's value
// "onednn"). Offered only where the device was built with oneDNN.
#pragma once

#include <memory>
#include <vector>

#include "chain.h"
#include "conv.h"

namespace aoe::cpu {

inline constexpr const char* kOneDnnLabel = "onednn";

bool onednn_built();

// One convolution of one shape, its primitive made once. Activations are
// NCHW (lanes 0) or channel-blocked by `lanes` (the device's NCHWc, which is
// oneDNN's nChw8c / nChw16c); weights arrive as the model has them,
// [m][c/group][kh][kw], and are reordered once into the primitive's layout.
class OneDnnConv {
 public:
  // `post_ops`: unary steps (no operand) oneDNN applies to each output as it
  // is written; OneDnnConv::takes() says which it can. It runs on `threads`
  // of oneDNN's own (OpenMP) threads.
  OneDnnConv(const ConvShape& s, int lanes, bool bias, const std::vector<ChainStep>& post_ops, int threads);
  ~OneDnnConv();
  OneDnnConv(const OneDnnConv&) = delete;
  OneDnnConv& operator=(const OneDnnConv&) = delete;

  static bool takes(const ChainStep& step);
  void set_weights(const float* weights);
  void run(const float* src, const float* bias, float* dst);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace aoe::cpu
