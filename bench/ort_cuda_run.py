"""A model in ONNX Runtime's CUDA execution provider, for the CUDA runtime
bench's ONNX Runtime column.

    python3 ort_cuda_run.py MODEL.onnx SHAPES.json ITERATIONS TF32

SHAPES.json maps each input to its shape. Prints one JSON line: min, median
and p90 ms of ITERATIONS timed runs after warm-up runs. Exits 3, saying so,
where onnxruntime has no CUDAExecutionProvider. Inputs are uniform in
[-1, 1) from a fixed seed; TF32 (0 or 1) is the provider's use_tf32.
"""
import json
import sys
import time

import numpy as np
import onnxruntime as ort


def main():
    model, shapes, iterations, tf32 = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
    if "CUDAExecutionProvider" not in ort.get_available_providers():
        print("onnxruntime " + ort.__version__ + " has no CUDAExecutionProvider", file=sys.stderr)
        sys.exit(3)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(model, options, providers=[("CUDAExecutionProvider", {"use_tf32": int(tf32)})])
    rng = np.random.default_rng(1)
    feeds = {i.name: (rng.random(shapes[i.name], dtype=np.float32) * 2 - 1) for i in session.get_inputs()}
    # Inputs and outputs bound on the GPU, as a served model keeps them.
    binding = session.io_binding()
    for name, x in feeds.items():
        binding.bind_ortvalue_input(name, ort.OrtValue.ortvalue_from_numpy(x, "cuda", 0))
    for out in session.get_outputs():
        binding.bind_output(out.name, "cuda")
    for _ in range(3):
        session.run_with_iobinding(binding)
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        session.run_with_iobinding(binding)
        binding.synchronize_outputs()
        times.append((time.perf_counter() - start) * 1e3)
    times.sort()
    print(json.dumps({"min": times[0], "median": times[len(times) // 2], "p90": times[int(0.9 * (len(times) - 1))]}))


if __name__ == "__main__":
    main()
