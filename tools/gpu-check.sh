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
# live as well. AOE_GPU_CHECK_MODEL names another model than
# models/bert_layer.onnx for the GEMM check; AOE_GPU_CHECK_RUN_MODELS the
# models (names under models/) run whole on the GPU, AOE_GPU_CHECK_RUN_BUDGET
# the evaluations each of their GEMMs and Convs is tuned with (16); AOE_GPU_CHECK_SKIP_GEMM_BENCH
# leaves out the GEMM shapes timed beside cuBLAS, AOE_GPU_CHECK_GEMM_SHAPES
# ("MxNxK ...") gives others. AOE_GPU_CHECK_TABLE ("resnet50,bert_layer", off
# by default: it tunes each model again) adds the runtime bench's table,
# model_runtime_bench --device cuda (aoe untuned and tuned, PyTorch eager,
# torch.compile, ONNX Runtime CUDA) at batches 1 and 8, into
# OUTDIR/runtime_table.txt, and AOE_GPU_CHECK_TABLE_TF32 a TF32 one beside it.
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
  started=$(python3 -c 'import time; print(time.time())')
  tune "$kernel" "{\"problem\": \"$problem\", \"cachefile\": \"$out/$name.json\", \"max_seconds\": 0.2}" \
    --searcher exhaustive --budget 1000000 --warm_start false || return 1
  wall_s=$(python3 -c "import time; print(time.time() - $started)")
  printf '{"op": "%s"}' "$kernel" >op.json
  "$host" --plugin opat --device replay --device_options "{\"cachefile\": \"$out/$name.json\", \"kernel\": \"$problem\"}" \
    --singleop op.json --searcher exhaustive --budget 1000000 --warm_start false --result_file replay.json || return 1
  same_best || return 1
  python3 - "$out/$name.json" "$name" "$wall_s" "${AOE_KERNEL_TUNER_DATA:-}" >>"$figures" <<'PY'
import glob, gzip, json, statistics, sys
cache = json.load(open(sys.argv[1]))["cache"]
timed = [e for e in cache.values() if isinstance(e["time"], (int, float))]
best = min(e["time"] for e in timed)
print(f"{sys.argv[2]}: {len(cache)} configs recorded ({len(timed)} timed), optimum {best:.4f} ms, "
      f"median {statistics.median(e['time'] for e in timed):.4f} ms; "
      f"the exhaustive run took {float(sys.argv[3]) / len(cache):.4f} s of wall time per config")
# Kernel Tuner's own cost per config on benchmark_hub's recordings of the same problem.
for hub in sorted(glob.glob(f"{sys.argv[4]}/{sys.argv[2]}_*.json.gz")) if sys.argv[4] else []:
    entries = json.load(gzip.open(hub))["cache"].values()
    cost = [sum(e.get(k, 0) for k in ("compile_time", "benchmark_time", "framework_time", "verification_time")) / 1000
            for e in entries]
    print(f"  Kernel Tuner on {hub.split('/')[-1]}: {statistics.mean(cost):.3f} s per config "
          f"({statistics.mean(cost) / (float(sys.argv[3]) / len(cache)):.1f}x aoe's)")
PY
  search_on_recording "$problem" "$kernel" "$name"
}

# The default searcher on the recording, 25 seeds at a budget of 5% of its
# timed configs: the best found over the recording's optimum, median and worst.
search_on_recording() {
  problem=$1
  kernel=$2
  name=$3
  budget=$(python3 -c "import json, sys; c = json.load(open(sys.argv[1]))['cache'].values(); print(max(1, len([e for e in c if isinstance(e['time'], (int, float))]) // 20))" "$out/$name.json")
  printf '{"op": "%s"}' "$kernel" >op.json
  for seed in $(seq 1 25); do
    rm -rf bank
    "$host" --plugin opat --device replay --device_options "{\"cachefile\": \"$out/$name.json\", \"kernel\": \"$problem\"}" \
      --singleop op.json --budget "$budget" --seed "$seed" --warm_start false --result_file "search_$seed.json" || return 1
  done
  python3 - "$out/$name.json" "$name" "$budget" >>"$figures" <<'PY'
import glob, json, statistics, sys
cache = json.load(open(sys.argv[1]))["cache"]
optimum = min(e["time"] for e in cache.values() if isinstance(e["time"], (int, float)))
found = [json.load(open(f))[1]["OPAT"]["opat_tuned_operators"][0]["performance_after_tune(us)"] / 1000
         for f in glob.glob("search_*.json")]
ratios = sorted(optimum / t for t in found)
print(f"  default searcher on the recording, {len(found)} seeds, budget {sys.argv[3]}: "
      f"optimum / best found median {statistics.median(ratios):.3f}, worst {ratios[0]:.3f}")
PY
}

# The plugin's row and, under it, the GPU it opened (or why it could not).
listed() {
  "$host" plugins >listing.txt || return 1
  grep -A1 -E '^cuda ' listing.txt | tee -a "$figures" >row.txt
  grep -q '^cuda ' row.txt && ! grep -q unavailable row.txt
}

faults() {
  tune faulty_kernel "{\"problem\": \"$here/problems/faulty.json\", \"timeout_s\": 5}" \
    --searcher exhaustive --budget 64 || return 1
  statuses 0=ok 1=build_failed 2=run_failed 3=timeout 4=run_failed 5=wrong_result
}

gemms() {
  model=${AOE_GPU_CHECK_MODEL:-$here/models/bert_layer.onnx}
  "$host" --plugin opat --device cuda --model "$model" --result_file result.json || return 1
  python3 -c "import json, sys; print(sys.argv[1], 'GEMMs:', json.load(open('result.json'))[1]['OPAT']['repo_summary'])" \
    "$(basename "$model")" >>"$figures"
}

# Each model run whole on the GPU and checked against the cpu device's
# references, then tuned on a miss and run again: every kernel then a hit.
run_models() {
  for m in ${AOE_GPU_CHECK_RUN_MODELS:-mlp bert_layer resnet50 mobilenet_v2 ocr_cls ocr_det}; do
    "$host" run --device cuda --model "$here/models/$m.onnx" --check --iterations 20 --run_report "untuned_$m.json" || return 1
    # Every GEMM and Conv is tuned: a budget that fits the machine's time.
    "$host" run --device cuda --model "$here/models/$m.onnx" --check --iterations 20 --tune_on_miss true \
      --budget "${AOE_GPU_CHECK_RUN_BUDGET:-16}" --run_report "tuned_$m.json" || return 1
    python3 - "$m" >>"$figures" <<'PY' || return 1
import json, sys
m = sys.argv[1]
untuned, tuned = (json.load(open(f"{kind}_{m}.json")) for kind in ("untuned", "tuned"))
lat = lambda r: f"median {r['latency_ms']['median']:.3f} ms (min {r['latency_ms']['min']:.3f}, p90 {r['latency_ms']['p90']:.3f})"
print(f"run {m} on {tuned['gpu']}: {tuned['kernel_count']} kernels; untuned {lat(untuned)}; tuned {lat(tuned)}; "
      f"bank {tuned['bank']['hit']} hits, {tuned['bank']['miss']} misses; check {tuned['check']['match']}")
sys.exit(0 if tuned["bank"]["miss"] == 0 and tuned["check"]["match"] and untuned["check"]["match"] else 1)
PY
  done
}

# The GEMM shapes of cpu_gemm_bench (BERT s128/s512 at batch 1 and 8,
# ResNet-50's, squares to 4096), each tuned by OPAT on the GPU, beside
# cuBLAS's SGEMM with TF32 off (torch, where this machine has it), timed the
# same way: CUDA events around each launch, median of repeats after warm-up.
gemm_shapes=${AOE_GPU_CHECK_GEMM_SHAPES:-"128x768x768 128x3072x768 128x768x3072 512x768x768 1024x768x768 1024x3072x768 4096x768x3072 256x1000x2048 3136x64x576 784x128x1152 512x512x512 1024x1024x1024 2048x2048x2048 4096x4096x4096"}
gemm_vs_cublas() {
  for shape in $gemm_shapes; do
    m=${shape%%x*}
    rest=${shape#*x}
    n=${rest%%x*}
    k=${rest#*x}
    printf '[{"op": "MatMul", "name": "gemm_%s", "input_desc": [{"shape": [%s, %s], "type": "float32"}, {"shape": [%s, %s], "type": "float32", "const": true}], "output_desc": [{"shape": [%s, %s], "type": "float32"}]}]' \
      "$shape" "$m" "$k" "$k" "$n" "$m" "$n" >"gemm_$shape.json"
    "$host" --plugin opat --device cuda --singleop "gemm_$shape.json" --budget 128 --result_file "gemm_$shape.result.json" || return 1
  done
  python3 - $gemm_shapes >>"$figures" <<'PY'
import json, math, statistics, sys
shapes = sys.argv[1:]
tuned = {}
for s in shapes:
    op = json.load(open(f"gemm_{s}.result.json"))[1]["OPAT"]["opat_tuned_operators"][0]
    tuned[s] = (op["performance_before_tune(us)"], op["performance_after_tune(us)"])
cublas = {}
try:
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    for s in shapes:
        m, n, k = map(int, s.split("x"))
        a = torch.randn(m, k, device="cuda")
        b = torch.randn(k, n, device="cuda")
        for _ in range(10):
            torch.matmul(a, b)
        times = []
        for _ in range(50):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record(); torch.matmul(a, b); end.record(); end.synchronize()
            times.append(start.elapsed_time(end) * 1000)
        cublas[s] = statistics.median(times)
except Exception as e:  # no torch, or no GPU for it: aoe's figures stand alone
    print(f"cuBLAS not measured: {e}")
print("GEMM (MxNxK): aoe default us, aoe tuned us, TFLOP/s tuned" + (", cuBLAS us (TF32 off), cuBLAS/aoe" if cublas else ""))
ratios = []
for s in shapes:
    m, n, k = map(int, s.split("x"))
    before, after = tuned[s]
    row = f"  {s}: {before:.1f}, {after:.1f}, {2 * m * n * k / after / 1e6:.2f}"
    if s in cublas:
        ratios.append(cublas[s] / after)
        row += f", {cublas[s]:.1f}, {ratios[-1]:.2f}"
    print(row)
if ratios:
    print(f"  geomean cuBLAS time / aoe tuned time: {math.exp(sum(map(math.log, ratios)) / len(ratios)):.2f} (>= 0.8 is the goal)")
PY
}

fresh listing
check "cuda is listed with a GPU" listed
# model_runtime_bench --device cuda on the bundle's models, fp32 (and TF32 where asked).
runtime_table() {
  for tf32 in "" ${AOE_GPU_CHECK_TABLE_TF32:+--tf32}; do
    AOE_BENCH_HOST="$host" AOE_BENCH_MODELS_DIR="$here/models" AOE_BENCH_SCRIPTS_DIR="$here/bench" \
      "$here/bin/model_runtime_bench" --device cuda --models "$AOE_GPU_CHECK_TABLE" --batches 1,8 --iterations 20 \
      --rounds 1 --budget "${AOE_GPU_CHECK_RUN_BUDGET:-16}" --work "$out/runtime_table_work$tf32" $tf32 \
      >>"$out/runtime_table.txt" || return 1
  done
  cat "$out/runtime_table.txt" >>"$figures"
}

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
fresh gemms
check "OPAT on a model's GEMMs" gemms
fresh run_models
check "models run on the GPU, checked, then tuned on a miss" run_models
if [ -z "${AOE_GPU_CHECK_SKIP_GEMM_BENCH:-}" ]; then
  fresh gemm_vs_cublas
  check "GEMMs tuned beside cuBLAS" gemm_vs_cublas
fi
if [ -n "${AOE_GPU_CHECK_TABLE:-}" ]; then
  fresh runtime_table
  check "the runtime table beside PyTorch and ONNX Runtime" runtime_table
fi

echo "figures in $figures; log in $log"
[ "$failed" -eq 0 ]
