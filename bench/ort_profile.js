// ONNX Runtime's own per-node times for one model, for setting beside the
// kernels of aoe's run report: random inputs, `iterations` runs of one
// session on `threads` intra-op threads with ONNX Runtime's profiler on,
// the first run left out. Prints one JSON object: node name -> {op, median_us}
// (ONNX Runtime names a Conv it fused after the last node it took, with
// "_nchwc" where it runs on the channel-blocked layout).
// usage: node ort_profile.js MODEL '{"input": [dims...]}' ITERATIONS THREADS
const fs = require('fs');
const os = require('os');
const path = require('path');
const [model, shapesJson, iterationsText, threadsText] = process.argv.slice(2);
const ort = require(path.join(process.env.AOE_ONNXRUNTIME_NODE, 'onnxruntime-node'));
const {openSession, randomFeeds} = require('./ort_session.js');

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ort_profile_'));
  const session = await openSession(ort, model, threadsText, {enableProfiling: true, profileFilePrefix: path.join(dir, 'ort')});
  const feeds = randomFeeds(ort, shapesJson);
  for (let i = 0; i < Number(iterationsText) + 1; ++i) await session.run(feeds);
  session.endProfiling();
  const file = fs.readdirSync(dir).map((f) => path.join(dir, f))[0];
  const runs = {};
  for (const e of JSON.parse(fs.readFileSync(file, 'utf8')))
    if (e.cat === 'Node' && e.name.endsWith('_kernel_time')) {
      const name = e.name.slice(0, -'_kernel_time'.length);
      (runs[name] = runs[name] || {op: e.args.op_name, us: []}).us.push(e.dur);
    }
  fs.rmSync(dir, {recursive: true, force: true});
  const out = {};
  for (const [name, {op, us}] of Object.entries(runs)) {
    const timed = us.slice(1).sort((a, b) => a - b);
    out[name] = {op, median_us: timed[Math.floor(timed.length / 2)]};
  }
  console.log(JSON.stringify(out));
}
main().catch((e) => { console.error(String(e)); process.exit(1); });
