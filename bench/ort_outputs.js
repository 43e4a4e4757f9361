// ONNX Runtime (the onnxruntime-node package) on inputs ort_compare wrote
// (float32, int64, int32 or bool): its outputs, as raw float32 files in
// OUT_DIR (integers and bools as the whole numbers they are; float16 ones
// are listed with no file), and its latency over
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
    const arrays = {int64: BigInt64Array, int32: Int32Array, bool: Uint8Array, float32: Float32Array};
    feeds[input.name] = new ort.Tensor(input.dtype, new arrays[input.dtype](buffer), input.dims);
  }
  const results = await session.run(feeds);
  const times = await timeRuns(session, feeds, Number(iterationsText));
  const outputs = [];
  for (const [name, tensor] of Object.entries(results)) {
    if (tensor.type === 'float16' || tensor.type === 'string') {
      outputs.push({name, dims: tensor.dims, dtype: tensor.type});
      continue;
    }
    const values = tensor.type === 'float32' ? tensor.data : Float32Array.from(tensor.data, Number);
    const file = path.join(outDir, `ort_output_${outputs.length}.bin`);
    fs.writeFileSync(file, Buffer.from(values.buffer, values.byteOffset, values.byteLength));
    outputs.push({name, dims: tensor.dims, dtype: tensor.type, file});
  }
  const version = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version;
  console.log(JSON.stringify({version, ...times, outputs}));
}
main().catch((e) => { console.error(String(e)); process.exit(1); });
