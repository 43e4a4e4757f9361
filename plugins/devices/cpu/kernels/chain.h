// Elementwise ops applied to an output row by row: the fused epilogue of
// GEMM and convolution, and the body of elementwise ops themselves.
//
// An output is viewed as rows x cols. Each input of the chain is read at
// (row, col) as data[row_offset[row] + col * col_step]: col_step 1 for an
// input that runs along the cols, 0 for one broadcast across them; or, with
// a period, data[row_offset[row] + col % period]. Any numpy broadcast fits,
// given a split of the output dims that suits it.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "isa.h"
#include "shape.h"
#include "thread_pool.h"

namespace aoe::cpu {

struct ChainStep {
  EltOp op = EltOp::copy;
  float p0 = 0, p1 = 0;
  int operand = -1;  // binary ops: index into the chain's operands
};

// An ONNX elementwise op type and its attributes as one step. Throws
// sdk::Error(unsupported) for an op type the kernels lack.
ChainStep chain_step(const std::string& op_type, const nlohmann::json& attrs);
bool is_elementwise_op(const std::string& op_type);
bool is_binary_op(const std::string& op_type);
// Every op type chain_step() knows.
std::vector<std::string> elementwise_op_types();
// attrs["fused_attrs"][i], or an empty object.
nlohmann::json fused_attrs(const nlohmann::json& attrs, size_t i);

struct OperandLayout {
  std::vector<int64_t> row_offset;
  int64_t col_step = 0;
  // Where > 0, the input varies along the last col dim alone, of `period`
  // values it repeats across the others (read with col_step 1 within one):
  // a per-channel operand of a blocked tensor, its lanes.
  int64_t period = 0;
};

// Where an input of shape `in` broadcast to `out` is read, with `out` split
// into rows (dims before `split`) and cols (dims from `split`). Empty when
// the input varies along only some of the col dims, unless `periodic` and
// those are the last one alone.
std::optional<OperandLayout> operand_layout(const Shape& in, const Shape& out, size_t split, bool periodic = false);

// x[0, n) op= the operand's period values y, x starting at `col` of its row.
void binary_periodic(const IsaKernels& isa, const ChainStep& step, float* x, const float* y, int64_t col, int64_t n,
                     int64_t period);

struct Operand {
  const float* data = nullptr;
  const OperandLayout* layout = nullptr;
};

struct Chain {
  std::vector<ChainStep> steps;
  std::vector<Operand> operands;

  bool empty() const { return steps.empty(); }
  // x[0, n) is the output at (row, col .. col + n).
  void apply(const IsaKernels& isa, float* x, int64_t row, int64_t col, int64_t n) const {
    for (const auto& s : steps) {
      if (s.operand < 0) {
        isa.unary(s.op, s.p0, s.p1, x, n);
      } else {
        const Operand& o = operands[static_cast<size_t>(s.operand)];
        const float* y = o.data + o.layout->row_offset[static_cast<size_t>(row)];
        if (o.layout->period > 0)
          binary_periodic(isa, s, x, y, col, n, o.layout->period);
        else
          isa.binary(s.op, s.p0, x, y + col * o.layout->col_step, o.layout->col_step, n);
      }
    }
  }
};

// The chain over `rows` finished rows of `cols` values from `data`, the
// first numbered `row0`, on `threads` of `pool`: for a kernel (OpenBLAS's,
// oneDNN's) that hands its whole output to the fused ops at the end.
void apply_to_rows(const Chain& chain, const IsaKernels& isa, float* data, int64_t row0, int64_t rows, int64_t cols,
                   int threads, ThreadPool& pool);

// The scalar semantics of a step, for the reference implementations.
double apply_step(const ChainStep& step, double x, double y);

}  // namespace aoe::cpu
