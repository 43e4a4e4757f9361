#!/usr/bin/env bash
# Builds aoe as a distribution would (prefix /usr, the multiarch libdir,
# no tests, benches, tools or models) in <scratch>/build, and packages it with
# `cpack -G DEB` into <scratch>/packages: what the relocated-prefix and the
# package tests take.
#   distro_build.sh <source dir> <scratch dir> <libdir> <build type> <cmake> <cpack> <c++ compiler> <unity build> [compiler launcher]
# <unity build> is ON or OFF, as the build that runs the test was made.
set -uo pipefail
source "$(dirname "$0")/common.sh"

if [ $# -lt 8 ]; then
  echo "usage: $0 <source dir> <scratch dir> <libdir> <build type> <cmake> <cpack> <c++ compiler> <unity build> [compiler launcher]" >&2
  exit 2
fi
source=$1 scratch=$2 libdir=$3 build_type=$4 cmake=$5 cpack=$6 cxx=$7 unity=$8 launcher=${9:-}
build=$scratch/build

rm -rf "$scratch" && mkdir -p "$scratch/packages" || fail "cannot make $scratch"
launch=()
[ -n "$launcher" ] && launch=(-DCMAKE_CXX_COMPILER_LAUNCHER="$launcher" -DCMAKE_C_COMPILER_LAUNCHER="$launcher")
echo "== configure $source with CMAKE_INSTALL_LIBDIR=$libdir"
# The Python package installs into the prefix's lib/pythonX.Y/site-packages,
# which is not Debian's dist-packages: the packages leave it out.
logged "$scratch/configure.log" "$cmake" -S "$source" -B "$build" -DCMAKE_BUILD_TYPE="$build_type" \
  -DCMAKE_INSTALL_PREFIX=/usr -DCMAKE_INSTALL_LIBDIR="$libdir" -DCMAKE_CXX_COMPILER="$cxx" -DAOE_UNITY_BUILD="$unity" "${launch[@]}" \
  -DAOE_BUILD_TESTS=OFF -DAOE_BUILD_BENCH=OFF -DAOE_BUILD_TOOLS=OFF -DAOE_BUILD_MODELS=OFF -DAOE_BUILD_PYTHON=OFF
echo "== build"
logged "$scratch/build.log" "$cmake" --build "$build" -j2
echo "== cpack -G DEB"
(cd "$build" && logged "$scratch/cpack.log" "$cpack" -G DEB -B "$scratch/packages") || exit 1
ls "$scratch"/packages/aoe_*.deb "$scratch"/packages/aoe-dev_*.deb || fail "cpack made no aoe and aoe-dev packages"
echo "PASS: built with $libdir and packaged"
