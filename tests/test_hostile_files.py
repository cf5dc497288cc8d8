"""Files that could break every start, and special files (issue groups 2 and 5): settings,
probe history, plans and catalogs with deep nesting, 1e400, Infinity or 10**400 are refused
with a message naming the file (settings and history are set aside as ``.bad-*`` and the
defaults are used); a FIFO or a device is never opened for reading nor replaced by a write;
the catalog download ends at its deadline however slowly a server drips bytes."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from gpuadvisor import catalog
from gpuadvisor.catalog import UpdateError, update_catalog, updated_path
from gpuadvisor.core.limits import LimitError, loads_json
from gpuadvisor.probes import history
from gpuadvisor.userfiles import (
    NotARegularFileError,
    check_replaceable,
    read_regular_file,
    write_atomic,
)
from gpuadvisor.workspace.planfile import PlanFileError, load_plan
from gpuadvisor.workspace.settings import Settings, load_settings

posix_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
DEEP = "[" * 100_000 + "]" * 100_000
HUGE_INT = "1" + "0" * 400


@pytest.fixture
def folders(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUADVISOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GPUADVISOR_CONFIG_DIR", str(tmp_path / "config"))
    (tmp_path / "data").mkdir()
    (tmp_path / "config").mkdir()
    return tmp_path


@pytest.fixture
def fifo(tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("FIFOs are POSIX")
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


# -- the strict JSON reader -------------------------------------------------------------------
@pytest.mark.parametrize("text", [DEEP, '{"a":' * 40 + "1" + "}" * 40, "[1e400]", "[-1e400]",
                                  "[NaN]", "[Infinity]", "[-Infinity]", f"[{HUGE_INT}]"])
def test_strict_json_refuses_what_no_user_file_needs(text):
    with pytest.raises(LimitError):
        loads_json(text)


def test_strict_json_reads_ordinary_documents():
    assert loads_json('{"a": [1, 2.5, {"b": null}], "c": "[[[["}') == {
        "a": [1, 2.5, {"b": None}], "c": "[[[["}


# -- settings ---------------------------------------------------------------------------------
def _settings_file(folders, text: str) -> Path:
    path = folders / "config" / "settings.json"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("text", [
    '{"schema_version": 1, "language": ' + DEEP + "}",
    '{"schema_version": 1, "exchange_rates": {"CNY": 1e400}}',
    '{"schema_version": 1, "exchange_rates": {"CNY": ' + HUGE_INT + "}}",
    '{"schema_version": 1, "electricity_usd_per_kwh": ' + HUGE_INT + "}",
    '{"schema_version": 1, "electricity_usd_per_kwh": NaN}',
    '{"schema_version": 1, "recent_files": ["a\\u0000b"]}',
], ids=["deep", "rate-1e400", "rate-10**400", "price-10**400", "price-nan", "nul-path"])
def test_a_settings_file_that_cannot_be_used_is_set_aside_and_defaults_used(folders, text):
    path = _settings_file(folders, text)
    settings, message = load_settings()
    assert settings == Settings()
    assert message is not None and str(path) in message and "bad-" in message
    assert not path.exists()
    assert len(list(path.parent.glob("settings.json.bad-*"))) == 1
    # The next start is clean: said once.
    assert load_settings() == (Settings(), None)


@posix_only
def test_a_fifo_as_settings_file_does_not_block_and_is_set_aside(folders):
    path = folders / "config" / "settings.json"
    os.mkfifo(path)
    started = time.monotonic()
    settings, message = load_settings()
    assert time.monotonic() - started < 2.0
    assert settings == Settings() and "FIFO" in message
    assert not path.exists()


# -- probe history ----------------------------------------------------------------------------
def _run(figures: dict) -> dict:
    return {"schema_version": 1, "timestamp": "2026-01-01T00:00:00Z", "device_key": "gpu-x",
            "device_id": "cuda:0", "device_name": "NVIDIA H100", "catalog_id": "h100-sxm",
            "results": {"matmul": {"figures": figures, "units": {}, "conditions": {}}}}


@pytest.mark.parametrize("text", [
    '{"schema_version": 1, "runs": ' + DEEP + "}",
    '{"schema_version": 1, "runs": [{"x": Infinity}]}',
    '{"schema_version": 1, "runs": [{"x": 1e400}]}',
    '{"schema_version": 1, "runs": [], "n": ' + HUGE_INT + "}",
    '{"schema_version": {"a": 1}, "runs": []}',
    '{"schema_version": 1, "runs": [{"timestamp": "t", "device_key": "k", "device_name": "n", '
    '"schema_version": [1]}]}',
], ids=["deep", "infinity", "1e400", "10**400", "version-object", "run-version-list"])
def test_a_history_file_that_cannot_be_used_is_set_aside_and_reported(folders, text):
    folder = history.history_dir()
    folder.mkdir(parents=True)
    (folder / "gpu-x.json").write_text(text, encoding="utf-8")
    warnings: list[str] = []
    assert history.runs(warnings=warnings) == []
    assert len(warnings) == 1 and "gpu-x.json" in warnings[0]
    assert list(folder.glob("gpu-x.json.bad-*"))
    assert history.runs(warnings=warnings) == [] and len(warnings) == 1


def test_absurd_history_figures_are_never_used_as_measurements(folders):
    folder = history.history_dir()
    folder.mkdir(parents=True)
    data = {"schema_version": 1, "runs": [_run({"bf16_median_tflops": 1e308,
                                                "fp32_median_tflops": 50.0})]}
    (folder / "gpu-x.json").write_text(json.dumps(data), encoding="utf-8")
    found = history.measurements_for("h100-sxm")
    assert [(m.dtype, m.achieved_tflops) for m in found] == [("fp32", 50.0)]


@posix_only
def test_a_fifo_in_the_history_folder_does_not_block(folders):
    folder = history.history_dir()
    folder.mkdir(parents=True)
    os.mkfifo(folder / "gpu-x.json")
    warnings: list[str] = []
    started = time.monotonic()
    assert history.runs(warnings=warnings) == []
    assert time.monotonic() - started < 2.0 and "FIFO" in warnings[0]


# -- plan files -------------------------------------------------------------------------------
def _plan(**plan) -> str:
    return json.dumps({"schema_version": 1, "app": "gpuadvisor",
                       "model": {"preset": "llama-3.1-8b"}, "plan": plan})


@pytest.mark.parametrize(("text", "field"), [
    (_plan(epochs=1.0).replace("1.0", "Infinity"), "Infinity"),
    (_plan(epochs=1e300), "plan.epochs"),
    (_plan(dataset_tokens=1e300), "plan.dataset_tokens"),
    (_plan(micro_batch=10**30), "plan.micro_batch"),
    (_plan(n_gpus=10**12), "plan.n_gpus"),
    (_plan(micro_batch=1).replace("1}", HUGE_INT + "}"), "digits"),
    (_plan().replace("{}", DEEP), "nested deeper"),
    (json.dumps({"schema_version": 1, "model": {"custom": {
        "id": "x", "name": "x", "n_layers": 10**30, "d_model": 64, "n_heads": 4, "d_ff": 128,
        "vocab_size": 100}}, "plan": {}}), "model.custom.n_layers"),
    (json.dumps({"schema_version": 1, "model": {"custom": {
        "id": "x", "name": "x", "n_layers": 2, "d_model": 64, "n_heads": 4, "d_ff": 128,
        "vocab_size": 100, "head_dim": -500}}, "plan": {}}), "model.custom.head_dim"),
    (json.dumps({"schema_version": 1, "model": {"preset": "llama-3.1-8b"}, "plan": {},
                 "assumptions": {"gpus_per_node": 1e300}}), "assumptions.gpus_per_node"),
])
def test_a_plan_file_with_numbers_out_of_range_names_the_field(tmp_path, text, field):
    path = tmp_path / "bad.gpuplan"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PlanFileError) as caught:
        load_plan(path)
    assert field in str(caught.value) and str(path) in str(caught.value)


@posix_only
def test_a_fifo_as_plan_file_is_refused_at_once(fifo):
    started = time.monotonic()
    with pytest.raises(PlanFileError, match="FIFO"):
        load_plan(fifo)
    assert time.monotonic() - started < 2.0


# -- catalogs ---------------------------------------------------------------------------------
def test_a_deeply_nested_user_offers_file_is_not_used_and_nothing_crashes(folders):
    folder = folders / "data" / "catalog"
    folder.mkdir()
    (folder / "offers.toml").write_text("[x]\nkind = " + DEEP + "\n", encoding="utf-8")
    warnings: list[str] = []
    offers = catalog.load_offers(warnings=warnings)
    assert offers and any("nested too deeply" in w for w in warnings)


@pytest.mark.parametrize("text", [
    "[" + ".".join(["x"] * 5000) + "]\nname = 'a'\n",
    ".".join(['"x"'] * 5000) + " = 1\n",
    "a = {" + ".".join(["x"] * 5000) + " = 1}\n",
])
def test_a_dotted_key_bomb_is_refused_in_linear_time(tmp_path, text):
    path = tmp_path / "gpus.toml"
    path.write_text(text, encoding="utf-8")
    started = time.monotonic()
    problems = catalog.validate_file(path)
    assert time.monotonic() - started < 2.0
    assert problems and "dotted key" in problems[0]


_MODEL = """[tiny-{n}]
name = "Tiny"
n_layers = {layers}
d_model = 64
n_heads = 4
head_dim = {head_dim}
d_ff = 128
vocab_size = 100
"""


@pytest.mark.parametrize(("layers", "head_dim"), [(HUGE_INT, 16), (2, -500), (2**31, 16)])
def test_a_model_catalog_that_would_break_every_start_is_refused_by_validate_and_update(
        folders, tmp_path, layers, head_dim):
    path = tmp_path / "models.toml"
    path.write_text(_MODEL.format(n=1, layers=layers, head_dim=head_dim), encoding="utf-8")
    assert catalog.validate_file(path)
    with pytest.raises(UpdateError, match="was not installed"):
        update_catalog(path)
    assert not updated_path("models").exists()
    catalog.load_models()  # and the app still loads its catalog


def test_an_integer_of_5000_digits_is_a_problem_line_not_a_crash(tmp_path):
    path = tmp_path / "gpus.toml"
    path.write_text("[x]\nlaunch_year = " + "1" * 5000 + "\n", encoding="utf-8")
    problems = catalog.validate_file(path)
    assert len(problems) == 1 and "gpus.toml" in problems[0]


@posix_only
def test_catalog_update_from_a_fifo_is_refused_at_once(folders, fifo):
    started = time.monotonic()
    with pytest.raises(UpdateError, match="FIFO"):
        update_catalog(str(fifo), "offers")
    assert time.monotonic() - started < 2.0


# -- reading and writing special files --------------------------------------------------------
@posix_only
def test_reading_refuses_fifos_devices_and_folders_without_blocking(fifo, tmp_path):
    for path, word in ((fifo, "FIFO"), (Path(os.devnull), "device"), (tmp_path, "folder")):
        with pytest.raises(NotARegularFileError, match=word):
            read_regular_file(path, 1000)
    big = tmp_path / "big"
    big.write_bytes(b"x" * 2000)
    with pytest.raises(NotARegularFileError, match="too large"):
        read_regular_file(big, 1000)
    assert read_regular_file(big, 2000) == b"x" * 2000


@posix_only
def test_writes_replace_only_a_regular_file(fifo, tmp_path):
    target = tmp_path / "real.txt"
    target.write_text("mine")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    dangling = tmp_path / "dangling.txt"
    dangling.symlink_to(tmp_path / "nowhere")
    for path in (fifo, link, dangling, tmp_path / "sub"):
        if path.name == "sub":
            path.mkdir()
        with pytest.raises(NotARegularFileError):
            write_atomic(path, "new")
        with pytest.raises(NotARegularFileError):
            check_replaceable(path)
    assert link.is_symlink() and target.read_text() == "mine" and fifo.is_fifo()
    assert dangling.is_symlink()
    write_atomic(target, "new")
    assert target.read_text() == "new"


@posix_only
@pytest.mark.parametrize("kind", ["fifo", "symlink"])
def test_export_out_never_replaces_a_special_file(tmp_path, kind, capsys):
    from gpuadvisor.cli import main

    out = tmp_path / "out.sh"
    if kind == "fifo":
        os.mkfifo(out)
    else:
        (tmp_path / "target").write_text("keep")
        out.symlink_to(tmp_path / "target")
    status = main(["export", "launch", "--model", "gpt2", "--out", str(out), "--force"])
    assert status == 2
    assert "only a regular file is replaced" in capsys.readouterr().err
    assert out.is_fifo() if kind == "fifo" else (tmp_path / "target").read_text() == "keep"


# -- the download deadline --------------------------------------------------------------------
class _DripServer:
    """Sends headers at once, then one byte every 50 ms of a 100,000-byte body."""

    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def do_GET(self) -> None:  # http.server's API
                with contextlib.suppress(OSError):
                    self.send_response(200)
                    self.send_header("Content-Length", "100000")
                    self.end_headers()
                    for _ in range(100_000):
                        self.wfile.write(b"#")
                        self.wfile.flush()
                        time.sleep(0.05)

            def log_message(self, *args) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/offers.toml"
        threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def test_a_server_that_drips_bytes_is_cut_off_at_the_deadline(folders, monkeypatch):
    for name in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY",
                 "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("no_proxy", "*")
    monkeypatch.setenv(catalog.ALLOW_HTTP_LOOPBACK_ENV, "1")
    server = _DripServer()
    try:
        started = time.monotonic()
        with pytest.raises(UpdateError, match="took longer than 1 s"):
            update_catalog(server.url, timeout_s=1.0)
        assert time.monotonic() - started < 2.5
    finally:
        server.close()
    assert not updated_path("offers").exists()


def test_fifo_tests_are_skipped_only_where_fifos_do_not_exist():
    assert hasattr(os, "mkfifo") or sys.platform == "win32"


def test_a_config_with_a_5000_digit_integer_or_a_list_as_its_name_is_refused_or_named(
        tmp_path, capsys):
    """A config.json holding a 5,000-digit integer is refused naming the file (it ended in
    Python's integer-string limit); a list or object as ``_name_or_path`` on stdin names
    nothing, and the model is still read (it ended in TypeError: unhashable type)."""
    import io

    from gpuadvisor.cli import main

    fields = ('"model_type": "llama", "num_hidden_layers": 2, "num_attention_heads": 2, '
              '"intermediate_size": 64, "vocab_size": 100, "max_position_embeddings": 2048')
    path = tmp_path / "config.json"
    path.write_text('{"hidden_size": ' + "9" * 5000 + ", " + fields + "}")
    assert main(["estimate", "--model", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "5000 digits is too large" in err and err[-1] == "\n"
    for name in ('["x"]', '{"a": 1}', "7"):
        stdin = io.StringIO('{"_name_or_path": ' + name + ', "hidden_size": 64, ' + fields
                            + "}")
        import sys

        saved, sys.stdin = sys.stdin, stdin
        try:
            assert main(["estimate", "--model", "-", "--json"]) == 0
        finally:
            sys.stdin = saved
        assert '"params_total"' in capsys.readouterr().out


@pytest.mark.parametrize("verb", [["estimate"], ["suggest", "--no-rig"],
                                  ["export", "report", "--no-advice"]])
def test_a_model_name_with_terminal_escapes_is_printed_as_visible_text(capsys, verb):
    """A ``_name_or_path`` holding a window-title change and red text: no door writes the
    escape to the terminal; it is shown as ``\\x1b`` text."""
    import io
    import sys

    from gpuadvisor.cli import main

    hostile = "evil\x1b]0;pwned\x07\x1b[31m\nred\u202eok"
    config = {"_name_or_path": hostile, "model_type": "llama", "hidden_size": 64,
              "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64,
              "vocab_size": 100, "max_position_embeddings": 2048}
    saved, sys.stdin = sys.stdin, io.StringIO(json.dumps(config))
    try:
        main([*verb, "--model", "-"])
    finally:
        sys.stdin = saved
    captured = capsys.readouterr()
    for text in (captured.out, captured.err):
        assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert "pwned" in captured.out and "x1b" in captured.out  # shown, as text
