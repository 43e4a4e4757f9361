#!/usr/bin/env bash
# The C API as a user's C program meets it once installed: installs the build
# tree into a scratch prefix (cmake --install copies, builds nothing), compiles
# examples/api/run_model.c against the installed aoe.h alone with
# -std=c99 -pedantic-errors -Wall -Werror, links it to the installed libaoe,
# and runs it on the bundled model with the installed cpu device.
#   installed_header_test.sh <aoe build dir> <program.c> <scratch dir> <model> [cmake] [cc]
set -uo pipefail
source "$(dirname "$0")/common.sh"

if [ $# -lt 4 ]; then
  echo "usage: $0 <aoe build dir> <program.c> <scratch dir> <model> [cmake] [cc]" >&2
  exit 2
fi
build=$1 program=$2 scratch=$3 model=$4 cmake=${5:-cmake} cc=${6:-cc}
prefix=$scratch/prefix

rm -rf "$scratch" && mkdir -p "$scratch/run" || fail "cannot make $scratch"
echo "== install $build into $prefix"
logged "$scratch/install.log" "$cmake" --install "$build" --prefix "$prefix"
[ -f "$prefix/include/aoe.h" ] || fail "the install has no include/aoe.h"
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:[A-Z]*=//p' "$build/CMakeCache.txt")
[ -e "$prefix/$libdir/libaoe.so" ] || fail "the install has no $libdir/libaoe.so"

echo "== $cc -std=c99 -pedantic-errors -Wall -Werror $(basename "$program") against $prefix/include/aoe.h"
logged "$scratch/compile.log" "$cc" -std=c99 -pedantic-errors -Wall -Werror -I"$prefix/include" "$program" \
  -o "$scratch/program" -L"$prefix/$libdir" -laoe -Wl,-rpath,"$prefix/$libdir"

echo "== run it on $model"
(cd "$scratch/run" && logged "$scratch/run.log" env -u ASCEND_WORK_PATH -u ASCEND_CACHE_PATH -u AOE_PLUGIN_PATH \
  TUNE_BANK_PATH="$scratch/bank" "$scratch/program" "$model" cpu) || exit 1
grep -q "^y \[8, 64\]: 512 values" "$scratch/run.log" || fail "the program printed no output y [8, 64]: $scratch/run.log"
ldd "$scratch/program" | grep -q "$prefix/$libdir/libaoe.so" || fail "the program did not load the installed libaoe"
echo "PASS: $(basename "$program") built against the installed aoe.h, linked to the installed libaoe and run"
