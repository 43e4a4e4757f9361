# Shell pieces the install tests share; sourced, not run.

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

# check_out_of_tree <prefix> <example dir> <scratch> <SDK version> <model> <cmake> <c++> [searcher|device]
# Builds an out-of-tree example (the searcher hill_climb, or the device
# host_matmul) against the SDK installed in <prefix> with find_package(aoe),
# lists it with that prefix's aoe-host, and tunes <model> with it.
check_out_of_tree() {
  local prefix=$1 example=$2 scratch=$3 sdk_version=$4 model=$5 cmake=$6 cxx=$7 kind=${8:-searcher}
  local oot=$scratch/oot run=$scratch/run name=hill_climb tune=(--device ascend910 --searcher hill_climb --budget 20)
  [ "$kind" = device ] && name=host_matmul tune=(--device host_matmul --budget 12)
  mkdir -p "$run" "$scratch/bank" || fail "cannot make $run"
  [ -x "$prefix/bin/aoe-host" ] || fail "the install has no bin/aoe-host"
  [ -f "$prefix/include/aoe/sdk/plugin.h" ] || fail "the install has no SDK headers under include/aoe"

  echo "== build $example against $prefix"
  logged "$scratch/configure.log" "$cmake" -S "$example" -B "$oot" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release
  logged "$scratch/build.log" "$cmake" --build "$oot" -j2
  [ -f "$oot/libaoe_$name.so" ] || fail "the example built no libaoe_$name.so in $oot"

  echo "== aoe-host plugins --plugin-dir $oot"
  logged "$scratch/plugins.txt" "$prefix/bin/aoe-host" plugins --plugin-dir "$oot"
  # A row per component: NAME KIND VERSION SDK PLUGIN PATH
  local sdk_pattern=${sdk_version//./\\.}
  if ! grep -Eq "^$name[[:space:]]+$kind[[:space:]].*[[:space:]]${sdk_pattern}[[:space:]]" "$scratch/plugins.txt"; then
    cat "$scratch/plugins.txt" >&2
    fail "$name is not listed as a $kind built against SDK $sdk_version"
  fi
  grep -q "refused.*$name" "$scratch/plugins.txt" && fail "aoe-host refused the $name plugin"

  echo "== tune $model with $name in $run"
  [ -f "$model" ] || fail "no model at $model; build the models target first"
  # The bank and the result file stay in the scratch dir, whatever the environment says.
  (cd "$run" && logged "$scratch/tune.log" env -u ASCEND_WORK_PATH -u ASCEND_CACHE_PATH -u AOE_PLUGIN_PATH \
    TUNE_BANK_PATH="$scratch/bank" "$prefix/bin/aoe-host" --plugin opat --model "$model" --plugin-dir "$oot" \
    "${tune[@]}") || exit 1
  compgen -G "$run/aoe_result_opat_*.json" >/dev/null || fail "aoe-host left no aoe_result_opat_*.json in $run"
}

# check_plugins_listed <aoe-host> <log> <plugin...>: the installed plugins are found, none refused.
check_plugins_listed() {
  local host=$1 log=$2
  shift 2
  logged "$log" env -u AOE_PLUGIN_PATH "$host" plugins
  local name
  for name in "$@"; do
    grep -Eq "^$name[[:space:]]" "$log" || { cat "$log" >&2; fail "$host does not list the installed plugin $name"; }
  done
  grep -qi "refused" "$log" && { cat "$log" >&2; fail "$host refused an installed plugin"; }
  return 0
}
