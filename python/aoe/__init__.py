"""Tune and run models from Python with aoe, the open auto-tuning engine.

    import aoe
    session = aoe.Session(device="cpu")
    result = session.tune("m.onnx", mode="opat")
    print(result["OPAT"]["opat_tuning_result"])
    outputs = session.run("m.onnx", inputs={"x": x})  # NumPy arrays by name
    print(session.run_report["latency_ms"]["median"])

Options take aoe-host's names (``aoe-host --help``) as keyword arguments or,
as MindSpore users write them, as ``aoe_config={"job_type": "2", ...}``.
Ctrl-C during a tuning cancels it as it cancels aoe-host: the tuning stops,
finished ops stay in the bank, and KeyboardInterrupt is raised.
"""

import json
import os
import sys
import threading

from . import _native

__all__ = ["Error", "Session", "api_version"]

api_version = _native.api_version
"""(major, minor) of the libaoe C API this package runs on."""

_STATUS_NAMES = {
    _native.STATUS_INVALID_ARGUMENT: "invalid argument",
    _native.STATUS_NOT_FOUND: "not found",
    _native.STATUS_UNSUPPORTED: "unsupported",
    _native.STATUS_CANCELLED: "cancelled",
    _native.STATUS_INTERNAL: "internal",
    _native.STATUS_IO: "io",
}


class Error(Exception):
    """A call aoe refused or a tuning that did not succeed.

    ``str(error)`` is aoe's message (it names the option, file or op and what
    to do); ``code`` the C API's AOE_STATUS_* value and ``status`` its name;
    ``result`` the parsed result when the tuning got as far as writing one
    (a tuning that failed for some ops), else None.
    """

    def __init__(self, code, message, result=None):
        super().__init__(message)
        self.code = code
        self.status = _STATUS_NAMES.get(code, "status %d" % code)
        self.result = result


def _option_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):  # device_options={"allow_tf32": True}: the JSON aoe-host takes
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return os.pathsep.join(str(v) for v in value)
    return str(value)


def _parse_result(text):
    """AOE's result file, [{"basic": ...}, {"OPAT": ...}], as one dict."""
    if not text:
        return None
    parsed = {}
    for part in json.loads(text):
        parsed.update(part)
    return parsed


class _PlainProgress:
    """One line per task on stderr: rewritten in place on a terminal."""

    def __init__(self):
        self._last = None
        self._tty = sys.stderr.isatty()

    def __call__(self, stage, done, total, note):
        line = "aoe: [%s %d/%d] %s" % (stage, done, total, note)
        if self._tty:
            sys.stderr.write("\r\x1b[K" + line)
            sys.stderr.flush()
        elif (stage, done) != self._last:
            print(line, file=sys.stderr)
        self._last = (stage, done)

    def close(self):
        if self._tty and self._last is not None:
            sys.stderr.write("\n")


class _TqdmProgress:
    """A tqdm bar over the tasks, its postfix the op and the best time so far."""

    def __init__(self, tqdm):
        self._tqdm = tqdm
        self._bar = None

    def __call__(self, stage, done, total, note):
        if self._bar is None or self._bar.total != total or self._bar.desc != stage:
            if self._bar is not None:
                self._bar.close()
            self._bar = self._tqdm(total=total, desc=stage, unit=stage)
        self._bar.update(done - self._bar.n)
        self._bar.set_postfix_str(note, refresh=True)

    def close(self):
        if self._bar is not None:
            self._bar.close()


def _default_progress():
    try:
        from tqdm import tqdm
    except ImportError:
        return _PlainProgress()
    return _TqdmProgress(tqdm)


class Session:
    """Settings and aoe's plugins, for tuning and running models one after another.

    ``Session(device="cpu", budget=16, bank_path="bank")`` or
    ``Session(aoe_config={"job_type": "2"}, device="ascend910")``: options by
    aoe-host's names; keyword arguments win over aoe_config. Values are
    turned to text (True -> "true", a list of folders -> joined by os.pathsep).
    The environment variables aoe-host reads (TUNE_BANK_PATH...) apply beneath.

    progress: True (the default) shows a bar with tqdm when it is installed,
    else a plain line on stderr; False shows nothing; a callable is called as
    ``progress(stage, done, total, note)`` on the tuning's thread.

    Raises aoe.Error naming an unknown or malformed option or an unknown device.
    """

    def __init__(self, aoe_config=None, *, progress=True, **options):
        merged = {str(k): _option_text(v) for k, v in (aoe_config or {}).items()}
        merged.update({k: _option_text(v) for k, v in options.items()})
        code, message, native = _native.NativeSession.create(merged)
        if native is None:
            raise Error(code, message)
        self._native = native
        self._progress = progress
        self._cancelled = threading.Event()
        self._result = None
        self._run_report = None

    def tune(self, model, mode=None, *, name=None):
        """Tunes a model and returns its result as a dict.

        model: a path (str or os.PathLike) to an ONNX model, its serialized
        bytes, or an ``onnx.ModelProto``. mode: "opat", "sgat" or "gdat"; None
        takes the session's plugin / job_type option (job_type 2, opat, by
        default). name: the tuning's name for a model in memory (default the
        graph's name, else "model").

        Returns {"basic": {...}, "OPAT": {...}}: the result file's content.
        Raises aoe.Error with aoe's message when the model or an option is
        bad or the tuning failed for some ops (its ``result`` then set), and
        KeyboardInterrupt after cancelling on Ctrl-C (``self.result`` then
        holds the "tuning incomplete" result).
        """
        mode = mode or ""
        if hasattr(model, "SerializeToString"):  # onnx.ModelProto, without importing onnx
            name = name or getattr(getattr(model, "graph", None), "name", "") or "model"
            model = model.SerializeToString()
        if isinstance(model, (bytes, bytearray, memoryview)):
            data = bytes(model)
            call = lambda: self._native.tune_bytes(mode, name or "model", data)
        else:
            path = os.fspath(model)
            call = lambda: self._native.tune_file(mode, path)
        return self._run(call)

    def run(self, model, inputs=None, *, name=None):
        """Runs a model as ``aoe-host run`` does and returns its outputs.

        The model runs on the session's device with the configs the session's
        bank holds (the default for an op it misses), once untimed and
        ``iterations`` times timed; the session's options ``iterations``,
        ``threads``, ``seed``, ``check``, ``tune_on_miss`` and ``run_report``
        apply. model: as for tune. inputs: {input name: array}, each of the
        input's shape, turned to float32 (``numpy.asarray(a, numpy.float32)``);
        an input left out is drawn from ``seed`` as ``aoe-host run`` draws it.

        Returns {output name: numpy.ndarray of float32}, in the model's order;
        empty on a device that models time only (the simulators). The run
        report (latency, the kernels and whether each ran a tuned config) is
        then ``self.run_report``. Raises aoe.Error naming the input (not the
        model's, another shape) or the op the device cannot run; with
        ``check``, when the outputs do not match the reference.
        """
        import numpy  # only running a model needs NumPy

        given = []
        for key, value in (inputs or {}).items():
            array = numpy.ascontiguousarray(value, dtype=numpy.float32)
            given.append((str(key), [int(d) for d in array.shape], array.tobytes()))
        if hasattr(model, "SerializeToString"):
            name = name or getattr(getattr(model, "graph", None), "name", "") or "model"
            model = model.SerializeToString()
        if isinstance(model, (bytes, bytearray, memoryview)):
            data = bytes(model)
            call = lambda: self._native.run_bytes(name or "model", data, given)
        else:
            path = os.fspath(model)
            call = lambda: self._native.run_file(path, given)
        (code, message, outputs, report), interrupt = self._in_worker(call)
        if interrupt is not None:
            raise interrupt
        if code != _native.STATUS_OK:
            raise Error(code, message)
        self._run_report = json.loads(report)
        return {out: numpy.frombuffer(data, dtype=numpy.float32).reshape(dims).copy()
                for out, dims, data in outputs}

    @property
    def run_report(self):
        """The last run's report as a dict (what ``aoe-host run`` writes); None before any."""
        return self._run_report

    def _run(self, call):
        (code, message, result), interrupt = self._in_worker(call)
        self._result = _parse_result(result)
        if interrupt is not None:
            raise interrupt
        if code != _native.STATUS_OK:
            raise Error(code, message, self._result)
        return self._result

    def _in_worker(self, call):
        """call()'s answer and the KeyboardInterrupt that cancelled it, if one did."""
        reporter = None
        if callable(self._progress):
            self._native.set_progress(self._progress)
        elif self._progress:
            reporter = _default_progress()
            self._native.set_progress(reporter)
        else:
            self._native.set_progress(None)
        self._cancelled.clear()
        outcome = {}
        finished = threading.Event()

        def work():
            try:
                outcome["answer"] = call()
            except BaseException as e:  # handed to the caller's thread
                outcome["error"] = e
            finally:
                finished.set()

        # The call runs on a thread of its own so that Ctrl-C reaches this
        # one; it waits on an Event, not on Thread.join, which a
        # KeyboardInterrupt can leave believing a running thread ended.
        worker = threading.Thread(target=work, name="aoe tuning", daemon=True)
        worker.start()
        interrupt = None
        try:
            while True:
                try:
                    if finished.wait(0.1):
                        break
                except KeyboardInterrupt as e:
                    # As Ctrl-C stops aoe-host: stop the tuning, keep what it finished.
                    interrupt = interrupt or e
                    self.cancel()
        finally:
            self._native.set_progress(None)
            if reporter is not None:
                reporter.close()
        worker.join()
        if "error" in outcome:
            raise outcome["error"]
        return outcome["answer"], interrupt

    def cancel(self):
        """Asks the running tuning to stop, as Ctrl-C does; safe from any thread.

        The tuning returns "tuning incomplete" (tune raises aoe.Error with
        status "cancelled"); ops finished by then stay in the bank.
        """
        self._cancelled.set()
        self._native.cancel()

    @property
    def cancelled(self):
        """True once cancel() was called for the tuning running now or last."""
        return self._cancelled.is_set()

    @property
    def result(self):
        """The last tuning's result as tune returns it; None before any."""
        return self._result

    def bank_entries(self, signature, kind="op"):
        """The bank entries whose key's signature is signature, on every SoC.

        kind: "op", "graph" or "gradient". Returns a list of entries (dicts
        with "key", "config", "after_us"...), empty when none.
        """
        code, message, text = self._native.bank_entries(kind, signature)
        if code != _native.STATUS_OK:
            raise Error(code, message)
        return json.loads(text)

    def plugins(self):
        """What ``aoe-host plugins --json`` prints: {"components": [...], "refused": [...]}."""
        code, message, text = self._native.plugins()
        if code != _native.STATUS_OK:
            raise Error(code, message)
        return json.loads(text)
