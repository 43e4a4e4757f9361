// ONNX Runtime timed as the benches time aoe: `iterations` runs of one
// session on the same feeds (after the caller's untimed run), their min,
// median and 90th percentile in milliseconds.
async function timeRuns(session, feeds, iterations) {
  const ms = [];
  for (let i = 0; i < iterations; ++i) {
    const start = process.hrtime.bigint();
    await session.run(feeds);
    ms.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  ms.sort((a, b) => a - b);
  const at = (q) => ms[Math.min(ms.length - 1, Math.round(q * (ms.length - 1)))];
  return {min: ms[0], median: at(0.5), p90: at(0.9)};
}

module.exports = {timeRuns};
