"""A model as PyTorch runs it, for the CUDA runtime bench's PyTorch columns.

    python3 torch_run.py GRAPH.json GRAPH.bin ITERATIONS MODE DEVICE TF32 [IO.npz]

GRAPH.json and GRAPH.bin are the model as graph_export.h writes it (no onnx
package needed). Each ONNX node runs as the torch function that computes
it, in graph order: PyTorch eager, as a model written op by op in PyTorch
runs. MODE is eager, or compile (torch.compile of the same function, its
default mode). DEVICE is cuda (or cpu, for a check without a GPU). TF32 is 0
or 1: torch.backends' allow_tf32 for matmuls and cuDNN convolutions.

Prints one JSON line: min, median and p90 ms of ITERATIONS timed runs after
warm-up runs, and the peak GPU memory PyTorch allocated. Inputs are uniform
in [-1, 1) from a fixed seed. With IO.npz: one run on the arrays it holds
(named as the graph's inputs), whose outputs replace them in it.
"""
import json
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

DTYPES = {"float32": np.float32, "float64": np.float64, "float16": np.float16, "int64": np.int64,
          "int32": np.int32, "int8": np.int8, "uint8": np.uint8, "bool": np.bool_}
# ONNX TensorProto dtypes, for Cast's "to".
CAST = {1: torch.float32, 6: torch.int32, 7: torch.int64, 9: torch.bool, 10: torch.float16, 11: torch.float64}


def ints(v):
    return [int(x) for x in (v.tolist() if torch.is_tensor(v) else v)]


def axes_of(node, args, index):
    if "axes" in node["attrs"]:
        return node["attrs"]["axes"]
    return ints(args[index]) if len(args) > index and args[index] is not None else None


def pooled(x, a, fn):
    k = a["kernel_shape"]
    pads = a.get("pads", [0] * (2 * len(k)))
    half = len(k)
    if pads[:half] != pads[half:]:  # asymmetric: pad first (max pools with -inf)
        flat = []
        for i in reversed(range(half)):
            flat += [pads[i], pads[i + half]]
        x = F.pad(x, flat, value=float("-inf") if fn is F.max_pool2d else 0.0)
        pads = [0] * (2 * half)
    kw = {"kernel_size": k, "stride": a.get("strides", [1] * half), "padding": pads[:half],
          "ceil_mode": bool(a.get("ceil_mode", 0))}
    if fn is F.avg_pool2d:
        kw["count_include_pad"] = bool(a.get("count_include_pad", 0))
    return fn(x, **kw)


def conv(x, w, b, a, transpose=False):
    k = len(w.shape) - 2
    pads = a.get("pads", [0] * (2 * k))
    if pads[:k] != pads[k:]:
        flat = []
        for i in reversed(range(k)):
            flat += [pads[i], pads[i + k]]
        x = F.pad(x, flat)
        pads = [0] * (2 * k)
    kw = {"stride": a.get("strides", [1] * k), "padding": pads[:k], "dilation": a.get("dilations", [1] * k),
          "groups": a.get("group", 1)}
    if transpose:
        kw["output_padding"] = a.get("output_padding", [0] * k)
        return [F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d][k - 1](x, w, b, **kw)
    return [F.conv1d, F.conv2d, F.conv3d][k - 1](x, w, b, **kw)


def resize(x, args, a):
    mode = a.get("mode", "nearest")
    sizes = args[3] if len(args) > 3 and args[3] is not None and args[3].numel() else None
    scales = args[2] if len(args) > 2 and args[2] is not None and args[2].numel() else None
    size = ints(sizes)[2:] if sizes is not None else None
    factor = [float(s) for s in scales.tolist()[2:]] if size is None else None
    if mode == "nearest":
        return F.interpolate(x, size=size, scale_factor=factor, mode="nearest")
    align = a.get("coordinate_transformation_mode", "half_pixel") == "align_corners"
    return F.interpolate(x, size=size, scale_factor=factor, mode="bilinear" if x.dim() == 4 else "linear",
                         align_corners=align)


def reshape(x, shape):
    shape = ints(shape)
    return x.reshape([x.shape[i] if d == 0 else d for i, d in enumerate(shape)])


def clip(x, args, a):
    lo = args[1] if len(args) > 1 and args[1] is not None else a.get("min")
    hi = args[2] if len(args) > 2 and args[2] is not None else a.get("max")
    return torch.clamp(x, min=None if lo is None else float(lo), max=None if hi is None else float(hi))


def gemm(args, a):
    x = args[0].t() if a.get("transA", 0) else args[0]
    w = args[1].t() if a.get("transB", 0) else args[1]
    y = a.get("alpha", 1.0) * (x @ w)
    if len(args) > 2 and args[2] is not None:
        y = y + a.get("beta", 1.0) * args[2]
    return y


def layer_norm(args, a):
    x = args[0]
    axis = a.get("axis", -1) % x.dim()
    shape = list(x.shape[axis:])
    return F.layer_norm(x, shape, args[1], args[2] if len(args) > 2 else None, a.get("epsilon", 1e-5))


def slice_(args):
    x, starts, ends = args[0], ints(args[1]), ints(args[2])
    axes = ints(args[3]) if len(args) > 3 and args[3] is not None else list(range(len(starts)))
    steps = ints(args[4]) if len(args) > 4 and args[4] is not None else [1] * len(starts)
    index = [slice(None)] * x.dim()
    for s, e, ax, st in zip(starts, ends, axes, steps):
        index[ax % x.dim()] = slice(s, min(e, x.shape[ax]) if e > 0 else e, st)
    return x[tuple(index)]


def split(node, args):
    a, x = node["attrs"], args[0]
    axis = a.get("axis", 0)
    parts = ints(args[1]) if len(args) > 1 and args[1] is not None else a.get("split")
    if parts is None:
        n = len(node["outputs"])
        parts = [x.shape[axis] // n] * n
    return list(torch.split(x, parts, dim=axis))


def reduce(fn, node, args):
    axes = axes_of(node, args, 1)
    keep = bool(node["attrs"].get("keepdims", 1))
    if axes is None:
        axes = list(range(args[0].dim()))
    return fn(args[0], dim=axes, keepdim=keep)


UNARY = {"Relu": torch.relu, "Sigmoid": torch.sigmoid, "Tanh": torch.tanh, "Erf": torch.erf, "Exp": torch.exp,
         "Log": torch.log, "Sqrt": torch.sqrt, "Neg": torch.neg, "Reciprocal": torch.reciprocal, "Abs": torch.abs,
         "Identity": lambda x: x, "Dropout": lambda x: x, "Floor": torch.floor, "Ceil": torch.ceil}
BINARY = {"Add": torch.add, "Sub": torch.sub, "Mul": torch.mul, "Div": torch.div, "Pow": torch.pow,
          "Equal": torch.eq, "Less": torch.lt, "Greater": torch.gt, "MatMul": torch.matmul}


def run_node(node, args):
    t, a = node["op_type"], node["attrs"]
    if t in UNARY:
        return [UNARY[t](args[0])]
    if t in BINARY:
        return [BINARY[t](args[0], args[1])]
    if t == "Conv":
        return [conv(args[0], args[1], args[2] if len(args) > 2 else None, a)]
    if t == "ConvTranspose":
        return [conv(args[0], args[1], args[2] if len(args) > 2 else None, a, transpose=True)]
    if t == "BatchNormalization":
        return [F.batch_norm(args[0], args[3], args[4], args[1], args[2], False, 0.0, a.get("epsilon", 1e-5))]
    if t == "Gemm":
        return [gemm(args, a)]
    if t == "LeakyRelu":
        return [F.leaky_relu(args[0], a.get("alpha", 0.01))]
    if t == "HardSigmoid":
        return [torch.clamp(a.get("alpha", 0.2) * args[0] + a.get("beta", 0.5), 0, 1)]
    if t == "HardSwish":
        return [F.hardswish(args[0])]
    if t == "Clip":
        return [clip(args[0], args, a)]
    if t == "Gelu":
        return [F.gelu(args[0], approximate=a.get("approximate", "none"))]
    if t in ("Max", "Min"):
        out = args[0]
        for x in args[1:]:
            out = torch.maximum(out, x) if t == "Max" else torch.minimum(out, x)
        return [out]
    if t == "Where":
        return [torch.where(args[0].bool(), args[1], args[2])]
    if t == "MaxPool":
        return [pooled(args[0], a, F.max_pool2d)]
    if t == "AveragePool":
        return [pooled(args[0], a, F.avg_pool2d)]
    if t == "GlobalAveragePool":
        return [args[0].mean(dim=list(range(2, args[0].dim())), keepdim=True)]
    if t == "GlobalMaxPool":
        return [args[0].amax(dim=list(range(2, args[0].dim())), keepdim=True)]
    if t == "Flatten":
        axis = a.get("axis", 1)
        return [args[0].reshape(int(np.prod(args[0].shape[:axis])), -1)]
    if t == "Reshape":
        return [reshape(args[0], args[1])]
    if t == "Transpose":
        return [args[0].permute(a.get("perm", list(reversed(range(args[0].dim())))))]
    if t == "Squeeze":
        axes = axes_of(node, args, 1)
        return [args[0].squeeze() if axes is None else args[0].squeeze(tuple(ax % args[0].dim() for ax in axes))]
    if t == "Unsqueeze":
        x, axes = args[0], axes_of(node, args, 1)
        for ax in sorted(ax % (x.dim() + len(axes)) for ax in axes):
            x = x.unsqueeze(ax)
        return [x]
    if t == "Concat":
        return [torch.cat([x.to(args[0].device) for x in args], dim=a["axis"])]
    if t == "Split":
        return split(node, args)
    if t == "Slice":
        return [slice_(args)]
    if t == "Gather":
        index = args[1].to(args[0].device)
        return [torch.index_select(args[0], a.get("axis", 0) % args[0].dim(), index.reshape(-1).long()).reshape(
            list(args[0].shape[:a.get("axis", 0) % args[0].dim()]) + list(index.shape) +
            list(args[0].shape[a.get("axis", 0) % args[0].dim() + 1:]))]
    if t == "Shape":
        return [torch.tensor(list(args[0].shape), dtype=torch.int64)]
    if t == "Cast":
        return [args[0].to(CAST[a["to"]])]
    if t == "Softmax":
        return [torch.softmax(args[0], dim=a.get("axis", -1))]
    if t == "LogSoftmax":
        return [torch.log_softmax(args[0], dim=a.get("axis", -1))]
    if t == "LayerNormalization":
        return [layer_norm(args, a)]
    if t == "ReduceMean":
        return [reduce(torch.mean, node, args)]
    if t == "ReduceSum":
        return [reduce(torch.sum, node, args)]
    if t == "Resize":
        return [resize(args[0], args, a)]
    if t == "Pad":
        pads = ints(args[1]) if len(args) > 1 else a["pads"]
        half = len(pads) // 2
        flat = []
        for i in reversed(range(half)):
            flat += [pads[i], pads[i + half]]
        value = float(args[2]) if len(args) > 2 and args[2] is not None else 0.0
        return [F.pad(args[0], flat, value=value)]
    if t == "Expand":
        return [args[0].expand(torch.broadcast_shapes(args[0].shape, tuple(ints(args[1]))))]
    if t == "Tile":
        return [args[0].repeat(ints(args[1]))]
    if t == "ConstantOfShape":
        return [torch.zeros(ints(args[0]))]
    raise NotImplementedError("no PyTorch function for ONNX op " + t + " (node " + node["name"] + ")")


class Graph:
    def __init__(self, graph_json, graph_bin, device):
        doc = json.load(open(graph_json))
        raw = np.fromfile(graph_bin, dtype=np.uint8)
        self.device = device

        def tensor(t):
            a = raw[t["offset"]:t["offset"] + t["bytes"]].view(DTYPES[t["dtype"]]).reshape(t["shape"]).copy()
            # Shapes and indices stay on the host, where reshapes read them.
            return torch.from_numpy(a).to(device if a.dtype.kind == "f" else "cpu")

        self.values = {name: tensor(t) for name, t in doc["initializers"].items()}
        self.nodes = doc["nodes"]
        for n in self.nodes:
            if n["op_type"] == "Constant":
                self.values[n["outputs"][0]] = tensor(n["attrs"]["value"]["tensor"])
        self.nodes = [n for n in self.nodes if n["op_type"] != "Constant"]
        self.inputs = doc["inputs"]
        self.outputs = doc["outputs"]

    def __call__(self, *feeds):
        values = dict(self.values)
        for spec, x in zip(self.inputs, feeds):
            values[spec["name"]] = x
        for node in self.nodes:
            args = [values[name] if name else None for name in node["inputs"]]
            for name, out in zip(node["outputs"], run_node(node, args)):
                values[name] = out
        return [values[name] for name in self.outputs]


def main():
    graph_json, graph_bin, iterations, mode, device, tf32 = sys.argv[1:7]
    outputs_file = sys.argv[7] if len(sys.argv) > 7 else None
    torch.backends.cuda.matmul.allow_tf32 = tf32 == "1"
    torch.backends.cudnn.allow_tf32 = tf32 == "1"
    torch.backends.cudnn.benchmark = True
    graph = Graph(graph_json, graph_bin, device)
    gen = torch.Generator().manual_seed(1)
    feeds = [(torch.rand(spec["shape"], generator=gen) * 2 - 1).to(device) for spec in graph.inputs]
    if outputs_file:
        given = np.load(outputs_file)
        feeds = [torch.from_numpy(given[spec["name"]].astype(np.float32)).to(device) for spec in graph.inputs]
    fn = torch.compile(graph) if mode == "compile" else graph
    with torch.no_grad():
        if outputs_file:
            out = fn(*feeds)
            np.savez(outputs_file, **{name: o.float().cpu().numpy() for name, o in zip(graph.outputs, out)})
            return
        sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
        for _ in range(3 if mode == "eager" else 10):  # compile, autotune, warm
            fn(*feeds)
        sync()
        if device == "cuda":
            torch.cuda.reset_peak_memory_stats()
        times = []
        for _ in range(int(iterations)):
            start = time.perf_counter()
            fn(*feeds)
            sync()
            times.append((time.perf_counter() - start) * 1e3)
    times.sort()
    peak = torch.cuda.max_memory_allocated() if device == "cuda" else 0
    print(json.dumps({"min": times[0], "median": times[len(times) // 2], "p90": times[int(0.9 * (len(times) - 1))],
                      "peak_gpu_bytes": peak}))


if __name__ == "__main__":
    main()
