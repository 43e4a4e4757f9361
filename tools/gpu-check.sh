#!/bin/sh
# The cuda device's hardware checks, run on a GPU machine from an unpacked
# tools/gpu-bundle.sh archive (or, with AOE_GPU_BUNDLE, from any folder laid
# out the same way: bin/, lib/aoe/plugins/, problems/, models/):
#
#   aoe-gpu/gpu-check.sh OUTDIR
#
# Writes OUTDIR/gpu-check.log (every command and its output) and
# OUTDIR/figures.txt, prints one PASS/FAIL line per check, and exits
# non-zero when any check failed. AOE_KERNEL_TUNER_DATA, when set, is a
# folder holding benchmark_hub's problems (kernels/convolution_milo.json
# and kernels/dedispersion_milo.json with their sources): they are tuned
# live as well.
set -u
out=${1:?usage: gpu-check.sh OUTDIR}
here=${AOE_GPU_BUNDLE:-$(cd "$(dirname "$0")" && pwd)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
host="$here/bin/aoe-host"
log="$out/gpu-check.log"
figures="$out/figures.txt"
: >"$log"
: >"$figures"
failed=0

# check NAME COMMAND...: runs it in a scratch folder, logs everything.
check() {
  name=$1
  shift
  echo "== $name: $*" >>"$log"
  if (cd "$work" && "$@") >>"$log" 2>&1; then
    echo "PASS $name"
  else
    echo "FAIL $name (see $log)"
    failed=$((failed + 1))
  fi
}

fresh() {
  work="$out/work/$1"
  rm -rf "$work"
  mkdir -p "$work"
  export TUNE_BANK_PATH="$work/bank" ASCEND_WORK_PATH="$work"
}

# tune KERNEL OPTIONS_JSON [aoe-host args...]: OPAT on one kernel of a problem.
tune() {
  kernel=$1
  options=$2
  shift 2
  printf '{"op": "%s"}' "$kernel" >op.json
  "$host" --plugin opat --device cuda --device_options "$options" --singleop op.json --result_file result.json "$@"
}

# The measurements of the run in this folder, by config: python3 reads them.
statuses() {
  python3 - "$@" <<'PY'
import glob, json, sys
want = dict(arg.split("=", 1) for arg in sys.argv[1:])
seen = {}
for path in glob.glob("aoe_workspace/*/measurements.jsonl"):
    for line in open(path):
        m = json.loads(line)
        seen.setdefault(str(m["config"].get("fault")), set()).add(m["status"])
print("statuses by fault:", {k: sorted(v) for k, v in sorted(seen.items())})
bad = [f for f, s in want.items() if seen.get(f) != {s}]
sys.exit(1 if bad else 0)
PY
}

# The tuned best of result.json equals the replayed best of replay.json.
same_best() {
  python3 - <<'PY'
import json, sys
ops = [json.load(open(f))[1]["OPAT"]["opat_tuned_operators"][0] for f in ("result.json", "replay.json")]
print("live:", ops[0]["config"], ops[0]["performance_after_tune(us)"], "us; replayed:", ops[1]["config"], ops[1]["performance_after_tune(us)"], "us")
sys.exit(0 if ops[0]["config"] == ops[1]["config"] else 1)
PY
}

record_and_replay() {
  problem=$1
  kernel=$2
  name=$3
  tune "$kernel" "{\"problem\": \"$problem\", \"cachefile\": \"$out/$name.json\", \"max_seconds\": 0.2}" \
    --searcher exhaustive --budget 1000000 --warm_start false || return 1
  printf '{"op": "%s"}' "$kernel" >op.json
  "$host" --plugin opat --device replay --device_options "{\"cachefile\": \"$out/$name.json\", \"kernel\": \"$problem\"}" \
    --singleop op.json --searcher exhaustive --budget 1000000 --warm_start false --result_file replay.json || return 1
  same_best || return 1
  python3 - "$out/$name.json" "$name" >>"$figures" <<'PY'
import json, statistics, sys
cache = json.load(open(sys.argv[1]))["cache"]
timed = [e for e in cache.values() if isinstance(e["time"], (int, float))]
spent = sum(e.get("compile_time", 0) + e.get("benchmark_time", 0) for e in cache.values()) / 1000
best = min(e["time"] for e in timed)
print(f"{sys.argv[2]}: {len(cache)} configs recorded ({len(timed)} timed), optimum {best:.4f} ms, "
      f"median {statistics.median(e['time'] for e in timed):.4f} ms, "
      f"compile + benchmark {spent / len(cache):.3f} s per config")
PY
}

listed() {
  "$host" plugins >listing.txt || return 1
  grep -E '^cuda ' listing.txt | tee -a "$figures" | grep -qv unavailable
}

faults() {
  tune faulty_kernel "{\"problem\": \"$here/problems/faulty.json\", \"timeout_s\": 5}" \
    --searcher exhaustive --budget 64 || return 1
  statuses 0=ok 1=build_failed 2=run_failed 3=timeout 4=run_failed 5=wrong_result
}

bert() {
  "$host" --plugin opat --device cuda --model "$here/models/bert_layer.onnx" --result_file result.json || return 1
  python3 -c "import json; print('bert_layer GEMMs:', json.load(open('result.json'))[1]['OPAT']['repo_summary'])" >>"$figures"
}

fresh listing
check "cuda is listed with a GPU" listed
fresh faults
check "every fault of problems/faulty.cu is its config's result" faults
fresh convolution_small
check "convolution_small recorded live and replayed to the same best" \
  record_and_replay "$here/problems/convolution_small.json" convolution_kernel convolution_small
if [ -n "${AOE_KERNEL_TUNER_DATA:-}" ]; then
  fresh convolution_milo
  check "convolution_milo recorded live and replayed to the same best" \
    record_and_replay "$AOE_KERNEL_TUNER_DATA/kernels/convolution_milo.json" convolution_kernel convolution_milo
  fresh dedispersion_milo
  check "dedispersion_milo tuned live" \
    tune dedispersion_kernel "{\"problem\": \"$AOE_KERNEL_TUNER_DATA/kernels/dedispersion_milo.json\"}" --budget 64
fi
fresh bert
check "OPAT on bert_layer's GEMMs" bert

echo "figures in $figures; log in $log"
[ "$failed" -eq 0 ]
