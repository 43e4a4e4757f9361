#!/usr/bin/env bash
# Checks the packages distro_build.sh made: their names, what each holds,
# what they depend on, and that aoe-host runs from them unpacked into a
# scratch root.
#   debian_packages_test.sh <distro scratch dir> <scratch dir>
set -uo pipefail
source "$(dirname "$0")/common.sh"

if [ $# -lt 2 ]; then
  echo "usage: $0 <distro scratch dir> <scratch dir>" >&2
  exit 2
fi
distro=$1 scratch=$2
command -v dpkg-deb >/dev/null || fail "dpkg-deb is not installed"
rm -rf "$scratch" && mkdir -p "$scratch/root" || fail "cannot make $scratch"
runtime=$(ls "$distro"/packages/aoe_*.deb 2>/dev/null | head -n 1)
dev=$(ls "$distro"/packages/aoe-dev_*.deb 2>/dev/null | head -n 1)
[ -f "$runtime" ] && [ -f "$dev" ] || fail "no aoe and aoe-dev packages in $distro/packages"
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:[A-Z]*=//p' "$distro/build/CMakeCache.txt")

field() { dpkg-deb -f "$1" "$2"; }
holds() { dpkg-deb -c "$1" | awk '{print $6}' | grep -Eq "^\./$2\$" || fail "$(basename "$1") does not hold /$2"; }
lacks() { dpkg-deb -c "$1" | awk '{print $6}' | grep -Eq "^\./$2" && fail "$(basename "$1") holds /$2, which belongs in the other package"; return 0; }

echo "== $runtime"
[ "$(field "$runtime" Package)" = aoe ] || fail "the runtime package is not named aoe"
holds "$runtime" "usr/bin/aoe-host"
for p in opat sgat gdat sim cpu replay ascend random ga rl sa surrogate ensemble exhaustive; do
  holds "$runtime" "usr/$libdir/aoe/plugins/libaoe_$p.so"
done
holds "$runtime" "usr/share/aoe/sim/socs/ascend910.yaml"
holds "$runtime" "usr/share/aoe/gdat/clusters/.*\.yaml"
lacks "$runtime" "usr/include/"
field "$runtime" Depends | grep -q "libc6" || fail "aoe does not depend on the libraries it links: $(field "$runtime" Depends)"

echo "== $dev"
[ "$(field "$dev" Package)" = aoe-dev ] || fail "the SDK package is not named aoe-dev"
holds "$dev" "usr/include/aoe/sdk/plugin.h"
holds "$dev" "usr/include/aoe/abi/aoe.h"
holds "$dev" "usr/$libdir/cmake/aoe/aoeConfig.cmake"
holds "$dev" "usr/$libdir/cmake/aoe/AoePlugin.cmake"
lacks "$dev" "usr/bin/"
depends=$(field "$dev" Depends)
echo "$depends" | grep -q "aoe (= $(field "$runtime" Version))" || fail "aoe-dev does not depend on its aoe: $depends"
echo "$depends" | grep -q "nlohmann-json3-dev" || fail "aoe-dev does not depend on nlohmann-json3-dev: $depends"

echo "== unpacked into $scratch/root"
dpkg-deb -x "$runtime" "$scratch/root" && dpkg-deb -x "$dev" "$scratch/root" || fail "cannot unpack the packages"
check_plugins_listed "$scratch/root/usr/bin/aoe-host" "$scratch/plugins.txt" opat sgat gdat ascend910 cpu replay ascend
echo "PASS: aoe and aoe-dev hold what they should and run unpacked"
