#!/usr/bin/env bash
# Installs aoe from a build tree, builds an out-of-tree example (a searcher
# or a device) against the installed SDK, lists it with the installed
# aoe-host, and tunes a model with it.
#   out_of_tree_test.sh <aoe build dir> <example source dir> <scratch dir> <SDK version> <searcher|device> [cmake] [c++ compiler]
set -uo pipefail
source "$(dirname "$0")/common.sh"

if [ $# -lt 5 ]; then
  echo "usage: $0 <aoe build dir> <example source dir> <scratch dir> <SDK version> <searcher|device> [cmake] [c++ compiler]" >&2
  exit 2
fi
build=$1 example=$2 scratch=$3 sdk_version=$4 kind=$5 cmake=${6:-cmake} cxx=${7:-c++}
prefix=$scratch/prefix

rm -rf "$scratch" && mkdir -p "$scratch" || fail "cannot make $scratch"
echo "== install $build into $prefix"
logged "$scratch/install.log" "$cmake" --install "$build" --prefix "$prefix"
check_out_of_tree "$prefix" "$example" "$scratch" "$sdk_version" "$build/models/mlp.onnx" "$cmake" "$cxx" "$kind"
if [ "$kind" = searcher ]; then
  echo "PASS: hill_climb built against the installed SDK $sdk_version, listed and used for tuning"
  exit 0
fi
result=$(compgen -G "$scratch/run/aoe_result_opat_*.json" | head -n 1)
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
