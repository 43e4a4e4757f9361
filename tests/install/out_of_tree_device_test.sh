#!/usr/bin/env bash
# Installs aoe from a build tree, builds the out-of-tree example device
# against the installed SDK, lists it with the installed aoe-host, and tunes
# a model on it.
#   out_of_tree_device_test.sh <aoe build dir> <example source dir> <scratch dir> <SDK version> [cmake] [c++ compiler]
set -uo pipefail
source "$(dirname "$0")/common.sh"

if [ $# -lt 4 ]; then
  echo "usage: $0 <aoe build dir> <example source dir> <scratch dir> <SDK version> [cmake] [c++ compiler]" >&2
  exit 2
fi
build=$1 example=$2 scratch=$3 sdk_version=$4 cmake=${5:-cmake} cxx=${6:-c++}
prefix=$scratch/prefix oot=$scratch/oot run=$scratch/run model=$build/models/mlp.onnx

rm -rf "$scratch" && mkdir -p "$scratch" "$run" || fail "cannot make $scratch"
echo "== install $build into $prefix"
logged "$scratch/install.log" "$cmake" --install "$build" --prefix "$prefix"
[ -x "$prefix/bin/aoe-host" ] || fail "the install has no bin/aoe-host"

echo "== build $example against $prefix"
logged "$scratch/configure.log" "$cmake" -S "$example" -B "$oot" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release
logged "$scratch/build.log" "$cmake" --build "$oot" -j2
[ -f "$oot/libaoe_host_matmul.so" ] || fail "the example built no libaoe_host_matmul.so in $oot"

echo "== aoe-host plugins --plugin-dir $oot"
logged "$scratch/plugins.txt" "$prefix/bin/aoe-host" plugins --plugin-dir "$oot"
sdk_pattern=${sdk_version//./\\.}
if ! grep -Eq "^host_matmul[[:space:]]+device[[:space:]].*[[:space:]]${sdk_pattern}[[:space:]]" "$scratch/plugins.txt"; then
  cat "$scratch/plugins.txt" >&2
  fail "host_matmul is not listed as a device built against SDK $sdk_version"
fi
grep -q "refused.*host_matmul" "$scratch/plugins.txt" && fail "aoe-host refused the host_matmul plugin"

echo "== tune $model on host_matmul in $run"
[ -f "$model" ] || fail "no model at $model; build the models target first"
(cd "$run" && logged "$scratch/tune.log" env -u ASCEND_WORK_PATH -u ASCEND_CACHE_PATH -u AOE_PLUGIN_PATH \
  TUNE_BANK_PATH="$scratch/bank" "$prefix/bin/aoe-host" --plugin opat --device host_matmul \
  --model "$model" --plugin-dir "$oot" --budget 12) || exit 1
result=$(compgen -G "$run/aoe_result_opat_*.json" | head -n 1)
[ -n "$result" ] || fail "aoe-host left no aoe_result_opat_*.json in $run"
# Every MatMul and Gemm of the model was measured on the device, none left unsupported.
python3 - "$result" <<'PY' || fail "the result file $result does not show the model's three ops tuned on host_matmul"
import json, sys
sections = {k: v for s in json.load(open(sys.argv[1])) for k, v in s.items()}
assert sections["basic"]["soc_version"] == "host_matmul", sections["basic"]
opat = sections["OPAT"]
assert opat["repo_summary"]["total_num"] == 3, opat["repo_summary"]
ops = opat["opat_tuned_operators"]
assert len(ops) == 3 and all(op["evaluations"] > 0 for op in ops), ops
PY
echo "PASS: host_matmul built against the installed SDK $sdk_version, listed and tuned a model"
