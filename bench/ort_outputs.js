// ONNX Runtime (the onnxruntime-node package) on inputs ort_compare wrote:
// its outputs, as raw float32 files in OUT_DIR, and its latency over
// ITERATIONS timed runs after one untimed run, on THREADS intra-op threads.
// Prints one JSON line: {version, min, median, p90, outputs: [{name, dims, dtype, file}]}.
// usage: node ort_outputs.js MODEL INPUTS_JSON OUT_DIR ITERATIONS THREADS
const fs = require('fs');
const path = require('path');
const [model, inputsJson, outDir, iterationsText, threadsText] = process.argv.slice(2);
const root = path.join(process.env.AOE_ONNXRUNTIME_NODE, 'onnxruntime-node');
const ort = require(root);
const {openSession} = require('./ort_session.js');
const {timeRuns} = require('./ort_timing.js');

async function main() {
  const session = await openSession(ort, model, threadsText);
  const feeds = {};
  for (const input of JSON.parse(fs.readFileSync(inputsJson, 'utf8'))) {
    const bytes = fs.readFileSync(input.file);
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
    const data = input.dtype === 'int64' ? new BigInt64Array(buffer) : new Float32Array(buffer);
    feeds[input.name] = new ort.Tensor(input.dtype, data, input.dims);
  }
  const results = await session.run(feeds);
  const times = await timeRuns(session, feeds, Number(iterationsText));
  const outputs = [];
  for (const [name, tensor] of Object.entries(results)) {
    if (tensor.type !== 'float32') {
      outputs.push({name, dims: tensor.dims, dtype: tensor.type});
      continue;
    }
    const file = path.join(outDir, `ort_output_${outputs.length}.bin`);
    fs.writeFileSync(file, Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength));
    outputs.push({name, dims: tensor.dims, dtype: 'float32', file});
  }
  const version = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version;
  console.log(JSON.stringify({version, ...times, outputs}));
}
main().catch((e) => { console.error(String(e)); process.exit(1); });
