"""The aoe package as a user drives it: tune, the parsed result, errors, Ctrl-C, running a model."""
import json
import os
import signal
import subprocess
import time

import pytest

import aoe

MODEL = os.environ["AOE_MODEL"]


def session_in(tmp_path, **extra):
    options = dict(device="ascend910", budget=16, work_path=tmp_path,
                   bank_path=tmp_path / "bank", log_level="warn", progress=False)
    options.update(extra)
    return aoe.Session(**options)


def banked_signatures(bank):
    """The signatures of the operator bank's entry files (its index lives in .index/)."""
    return {json.loads(f.read_text())["key"]["signature"]
            for f in (bank / "op").rglob("*.json") if f.parent.name != ".index"}


def test_tune_returns_the_parsed_result(tmp_path):
    result = session_in(tmp_path).tune(MODEL, mode="opat")
    assert result["basic"]["tuning_name"] == "mlp"
    assert result["basic"]["device"] == "ascend910"
    assert result["OPAT"]["opat_tuning_result"] == "tuning successful"
    # The same document as the result file written beside it.
    files = list(tmp_path.glob("aoe_result_opat_*.json"))
    assert len(files) == 1
    written = {}
    for part in json.loads(files[0].read_text()):
        written.update(part)
    assert written["OPAT"] == result["OPAT"]


def test_aoe_config_as_mindspore_writes_it(tmp_path):
    session = session_in(tmp_path, aoe_config={"job_type": "2", "budget": "4"})
    result = session.tune(MODEL)
    assert "OPAT" in result
    assert session.result == result


def test_tune_bytes_and_bank_query(tmp_path):
    session = session_in(tmp_path)
    with open(MODEL, "rb") as f:
        result = session.tune(f.read(), mode="opat", name="mlp_bytes")
    assert result["basic"]["tuning_name"] == "mlp_bytes"
    signatures = banked_signatures(tmp_path / "bank")
    assert signatures, "nothing was banked"
    for signature in signatures:
        entries = session.bank_entries(signature)
        assert [e["key"]["signature"] for e in entries] == [signature]
        assert entries[0]["after_us"] > 0
    assert session.bank_entries("no-such-signature") == []


def test_progress_callback_reports_tasks(tmp_path):
    reports = []
    session_in(tmp_path, progress=lambda *report: reports.append(report)).tune(MODEL, mode="opat")
    assert reports
    stage, done, total, note = reports[-1]
    assert stage == "task" and 1 <= done <= total and note


def test_bad_model_raises_aoe_error(tmp_path):
    bad = tmp_path / "broken.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(aoe.Error) as caught:
        session_in(tmp_path).tune(bad, mode="opat")
    assert "broken.onnx" in str(caught.value)
    assert caught.value.status == "invalid argument"


def test_bad_option_raises_aoe_error_naming_it(tmp_path):
    with pytest.raises(aoe.Error, match="budgett"):
        aoe.Session(budgett=3)
    with pytest.raises(aoe.Error, match="budget"):
        aoe.Session(budget="lots")


def test_ctrl_c_cancels_and_raises_keyboard_interrupt(tmp_path):
    session = None
    fired = []

    def interrupt_once(stage, done, total, note):
        # Ctrl-C on the first report; the tuning waits for the cancel it causes.
        if not fired:
            fired.append(done)
            os.kill(os.getpid(), signal.SIGINT)
            deadline = time.monotonic() + 60
            while not session.cancelled and time.monotonic() < deadline:
                time.sleep(0.01)

    session = session_in(tmp_path, progress=interrupt_once)
    with pytest.raises(KeyboardInterrupt):
        session.tune(MODEL, mode="opat")
    assert session.cancelled
    assert session.result["OPAT"]["opat_tuning_result"] == "tuning incomplete"
    # The session tunes again afterwards, to the end.
    assert session.tune(MODEL, mode="opat")["OPAT"]["opat_tuning_result"] == "tuning successful"


def test_options_from_a_config_file(tmp_path):
    config = tmp_path / "aoe.yaml"
    config.write_text("device: ascend910\nbudget: 16\nsearcher: nosuchsearcher\n")
    session = aoe.Session(config=config, work_path=tmp_path, bank_path=tmp_path / "bank", progress=False)
    with pytest.raises(aoe.Error, match="nosuchsearcher"):
        session.tune(MODEL, mode="opat")


# ---- Running a model: Session.run against `aoe-host run` and exact outputs.

AOE_HOST = os.environ.get("AOE_HOST")


def numpy_or_skip():
    return pytest.importorskip("numpy", reason="running a model takes NumPy arrays (apt-get install python3-numpy)")


def run_session_in(tmp_path, **extra):
    # One thread: the cpu device then adds in one order, run to run.
    return session_in(tmp_path, device="cpu", threads=1, iterations=1, **extra)


def without_preload():
    """This environment less LD_PRELOAD: the sanitizer build preloads its shared ASan runtime into
    Python, and aoe-host, linked with its own, refuses to start beside it."""
    return {name: value for name, value in os.environ.items() if name != "LD_PRELOAD"}


def host_run(tmp_path, inputs, outputs):
    """`aoe-host run` of MODEL on the cpu device with the session's bank; its outputs as arrays."""
    np = numpy_or_skip()
    assert AOE_HOST, "AOE_HOST names the aoe-host binary"
    subprocess.run([AOE_HOST, "run", "--device", "cpu", "--model", MODEL, "--inputs", str(inputs),
                    "--outputs", str(outputs), "--threads", "1", "--iterations", "1",
                    "--bank_path", str(tmp_path / "bank"), "--work_path", str(tmp_path), "--log_level", "warn"],
                   check=True, capture_output=True, env=without_preload())
    with np.load(outputs) as arrays:
        return {name: arrays[name] for name in arrays.files}


def onnx_model(op_type, shape):
    """A serialized one-node ONNX model x -> op_type -> y, float32 of shape, written field by field."""
    def varint(n):
        out = bytearray()
        while True:
            byte, n = n & 0x7F, n >> 7
            out.append(byte | (0x80 if n else 0))
            if not n:
                return bytes(out)

    def field(number, value):
        if isinstance(value, int):
            return varint(number << 3) + varint(value)
        value = value.encode() if isinstance(value, str) else value
        return varint(number << 3 | 2) + varint(len(value)) + value

    dims = b"".join(field(1, field(1, d)) for d in shape)           # TensorShapeProto.dim.dim_value
    tensor_type = field(1, field(1, 1) + field(2, dims))            # TypeProto.tensor_type: FLOAT, shape
    value = lambda name: field(1, name) + field(2, tensor_type)     # ValueInfoProto
    node = field(1, "x") + field(2, "y") + field(4, op_type)        # NodeProto: input, output, op_type
    graph = field(1, node) + field(2, op_type.lower()) + field(11, value("x")) + field(12, value("y"))
    return field(1, 8) + field(8, field(2, 13)) + field(7, graph)  # ir_version 8, opset 13, graph


def test_run_matches_aoe_host_run(tmp_path):
    np = numpy_or_skip()
    x = np.linspace(-1, 1, 8 * 256, dtype=np.float32).reshape(8, 256)
    session = run_session_in(tmp_path)
    outputs = session.run(MODEL, inputs={"x": x})
    assert list(outputs) == ["y"]
    assert outputs["y"].shape == (8, 64) and outputs["y"].dtype == np.float32
    np.savez(tmp_path / "x.npz", x=x)
    np.testing.assert_array_equal(outputs["y"], host_run(tmp_path, tmp_path / "x.npz", tmp_path / "y.npz")["y"])
    report = session.run_report
    assert report["model"] == "mlp" and report["device"] == "cpu"
    assert report["latency_ms"]["runs"] == 1 and report["kernels"]
    # An input left out is drawn from the seed as `--inputs random` draws it.
    drawn = session.run(MODEL)
    np.testing.assert_array_equal(drawn["y"], host_run(tmp_path, "random", tmp_path / "drawn.npz")["y"])
    assert not np.array_equal(drawn["y"], outputs["y"])


def test_run_a_model_in_memory_gives_its_exact_outputs(tmp_path):
    np = numpy_or_skip()
    x = np.array([[-1.0, 0.5, 2.0], [0.0, -3.0, 4.0]], dtype=np.float64)  # turned to float32
    session = run_session_in(tmp_path)
    outputs = session.run(onnx_model("Relu", [2, 3]), inputs={"x": x}, name="relu_bytes")
    np.testing.assert_array_equal(outputs["y"], np.maximum(x, 0).astype(np.float32))
    assert session.run_report["model"] == "relu_bytes"


def test_run_errors_name_the_input_or_op(tmp_path):
    np = numpy_or_skip()
    session = run_session_in(tmp_path)
    with pytest.raises(aoe.Error, match="nosuchinput") as caught:
        session.run(MODEL, inputs={"nosuchinput": np.zeros((8, 256))})
    assert caught.value.status == "invalid argument"
    with pytest.raises(aoe.Error, match=r"input 'x'.*\[8,255\]"):
        session.run(MODEL, inputs={"x": np.zeros((8, 255))})
    with pytest.raises(aoe.Error, match="StringNormalizer"):  # of strings, fed floats
        session.run(onnx_model("StringNormalizer", [1, 4]), name="strings")
    assert session.run_report is None


def test_run_on_the_cuda_device_matches_the_cpu(tmp_path, monkeypatch):
    """device="cuda" as on a GPU; here the CUDA test double, whose kernels run from their source on CPU threads."""
    np = numpy_or_skip()
    if not os.environ.get("AOE_CUDA_DOUBLE_HOME"):
        pytest.skip("AOE_CUDA_DOUBLE_HOME is not set: the CUDA test double was not built")
    monkeypatch.setenv("CUDA_HOME", os.environ["AOE_CUDA_DOUBLE_HOME"])
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    # The device's GPU worker is a program of its own: as for aoe-host, not beside a preloaded ASan runtime.
    monkeypatch.delenv("LD_PRELOAD", raising=False)
    x = np.linspace(-1, 1, 8 * 256, dtype=np.float32).reshape(8, 256)
    session = session_in(tmp_path, device="cuda", iterations=1, check=True)
    gpu = session.run(MODEL, inputs={"x": x})
    report = session.run_report
    assert report["device"] == "cuda" and report["check"]["match"]
    types = [k["op_type"] for k in report["kernels"]]
    assert types == ["MatMul+Add+Relu", "Gemm+Relu", "MatMul"], types
    cpu = run_session_in(tmp_path / "cpu").run(MODEL, inputs={"x": x})
    np.testing.assert_allclose(gpu["y"], cpu["y"], rtol=1e-4, atol=1e-3)
    # Device options as a dict, as Python writes them: TF32 allowed, though no tile of 8 rows takes it.
    allowed = session_in(tmp_path / "tf32", device="cuda", iterations=1, check=True, device_options={"allow_tf32": True})
    allowed.run(MODEL, inputs={"x": x})
    assert allowed.run_report["check"]["match"] and allowed.run_report["check"]["precision"] == "fp32"


def test_run_tune_on_miss_banks_the_ops_first(tmp_path):
    np = numpy_or_skip()
    session = run_session_in(tmp_path, tune_on_miss=True, budget=4)
    outputs = session.run(onnx_model("Relu", [2, 3]), inputs={"x": np.ones((2, 3))}, name="relu_tuned")
    np.testing.assert_array_equal(outputs["y"], np.ones((2, 3), dtype=np.float32))
    # The miss was tuned (its result file written) and banked before the run, which then hit.
    assert list(tmp_path.glob("aoe_result_opat_*.json"))
    assert session.run_report["bank"]["hit"] == 1 and session.run_report["bank"]["miss"] == 0
