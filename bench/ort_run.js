// ONNX Runtime (the onnxruntime-node package) timing one model as
// model_runtime_bench times aoe: random inputs, one untimed run, then
// `iterations` timed runs on `threads` intra-op threads. Prints one JSON line.
// usage: node ort_run.js MODEL '{"input": [dims...]}' ITERATIONS THREADS
const path = require('path');
const [model, shapesJson, iterationsText, threadsText] = process.argv.slice(2);
const ort = require(path.join(process.env.AOE_ONNXRUNTIME_NODE, 'onnxruntime-node'));
const {openSession, randomFeeds} = require('./ort_session.js');
const {timeRuns} = require('./ort_timing.js');

async function main() {
  const session = await openSession(ort, model, threadsText);
  const feeds = randomFeeds(ort, shapesJson);
  await session.run(feeds);
  const times = await timeRuns(session, feeds, Number(iterationsText));
  console.log(JSON.stringify({...times, peak_rss_bytes: process.resourceUsage().maxRSS * 1024}));
}
main().catch((e) => { console.error(String(e)); process.exit(1); });
