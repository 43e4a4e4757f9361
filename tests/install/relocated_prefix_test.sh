#!/usr/bin/env bash
# Installs the distribution-style build (distro_build.sh) into one prefix,
# moves the whole prefix elsewhere, and from there lists the plugins, tunes
# the bundled model, and builds and loads the out-of-tree example plugin
# with find_package(aoe): nothing may depend on where it was installed.
#   relocated_prefix_test.sh <distro scratch dir> <scratch dir> <model> <example dir> <SDK version> <cmake> <c++>
set -uo pipefail
source "$(dirname "$0")/common.sh"

if [ $# -lt 7 ]; then
  echo "usage: $0 <distro scratch dir> <scratch dir> <model> <example dir> <SDK version> <cmake> <c++>" >&2
  exit 2
fi
distro=$1 scratch=$2 model=$3 example=$4 sdk_version=$5 cmake=$6 cxx=$7

rm -rf "$scratch" && mkdir -p "$scratch" || fail "cannot make $scratch"
echo "== install into $scratch/first"
logged "$scratch/install.log" "$cmake" --install "$distro/build" --prefix "$scratch/first"
mv "$scratch/first" "$scratch/moved" || fail "cannot move the prefix"
prefix=$scratch/moved
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:[A-Z]*=//p' "$distro/build/CMakeCache.txt")
[ -d "$prefix/$libdir/aoe/plugins" ] || fail "no plugins under $prefix/$libdir/aoe/plugins"

echo "== the moved aoe-host finds its plugins"
check_plugins_listed "$prefix/bin/aoe-host" "$scratch/installed_plugins.txt" opat sgat ascend910 random ga
echo "== the moved aoe-host tunes $model"
mkdir -p "$scratch/tune" "$scratch/tune_bank"
(cd "$scratch/tune" && logged "$scratch/tune_alone.log" env -u ASCEND_WORK_PATH -u ASCEND_CACHE_PATH -u AOE_PLUGIN_PATH \
  -u AOE_SIM_SOC_PATH TUNE_BANK_PATH="$scratch/tune_bank" "$prefix/bin/aoe-host" --plugin opat --device ascend910 \
  --model "$model" --budget 16) || exit 1
grep -q "process finished" "$scratch/tune_alone.log" || fail "the tuning run did not finish: $scratch/tune_alone.log"
check_out_of_tree "$prefix" "$example" "$scratch" "$sdk_version" "$model" "$cmake" "$cxx"
echo "PASS: installed with $libdir, moved, and used from $prefix"
