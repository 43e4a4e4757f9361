#!/usr/bin/env bash
# Installs aoe from a build tree, builds the out-of-tree example plugin
# against the installed SDK, lists it with the installed aoe-host, and tunes
# a model with it.
#   out_of_tree_test.sh <aoe build dir> <example source dir> <scratch dir> <SDK version> [cmake] [c++ compiler]
set -uo pipefail
source "$(dirname "$0")/common.sh"

if [ $# -lt 4 ]; then
  echo "usage: $0 <aoe build dir> <example source dir> <scratch dir> <SDK version> [cmake] [c++ compiler]" >&2
  exit 2
fi
build=$1 example=$2 scratch=$3 sdk_version=$4 cmake=${5:-cmake} cxx=${6:-c++}
prefix=$scratch/prefix

rm -rf "$scratch" && mkdir -p "$scratch" || fail "cannot make $scratch"
echo "== install $build into $prefix"
logged "$scratch/install.log" "$cmake" --install "$build" --prefix "$prefix"
check_out_of_tree "$prefix" "$example" "$scratch" "$sdk_version" "$build/models/mlp.onnx" "$cmake" "$cxx"
echo "PASS: hill_climb built against the installed SDK $sdk_version, listed and used for tuning"
