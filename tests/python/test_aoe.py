"""The aoe package as a user drives it: tune, the parsed result, errors, Ctrl-C."""
import json
import os
import signal
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
