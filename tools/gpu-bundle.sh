#!/bin/sh
# Packs what the cuda device needs on a GPU machine that has none of this
# machine's packages: aoe-host, the plugins, aoe-cuda-worker, the bench and
# test programs gpu-check.sh runs, the bundled models and the cuda test
# problems, with every shared library they load that is not glibc's or the
# NVIDIA driver's (found from the binaries' own dependencies with ldd), into
# one .tar.xz.
#
#   tools/gpu-bundle.sh OUT.tar.xz        (BUILD_DIR, default build/, is the build to pack)
set -eu
out=${1:?usage: tools/gpu-bundle.sh OUT.tar.xz}
build=${BUILD_DIR:-build}
src=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$build/bin/aoe-host" ] || { echo "gpu-bundle: $build/bin/aoe-host is missing: build first (cmake --preset full && cmake --build --preset full -j2)" >&2; exit 2; }
[ -x "$build/lib/aoe/plugins/aoe-cuda-worker" ] || { echo "gpu-bundle: $build/lib/aoe/plugins/aoe-cuda-worker is missing: build the cuda plugin" >&2; exit 2; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/aoe-gpu
mkdir -p "$root/bin" "$root/lib/aoe/plugins" "$root/share" "$root/problems"

# What to pack: the programs, the plugins, and what gpu-check.sh runs.
cp "$build/bin/aoe-host" "$root/bin/"
for program in cuda_gpu_check_test cuda_gemm_bench model_runtime_bench; do
  [ -x "$build/bin/$program" ] && cp "$build/bin/$program" "$root/bin/"
done
# The runtime bench's PyTorch and ONNX Runtime columns (AOE_GPU_CHECK_TABLE).
mkdir -p "$root/bench"
cp "$src/bench/torch_run.py" "$src/bench/ort_cuda_run.py" "$root/bench/"
cp "$build"/lib/aoe/plugins/*.so "$build/lib/aoe/plugins/aoe-cuda-worker" "$root/lib/aoe/plugins/"
cp -r "$build/share/." "$root/share/" 2>/dev/null || true
mkdir -p "$root/models"
for model in bert_layer bert_base mlp resnet50 mobilenet_v2 ocr_cls ocr_det; do
  cp "$build/models/$model".* "$root/models/" 2>/dev/null || true
done
cp "$src"/tests/devices/cuda/problems/* "$root/problems/"
cp "$src/tools/gpu-check.sh" "$root/"
cp -P "$build"/lib/libaoe.so* "$root/lib/" 2>/dev/null || true

# Every library the packed binaries load, but glibc's (the target has its
# own, newer one) and the driver's (it must match the kernel module there).
is_system() {
  case $(basename "$1") in
    libc.so*|libm.so*|libdl.so*|librt.so*|libpthread.so*|ld-linux*|libresolv.so*|libcuda.so*|libnvidia-*|libnvrtc*) return 0 ;;
    *) return 1 ;;
  esac
}
find "$root/bin" "$root/lib/aoe/plugins" -type f | while read -r binary; do
  ldd "$binary" 2>/dev/null | awk '/=> \// { print $3 }'
done | sort -u | while read -r library; do
  is_system "$library" || [ -e "$root/lib/$(basename "$library")" ] || cp -L "$library" "$root/lib/"
done

# Debug information stays here: the bundle is for running.
find "$root/bin" "$root/lib" -type f | while read -r f; do
  if file -b "$f" | grep -q '^ELF'; then strip --strip-debug "$f" 2>/dev/null || true; fi
done

tar -C "$stage" -cJf "$out" aoe-gpu
size=$(du -m "$out" | cut -f1)
echo "gpu-bundle: $out ($size MB): unpack on the GPU machine and run aoe-gpu/gpu-check.sh OUTDIR"
if [ "$size" -ge 40 ]; then echo "gpu-bundle: $out is $size MB, over the 40 MB a bundle should stay under" >&2; exit 1; fi
