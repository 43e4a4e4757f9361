// Small ONNX models the run tests write: one kernel or two, fast to run and check.
#pragma once

#include <filesystem>

namespace aoe::test {

// x[1,3,8,8] -> Conv(W[4,3,3,3], B[4], pads 1) -> Relu -> Add(S[1,4,8,8]) -> y[1,4,8,8].
void write_conv_model(const std::filesystem::path& file);
// x[1,4,8,8] -> BatchNormalization(scale, B, mean, var [4]) -> Clip(bounds 0.05 and 0.1 as inputs, as
// exporters write them) -> Sigmoid -> y: a chain no Conv is before.
void write_chain_model(const std::filesystem::path& file);
// x[1,4,8,8] -> Conv(W[4,4,3,3], pads 1) -> c; c * Clip(c + 3, 0, 6) / 6 -> y, the constants one-element
// initializers: hardswish as Paddle2ONNX writes it, c read twice.
void write_paddle_hardswish_model(const std::filesystem::path& file);
// x[1,8,16] -> Relu -> r, and x * Sigmoid(x) * 2 -> y: x read three times, the 2 a one-element
// initializer; `sigmoid_is_output`: Sigmoid's output is also the graph output s.
void write_swish_model(const std::filesystem::path& file, bool sigmoid_is_output);
// Conv, then SiLU as PyTorch exports it: Sigmoid and a Mul of the conv's output by it.
void write_conv_silu_model(const std::filesystem::path& file);
// Attention's scores masked as BERT's exports write it: x[1,2,4,8] / 4 -> Add(mask[1,1,1,8], a graph
// input) -> Mul(gamma[8]) -> y. With `mask_after`, what is added is Sigmoid(mask), and that
// Sigmoid comes after the Div in the graph's order.
void write_masked_scores_model(const std::filesystem::path& file, bool mask_after);
// Self-attention as PyTorch exports it, over 2 heads of 4: q[1,Sq,2,4], k and v [1,Sk,2,4] each
// Transposed to put heads first (k's to [1,2,4,Sk]); MatMul(q, k) / 2 + mask[1,1,1,Sk] -> Softmax
// -> MatMul(, v) -> Transposed back -> y[1,Sq,2,4].
void write_attention_model(const std::filesystem::path& file, int queries, int keys);
// x[1,4,8] -> `adds` Adds, each of its own bias[8] -> y: a chain reading more tensors than a kernel takes.
void write_bias_ladder_model(const std::filesystem::path& file, int adds);
// x[1,4,8,8] -> Conv(W1[4,4,1,1]) -> BatchNormalization -> b; x -> Conv(W3[4,4,3,3], pads 1) -> c;
// Add(b, c) -> Relu -> y[1,4,8,8]: the residual Add joins the second Conv, after which both its operands exist.
void write_two_branch_model(const std::filesystem::path& file);
// x[1,8,8,8] -> Conv(W[16,8,3,3], B[16], pads 1) -> Relu -> y[1,16,8,8]: a Conv with tiles to tune on a GPU.
void write_wide_conv_model(const std::filesystem::path& file);
// x[1,8,8,8] -> Conv(W[8,1,3,3], group 8, pads 1) -> Relu -> y[1,8,8,8]: a depthwise Conv, its direct kernel's threads to tune.
void write_depthwise_conv_model(const std::filesystem::path& file);
// x[1,4,5,5] -> ConvTranspose(W[4,3,3,3], group 2, strides 2, pads 1, output_padding 1) -> BatchNormalization
// -> Relu -> y[1,6,10,10]: an up-sampling as detectors' necks have it, its epilogue fused.
void write_transposed_conv_model(const std::filesystem::path& file);
// x[1,2,4,4] -> Relu -> ConvTranspose(W[2,3,3,3], B[3], strides 2) -> y[1,3,9,9]:
// the ConvTranspose reads another kernel's output.
void write_upsample_model(const std::filesystem::path& file);
// a[1,3,8,8] -> Relu -> x: its output, written with --outputs, is the conv model's input.
void write_relu_model(const std::filesystem::path& file);
// a[1,2] -> Relu -> x[1,2]: an array named as the conv model's input, of another shape.
void write_small_relu_model(const std::filesystem::path& file);
// x[1,8] -> Mul(Z) -> Add(W) -> y[1,8], Z zeros and W = 1..8: y is W, whatever x.
// With `external`, W is kept in "<file stem>.weights" beside the model.
void write_weights_model(const std::filesystem::path& file, bool external);
// x[4,8] -> MatMul(W[8,6]) -> Add(B[6]) -> Relu -> y[4,6]: one GEMM with its epilogue.
void write_matmul_model(const std::filesystem::path& file);
// x[64,96] -> MatMul(W[96,80]) -> Add(B[80]) -> Relu -> y[64,80]: a GEMM tall and wide
// enough for warps of tensor-core tiles.
void write_projection_model(const std::filesystem::path& file);
// x[2,4,8] -> MatMul(W[8,8]) -> Add(B[8]) -> Add(x) -> Relu -> Add(x) -> y[2,4,8]: a bias, a
// residual and an activation after the product, then a third Add no GEMM epilogue takes.
void write_residual_matmul_model(const std::filesystem::path& file);
// x[2,5] -> Slice(axis -1, from -1 back by 2) -> Pad(reflect, 1 before, 2 after the columns)
// -> Gather(rows -1, 0) -> y[2,6]; x -> Pad(a row of 0.5 on top) -> z[3,5]. Every
// value an op needs is a constant: initializers, and a Constant node for the
// Slice's ends, as exporters write them.
void write_data_move_model(const std::filesystem::path& file);
// ids[4] (int64) -> Gather(table[5,3] = 0..14, axis 0) -> y[4,3]: an embedding lookup.
void write_lookup_model(const std::filesystem::path& file);
// A graph as PyTorch and Paddle exporters write one: x[1,3,4,4] -> Mul(a float
// Constant 0.5) -> Identity -> Reshape to [1,-1] by Shape -> Gather -> Unsqueeze
// -> Concat arithmetic -> Dropout -> Relu -> If(batch == 1: Sigmoid, else Tanh)
// -> y[1,48]; x -> Resize(roi an empty initializer, scales a float Constant
// 1,1,2,2, nearest) -> z[1,3,8,8]; Max(x, 0.5, Cast(x * 0.5) to float) -> m[1,3,4,4].
void write_exported_model(const std::filesystem::path& file);
// x[1,1,2,3] -> Resize(linear, half_pixel, sizes an initializer 1,1,4,6) -> y[1,1,4,6],
// the empty roi and scales as PyTorch exports F.interpolate(size=...).
void write_bilinear_model(const std::filesystem::path& file);
// Opset 11: x[2,3,4] -> Softmax (no axis: 1, so over each batch's 12 values) -> y,
// and x -> LogSoftmax(axis 2) -> z.
void write_opset11_softmax_model(const std::filesystem::path& file);
// Opset 12 Einsums, the outputs declared with unknown dims as PyTorch writes
// them: "bij,bkj->bik" (q[2,3,4], k[2,5,4]) -> s; "bsd,dhk->bhsk" (q, the
// constant w[4,2,3]) -> p; "i,j->ij" (u[3], t[5]) -> o; "...ij,...jk->...ik"
// (q, the constant w2[1,4,2], its batch broadcast) -> c; "ij,ij->i" (e[3,4], f[3,4])
// -> r; the diagonal "ii->i" (d[3,3]) -> g.
void write_einsum_model(const std::filesystem::path& file);
// Sequences whose elements are known: x[6,4] SplitToSequence by [1, 2, 3] ->
// SequenceInsert y[2,4] at 1 -> SequenceErase at -1 -> s3 (x[0:1], y, x[1:3]);
// SequenceAt(s3, -2) -> a (y), SequenceLength(s3) -> n (3),
// ConcatFromSequence(s3, axis 0) -> c[5,4]; y SplitToSequence on axis 1
// without keepdims, then ConcatFromSequence(new_axis, axis 0) -> st (y
// transposed); SequenceConstruct(x, x) -> ConcatFromSequence(axis -1) -> cc[6,8].
void write_sequences_model(const std::filesystem::path& file);
// x[2,3] -> Relu -> SequenceConstruct(relu, x) -> the graph output `list`, a
// sequence: what a scripted module returning a List[Tensor] exports.
void write_list_output_model(const std::filesystem::path& file);
// Opset 15: x[2,3] and scale, an optional tensor [2,3] (a scripted
// Optional[Tensor] argument); If(OptionalHasElement(scale)) then
// x * OptionalGetElement(scale) else x; Relu -> y.
void write_optional_input_model(const std::filesystem::path& file);
// A Loop of n iterations (n an int64 input) carrying two sequences from
// SequenceEmpty, appending x[2,3] * i to one and x + i to the other (x the
// constant {1, -2, 3, 0.5, 4, -6}); then
// ConcatFromSequence(axis 0) -> cat[2n,3] and ConcatFromSequence(axis 1,
// new_axis) -> stack[2,n,3], as PyTorch's scripted loops export a list.
void write_appending_loop_model(const std::filesystem::path& file);
// A decoder's cache: Concat(past[1,P,4], x[1,3,4]) on axis 1 -> Relu -> y[1,T,4],
// P and T dims the exporter named.
void write_past_concat_model(const std::filesystem::path& file);
// x[2,3] -> Relu -> Clip(lo, hi) -> y, its nodes stored last first; lo a
// graph input (a bound computed as the model runs), hi an initializer.
void write_converted_model(const std::filesystem::path& file);
// x[1,4] -> LpNormalization -> y: an op the cuda device has no kernel for.
void write_lp_norm_model(const std::filesystem::path& file);
// x[1,2,8,6] -> LpPool(kernel 3x2, strides 2x1, pads 1,0,1,0, p 2) -> a[1,2,4,5];
// GlobalLpPool(p 3) -> g[1,2,1,1]; LpNormalization(axis 1, p 1) -> n; MaxRoiPool(rois
// a [3,5] initializer, one region past the map, pooled 2x2, spatial_scale 0.5) -> r[3,2,2,2].
void write_lp_and_roi_pools_model(const std::filesystem::path& file);
// a, b [1,4] -> Add -> c, and Gradient (ai.onnx.preview.training) of c by a and b
// -> dc_da, dc_db: an op no device runs, as ONNX Runtime's inference build has none.
void write_gradient_model(const std::filesystem::path& file);

// x[3,4] (float), n[2] (int64) -> Shape(x) + n -> * k[2] = {3, -2} -> m;
// q = m / 4 (truncating), r = m mod 4 (the divisor's sign), big = q > 4 (bool).
void write_shape_arithmetic_model(const std::filesystem::path& file);
// x, y[2,3] -> z = Where(x > y and not x < 0, x, y): a bool mask from
// comparisons and logic, computed as the model runs.
void write_mask_where_model(const std::filesystem::path& file);
// x[2] -> Loop "sum" of 3 iterations (or of `trips`, an int64 input, where
// `fed_trips`): y = y + x + i from zeros, ys its value per iteration [3,2].
void write_sum_loop_model(const std::filesystem::path& file, bool fed_trips = false);
// x[1] -> Loop "doubling" while y < 100 (no trip count; `limit` an outer
// initializer, 2 a body initializer): y = the first x * 2^n at or above 100,
// steps [n,1] each iteration's y.
void write_doubling_while_model(const std::filesystem::path& file);
// x[4,3] -> Slice rows 10..20 -> none [0,3] (empty), and y = Relu(x).
void write_empty_slice_model(const std::filesystem::path& file);
// x[3,2,2], axes[0] (int64, fed empty) -> ReduceSum: sum [1,1,1] of every
// element; with noop_with_empty_axes: same, x as it is.
void write_empty_axes_model(const std::filesystem::path& file);
// x[4096,256] -> MatMul by float weights -> DynamicQuantizeLinear -> q
// (uint8) -> MatMulInteger by int8 weights [256,64] with q's zero point ->
// Cast: y, the int32 sums as floats. Float rounding decides some of q's steps.
void write_dynamic_quantized_model(const std::filesystem::path& file);
// xs[2,3] -> Scan "columns" over axis 1, last column first: s = s + column
// from zeros, sums[2,3] its value per step along axis 1.
void write_column_scan_model(const std::filesystem::path& file);
// x[6] -> NonZero(x > 0) -> Cast -> ReduceSum: y = the sum of the positions
// of x's positive elements, count = Shape of NonZero's output [1, k] (int64).
void write_positive_positions_model(const std::filesystem::path& file);
// x[2, 6]; the values of x above 0 (GatherND of NonZero's positions, v) and,
// from their count n as the model runs, TopK(v, min(n, 3)), Range(0, n),
// ConstantOfShape(n) of 1.5, Expand(1, n), v[1:min(n, 3)], v reshaped to
// [n, 1] and tiled [1, min(n, 2)], and v split into min(n, 1) and the rest.
void write_run_time_values_model(const std::filesystem::path& file);
// NonMaxSuppression over boxes[1, 256, 4] and scores[1, 4, 256], keeping at
// most 8 a class: a constant limit, or an int64 input "limit" fed as it runs.
void write_nms_model(const std::filesystem::path& file, bool constant_limit);
// cond[1] (bool), x[3], w[3] -> If "choose": then (x + w) * 2 (2 a branch
// initializer), else 10 - x (10 a branch Constant); y = Relu of it.
void write_run_time_if_model(const std::filesystem::path& file);

// x[6] -> NonZero(x > 0) -> where [1, k] (int64), a graph output whose
// size the model leaves open: k is the count of x's positive elements.
void write_nonzero_output_model(const std::filesystem::path& file);
// cond[1] (bool), x[3] -> If "choose": then x + x [3], else Concat(x, x) [6];
// y, the If's output itself, of a size the model leaves open.
void write_branch_shapes_if_model(const std::filesystem::path& file);
// x[4] -> Clip(x, 0.5, +inf) -> y and Clip(x, -inf, 1) -> z, the bounds
// initializers, as PyTorch exports torch.clamp(x, min=0.5) and clamp(x, max=1);
// x -> Pad(1 each side, fill -inf) -> p[6].
void write_one_sided_clip_model(const std::filesystem::path& file);
// sr (int64 scalar), x[3] -> If "by_rate" on sr == 16000, as Silero VAD
// branches on its sample rate: then x + x, else -x; y[3].
void write_rate_if_model(const std::filesystem::path& file);

// The ops opsets 18 to 21 changed, as newer exporters write them (IR version 10),
// on x[1,4,6,5]: ReduceMean(axes [2,3] a Constant input) -> r1; ReduceMax(Relu(x),
// no axes, noop_with_empty_axes) -> r2; ReduceL2(axes [-1] an initializer, keepdims 0)
// -> r3; Split(axis -1, num_outputs 2: sizes 3 and 2) -> s0, s1; Mish -> m;
// Resize(scales 1,1,2,2, nearest, antialias 0) -> z; Pad(a row and two columns of
// 0.25) -> p; Pad(edge, axes -1 and 1: two columns before, a channel before and three
// after) -> q; GroupNormalization(2 groups, scale and bias per group, at 21 per
// channel) -> n; from opset 19 Cast(to float, saturate) -> c; from 20 Gelu -> g and
// Gelu(approximate tanh) -> t.
void write_newer_opset_model(const std::filesystem::path& file, int opset);
// The same outputs written at opset 17 from the ops' definitions (Mish as
// x tanh(log(1 + e^x)), group norm and Gelu spelled out): what the model above is checked against.
void write_newer_opset_twin(const std::filesystem::path& file, int opset);
// x[2,3] -> pkg.custom.Swish(beta 1.5) -> y1 -> pkg.custom.Outer -> y2, functions of
// the model as onnxscript writes them: Swish(x) = x * Sigmoid(x * beta), beta an
// attribute reference defaulting to 1 (IR 9's attribute_proto), and Outer(z) =
// Relu(Swish(z)), a call within a function taking that default.
void write_function_model(const std::filesystem::path& file);

// x[1,3,4,6,6] -> Conv(W[4,3,3,3,3], B[4], pads 1, strides 1,2,2) -> Relu -> y[1,4,4,3,3]:
// a 3-D convolution, as video and volume models have them.
void write_conv3d_model(const std::filesystem::path& file);

// Random draws as a training step and a sampler make them, on x[4,64]:
// Dropout(ratio 0.25, training_mode true, seed 3) -> y, mask (bool);
// RandomNormalLike(x, mean 1, scale 0.5, seed 5) -> n; RandomUniform(shape
// [4,64], low -2, high 2, unseeded) -> u; Bernoulli(Sigmoid(x)) -> b;
// Multinomial(x as logits, sample_size 16) -> m[4,16] (int32). Opset 15.
void write_random_draws_model(const std::filesystem::path& file);

// ONNX the way other tools write it, where aoe and ONNX Runtime once parted.
// x[1,1,4,5] -> MaxPool(kernel 1x3, strides 2, dilations 1x2, pads 0,0,0,1, ceil_mode) -> y[1,1,2,2];
// x -> AveragePool(kernel 1x2, strides 1x2, pads 0,1,0,1, ceil_mode) -> z[1,1,4,3]: each a last
// window that would start in the end padding, which ONNX Runtime drops. With `declared_stale`,
// y and z are declared [1,1,3,2] and [1,1,4,4], as libonnx before 1.16 sized them, in the
// outputs and a value_info.
void write_ceil_pool_model(const std::filesystem::path& file, bool declared_stale);
// x[2,3] -> Relu -> y, y's type given without a shape (any rank), as tools that cut models write it.
void write_shapeless_output_model(const std::filesystem::path& file);
// x[1,2,6,5] -> Conv(W[3,2,3,2], dilations 1x2, pads 0,1,1,1) -> Conv(W[2,3,3,3], B[2], auto_pad VALID,
// dilations 2) -> y[1,2,1,1]: a first layer (fewer channels than a vector) fed by another.
void write_narrow_conv_chain_model(const std::filesystem::path& file);
// Opset 10's Resize (x and scales): x[1,1,3,4] -> nearest by 2 x 1.5 -> up[1,1,6,6];
// w[1,1,5,7] -> nearest by 0.6 x 0.45 -> down[1,1,3,3]; x -> linear by 0.5 x 1.5 -> lin[1,1,1,6].
// With `mixed`, one more nearest Resize of w by 0.6 x 1.5 -> both[1,1,3,10].
void write_opset10_resize_model(const std::filesystem::path& file, bool mixed);
// x[1,1,6,2] -> Resize(roi "", scales 1,1,0.75,1.5; align_corners) -> lin[1,1,4,3] (linear) and near[1,1,4,3]
// (nearest): 6 x 0.75 = 4.5 rows floored to 4, as PyTorch 1.13 exports interpolate(scale_factor, align_corners).
void write_align_corners_model(const std::filesystem::path& file);
// x[2,2,1,1] -> ConvTranspose(W[2,2,2,1] of ones, group 2, strides 1x2, auto_pad SAME_UPPER) -> y[2,4,1,1]:
// a kernel shorter than its stride, which no padding brings to input x stride.
void write_short_kernel_same_deconv_model(const std::filesystem::path& file);
// x[3] -> Div(1.5) -> Mod(b[3] = 0.7, 0.9, 1.3; fmod 1) -> y[3]: a Mod fused after another elementwise op.
void write_div_mod_model(const std::filesystem::path& file);
// x[1,1,2,2] -> MaxPool(kernel 4x4, no pads) -> y: a window longer than its input, sized negative.
void write_oversized_pool_model(const std::filesystem::path& file);
// x[1] -> Squeeze -> a scalar -> Expand(shape []) -> Tile(repeats []) -> Mul(2) -> y, a scalar: an Expand
// and a Tile that change nothing. With `each_an_output`, s, e and t are the graph's outputs too, so none
// is read through: the device copies each.
void write_scalar_expand_model(const std::filesystem::path& file, bool each_an_output = false);

// x[1,4] -> Cast(float16) -> MatMul(W[4,9000] float16) -> Cast(float) -> m -> Reshape(shape = 90,100) -> y[90,100];
// m -> Gather(reversed[9000] = 8999..0, axis 1) -> g[1,9000]. W, shape and reversed are all in "<file stem>.data"
// beside the model, as writers that move every tensor out keep them: W past what loading reads in, shape
// within it, reversed past it but integers, which it reads in too.
void write_external_half_model(const std::filesystem::path& file);
// W[k][j] of that model: multiples of 0.25 in [-0.75, 0.75], which float16 holds exactly.
inline float external_half_weight(int k, int j) { return static_cast<float>((j * 3 + k) % 7 - 3) * 0.25f; }

// x[1,1,3,3] -> Conv(w[2,1,1,1] = 1, 2) -> Mul(rows[1,1,3,1] = 1, 10, 100) -> y[1,2,3,3]: an operand that
// broadcasts over part of each map, which no conv epilogue reads.
void write_conv_row_scale_model(const std::filesystem::path& file);

// x[1,2,2,3] -> Pad(pads) -> Mul(s0) -> y[1,2,3,5], as tf2onnx writes a TensorFlow Pad: its pads per axis
// pair (N 0,0; C 0,0; H 1,0; W 0,2) -> Split into eight -> Concat as ONNX orders them (every begin, then
// every end). s0 is the first of Split(scale = 3, 5) into two equal parts, no sizes given. Opset 11.
void write_split_pads_model(const std::filesystem::path& file);

}  // namespace aoe::test
