// ONNX Runtime (the onnxruntime-node package) timing one model as
// model_runtime_bench times aoe: random inputs, one untimed run, then
// `iterations` timed runs on `threads` intra-op threads. Prints one JSON line.
// usage: node ort_run.js MODEL '{"input": [dims...]}' ITERATIONS THREADS
const path = require('path');
const [model, shapesJson, iterationsText, threadsText] = process.argv.slice(2);
const ort = require(path.join(process.env.AOE_ONNXRUNTIME_NODE, 'onnxruntime-node'));
const {timeRuns} = require('./ort_timing.js');

async function main() {
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: Number(threadsText), interOpNumThreads: 1, graphOptimizationLevel: 'all',
    executionMode: 'sequential'});
  const feeds = {};
  for (const [name, dims] of Object.entries(JSON.parse(shapesJson))) {
    const n = dims.reduce((a, b) => a * b, 1);
    const data = new Float32Array(n);
    for (let i = 0; i < n; ++i) data[i] = Math.random() * 2 - 1;
    feeds[name] = new ort.Tensor('float32', data, dims);
  }
  await session.run(feeds);
  const times = await timeRuns(session, feeds, Number(iterationsText));
  console.log(JSON.stringify({...times, peak_rss_bytes: process.resourceUsage().maxRSS * 1024}));
}
main().catch((e) => { console.error(String(e)); process.exit(1); });
