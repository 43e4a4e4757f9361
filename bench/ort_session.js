// An ONNX Runtime session as the benches run it beside aoe: graph
// optimisations on, `threads` intra-op threads, one op at a time; and
// random float32 inputs of the given shapes.
async function openSession(ort, model, threads, options = {}) {
  return ort.InferenceSession.create(model, {
    intraOpNumThreads: Number(threads), interOpNumThreads: 1, graphOptimizationLevel: 'all',
    executionMode: 'sequential', ...options});
}

// `shapesJson`: '{"input": [dims...], ...}'; values uniform in [-1, 1).
function randomFeeds(ort, shapesJson) {
  const feeds = {};
  for (const [name, dims] of Object.entries(JSON.parse(shapesJson))) {
    const n = dims.reduce((a, b) => a * b, 1);
    const data = new Float32Array(n);
    for (let i = 0; i < n; ++i) data[i] = Math.random() * 2 - 1;
    feeds[name] = new ort.Tensor('float32', data, dims);
  }
  return feeds;
}

module.exports = {openSession, randomFeeds};
