// What every vector-unit kernel shares: UB tiles streamed GM -> UB ->
// vector -> UB -> GM by each core, the buffers a tile needs, and its cost.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "aoe/sdk/graph.h"
#include "aoe/sdk/measurement.h"
#include "aoe/sdk/op_task.h"
#include "aoe/sdk/tuning_space.h"
#include "soc.h"

namespace aoe::sim {

// UB and GM moves are aligned to one 32 B data block.
constexpr int64_t kUbAlignBytes = 32;

int64_t ceil_div64(int64_t a, int64_t b);
int64_t align_up64(int64_t a, int64_t b);
// CANN's vector kernels split their elements over cores so that each gets
// at least this many [M: the block_dim of the vector kernels in an Ascend
// 910's training-step profiles, ResNet-50's and BERT's: 100 elements run on
// 1 core, 512 on 2, 2048 on 8, 204800 on 30, and a sum of squares of 768 on
// 3; the profiles label fp16 and fp32 tensors alike. Casts and the elewise
// DSL's single ops take more per core there: elementwise_model.cpp].
constexpr int64_t kMinVectorElementsPerCore = 256;

// Elements of `bytes` each in one 32 B block.
int64_t block_elements(int bytes);

// Bytes usable per buffer copy: double buffering keeps two of each.
int64_t ub_capacity(const Soc& soc, bool db);

// The vector cost class of an instruction: full-width (add, mul, max,
// cast), exp-class at the reduced rate, or a cross-lane row reduce.
enum class VecClass { simple, transcendental, row_reduce };

// Cycles of one instruction sequence over `elements` values of `bytes` each.
double vector_cycles(const Soc& soc, VecClass op, int64_t elements, int bytes);
// Cross-lane reduces of `rows` rows of `row_elements` each (vcadd/vcmax).
double row_reduce_cycles(const Soc& soc, int64_t rows, int64_t row_elements, int bytes);

// One GM <-> UB move of `bytes` by one of `active` cores: its MTE port and
// its share of HBM both bound it, plus the fixed DMA cost. `on_chip` of the
// bytes belong to tensors kept in L2: they skip HBM (and are written at the
// L2 rate).
double gm_to_ub_cycles(const Soc& soc, double bytes, int64_t active, double on_chip = 0);
double ub_to_gm_cycles(const Soc& soc, double bytes, int64_t active, double on_chip = 0);

// Cycles `bytes` of GM traffic take at one of `active` cores' share of HBM.
double hbm_share_cycles(const Soc& soc, double bytes, int64_t active);

// One UB tile's stages, cycles. Overlapped reads and writes still share
// HBM: `hbm` is the tile's whole GM traffic at the core's share.
struct TileStages {
  double in = 0, vec = 0, out = 0, hbm = 0;
};

// A core running `tiles` equal tiles: with double buffering MTE2, V and
// MTE3 overlap, so after the first tile each further one adds its slowest
// stage and the SoC's `ub_contention` share of the vector passes or the
// copies, whichever is shorter; without it they run in turn.
double pipeline_cycles(const Soc& soc, const TileStages& tile, int64_t tiles, bool db);

// The launch of `blocks` blocks plus the busiest core, never below the roofline.
double kernel_us(const Soc& soc, double core_cycles, double roofline_us, int64_t blocks);

// max(bytes / HBM, vector cycles spread over every core); `on_chip` of the
// GM bytes are served by L2 instead, bounded by every core's L2 port.
double vector_roofline_us(const Soc& soc, double gm_bytes, double vector_cycles_total, double on_chip = 0);
// The memory part of it alone.
double memory_roofline_us(const Soc& soc, double gm_bytes, double on_chip = 0);

sdk::Measurement refuse(const std::string& why);
// The default tiling is the smallest when nothing fits; throws unsupported
// then, since the op is too big for the kernel modelled.
void require_default_fits(const Soc& soc, const std::string& op_type, const sdk::Measurement& verdict);
// "UB: <what> needs N B, has M B"
sdk::Measurement ub_overflow(const std::string& what, int64_t need, int64_t have);
sdk::Measurement too_many_cores(int64_t block_dim, int64_t blocks, const std::string& of_what);

// CANN's knob vocabulary for vector kernels.
sdk::Knob block_dim_knob(const Soc& soc);
// Powers of two from one 32 B block up to the bigger of `top` elements
// and one block, capped at what one UB copy could hold.
sdk::Knob ub_factor_knob(const Soc& soc, const std::string& name, int64_t top, int bytes);
sdk::Knob db_knob();

// The biggest value of `knob` for which fits(value) holds; the smallest if none does.
int64_t largest_fitting(const sdk::Knob& knob, const std::function<bool(int64_t)>& fits);

// Numpy broadcasting of `shapes`; throws invalid_argument when they clash.
std::vector<int64_t> broadcast_shapes(const std::vector<std::vector<int64_t>>& shapes, const std::string& op_type);

// Known, non-empty shapes; throws invalid_argument otherwise.
void require_known_inputs(const std::vector<sdk::TensorDesc>& inputs, size_t at_least, const std::string& op_type);
// The task's first input, checked so: the data of an op whose other inputs
// (axes, K) the task carries as attributes or output extents, never read.
const sdk::TensorDesc& known_data_input(const sdk::OpTask& task);

// Throws invalid_argument naming the op and its node: "<op> '<name>': why".
[[noreturn]] void malformed(const sdk::OpTask& task, const std::string& why);

// The op's first output's dims, which its sizes come from where input values
// the task does not carry give them; invalid_argument where unknown or a scalar.
const std::vector<int64_t>& output_shape(const sdk::OpTask& task);

// Throws unsupported: "<target> simulator does not model op '<op_type>' yet".
[[noreturn]] void not_modelled(const Soc& soc, const std::string& op_type);

// An axis in [-rank, rank) as an index; malformed() otherwise.
size_t axis_of(const sdk::OpTask& task, int64_t axis, size_t rank);

// Throws unsupported where the task fuses ops after its anchor: the model
// of this op times it alone.
void require_unfused(const sdk::OpTask& task, const Soc& soc);

// A kernel of a fixed signature: no fused ops, the inputs `names` lists, and
// `outputs` outputs where the task lists any; throws naming what differs.
void require_signature(const sdk::OpTask& task, const Soc& soc, const std::vector<const char*>& names, size_t outputs);

// A shape as error messages write it: "8 x 64 x 28 x 28", or "a scalar".
std::string shape_text(const std::vector<int64_t>& shape);

// Integer attributes: a single value or a list; `fallback` when absent.
int64_t attr_int(const nlohmann::json& attrs, const char* key, int64_t fallback);
std::vector<int64_t> attr_ints(const nlohmann::json& attrs, const char* key, std::vector<int64_t> fallback);
// A number attribute (ONNX writes some floats as integers); `fallback` when absent.
double attr_float(const nlohmann::json& attrs, const char* key, double fallback);

}  // namespace aoe::sim
