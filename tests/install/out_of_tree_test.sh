#!/usr/bin/env bash
# Installs aoe from a build tree, builds the out-of-tree example plugin
# against the installed SDK, lists it with the installed aoe-host, and tunes
# a model with it.
#   out_of_tree_test.sh <aoe build dir> <example source dir> <scratch dir> <SDK version> [cmake] [c++ compiler]
set -uo pipefail

if [ $# -lt 4 ]; then
  echo "usage: $0 <aoe build dir> <example source dir> <scratch dir> <SDK version> [cmake] [c++ compiler]" >&2
  exit 2
fi
build=$1 example=$2 scratch=$3 sdk_version=$4 cmake=${5:-cmake} cxx=${6:-c++}
prefix=$scratch/prefix oot=$scratch/oot run=$scratch/run

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
# Runs a command with its output in a log, shown only when it fails.
logged() {
  local log=$1
  shift
  "$@" >"$log" 2>&1
  local rc=$?
  if [ "$rc" -ne 0 ]; then
    tail -n 60 "$log" >&2
    fail "'$*' exited with $rc (full log: $log)"
  fi
}

rm -rf "$scratch" && mkdir -p "$scratch" "$run" || fail "cannot make $scratch"

echo "== 1. install $build into $prefix"
logged "$scratch/install.log" "$cmake" --install "$build" --prefix "$prefix"
[ -x "$prefix/bin/aoe-host" ] || fail "the install has no bin/aoe-host; is aoe-host built in $build?"
[ -f "$prefix/include/aoe/sdk/plugin.h" ] || fail "the install has no SDK headers under include/aoe"

echo "== 2. build $example against $prefix"
logged "$scratch/configure.log" "$cmake" -S "$example" -B "$oot" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release
logged "$scratch/build.log" "$cmake" --build "$oot" -j2
[ -f "$oot/libaoe_hill_climb.so" ] || fail "the example built no libaoe_hill_climb.so in $oot"

echo "== 3. aoe-host plugins --plugin-dir $oot"
logged "$scratch/plugins.txt" "$prefix/bin/aoe-host" plugins --plugin-dir "$oot"
# A row per component: NAME KIND VERSION SDK PLUGIN PATH
sdk_pattern=${sdk_version//./\\.}
if ! grep -Eq "^hill_climb[[:space:]]+searcher[[:space:]].*[[:space:]]${sdk_pattern}[[:space:]]" "$scratch/plugins.txt"; then
  cat "$scratch/plugins.txt" >&2
  fail "hill_climb is not listed as a searcher built against SDK $sdk_version"
fi
if grep -q "refused.*hill_climb" "$scratch/plugins.txt"; then
  cat "$scratch/plugins.txt" >&2
  fail "aoe-host refused the hill_climb plugin"
fi

echo "== 4. tune $build/models/mlp.onnx with hill_climb in $run"
[ -f "$build/models/mlp.onnx" ] || fail "no model at $build/models/mlp.onnx; build the models target first"
mkdir -p "$scratch/bank"
# The bank and the result file stay in the scratch dir, whatever the environment says.
(cd "$run" && logged "$scratch/tune.log" env -u ASCEND_WORK_PATH -u ASCEND_CACHE_PATH -u AOE_PLUGIN_PATH \
  TUNE_BANK_PATH="$scratch/bank" "$prefix/bin/aoe-host" --plugin opat --device ascend910 \
  --model "$build/models/mlp.onnx" --searcher hill_climb --plugin-dir "$oot" --budget 20) || exit 1
compgen -G "$run/aoe_result_opat_*.json" >/dev/null || fail "aoe-host left no aoe_result_opat_*.json in $run"

echo "PASS: hill_climb built against the installed SDK $sdk_version, listed and used for tuning"
