#!/bin/sh
# tools/gpu-check.sh against the test double: a folder laid out as the
# bundle is (links into the build tree), the double where CUDA_HOME finds
# it, and its fault rules standing in for what problems/faulty.cu does on a
# GPU. Every check must pass and the figures must be written.
#   gpu_check_test.sh SOURCE_DIR BUILD_DIR DOUBLE_HOME
set -eu
src=$1 build=$2 double=$3
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bundle/bin" "$stage/bundle/lib/aoe"
ln -s "$build/bin/aoe-host" "$stage/bundle/bin/aoe-host"
ln -s "$build/lib/aoe/plugins" "$stage/bundle/lib/aoe/plugins"
ln -s "$src/tests/devices/cuda/problems" "$stage/bundle/problems"
ln -s "$build/models" "$stage/bundle/models"
# The GEMM shapes beside cuBLAS are left out: the double's C++ GEMM would take minutes on them.
export CUDA_HOME="$double" AOE_GPU_BUNDLE="$stage/bundle" AOE_GPU_CHECK_MODEL="$build/models/mlp.onnx"
export AOE_GPU_CHECK_SKIP_GEMM_BENCH=1 AOE_GPU_CHECK_RUN_MODELS=mlp
export AOE_CUDA_DOUBLE_FAULTS="compile_error@fault=1;illegal_address@fault=2;hang@fault=3;too_many_resources@fault=4"
unset AOE_KERNEL_TUNER_DATA
"$src/tools/gpu-check.sh" "$stage/out"
grep -q "convolution_small: .* configs recorded" "$stage/out/figures.txt"
grep -q "mlp.onnx GEMMs:" "$stage/out/figures.txt"
grep -q "AOE Double GPU (sm_90)" "$stage/out/figures.txt"
grep -q "run mlp on AOE Double GPU: 3 kernels; .* bank 3 hits, 0 misses; check True" "$stage/out/figures.txt"
cat "$stage/out/figures.txt"
