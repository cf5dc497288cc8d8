"""Fuzzing every way in (issue 19, "done when"): every CLI verb and flag, every user-file
loader and the worker protocol parser, fed hostile values by hypothesis.

The contract under test: no traceback ever; a failure is exit status 2 with a message on
stderr (a user file that cannot be used is set aside with a message); ``--json`` output is
always valid JSON; nothing waits on a FIFO. Hangs are impossible by construction (every
read is non-blocking or bounded, every number bounded), and each call is also timed here.
The probe worker and the desktop app are replaced by stand-ins (the CLI around them is what
is fuzzed; tests/test_hostile_worker.py attacks the real runner), and the offers catalog is
cut to a few entries so a ``suggest`` takes milliseconds. Examples are few and fixed
(``derandomize``) so the suite stays fast and repeatable.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuadvisor import catalog
from gpuadvisor.cli import build_parser, main
from gpuadvisor.probes.protocol import Hello, ProtocolError, Result, parse_line
from gpuadvisor.probes.runner import ProbeRun

FUZZ = settings(deadline=None, database=None, derandomize=True, print_blob=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow, HealthCheck.data_too_large])
#: Most seconds one CLI call may take here (the slowest real case is ~2 s on a busy CPU).
CALL_LIMIT_S = 20.0

BIG = "1" + "0" * 400
#: A command line cannot hold a NUL byte, so none is here (file contents get them).
HOSTILE_TEXT = ["", " ", "0", "-1", "1", "3", "1.5", "nan", "NaN", "inf", "-inf", "1e400",
                "1e308", BIG, "9" * 5000, "0x10", "1_000", "1048577", "2T", "1e18", "x" * 300,
                "a\nb", "$(id)", "{", "'", '"', "#", "\u2028", "😀", "%s%n", "../..", "-x",
                "--json", "rtx-9999", "2x rtx-3090"]
JSON_FRAGMENTS = ["1", "-0", "0.5", "1e400", "-1e400", "NaN", "Infinity", "-Infinity", BIG,
                  "1" * 5000, "1e308", "null", "true", "false", '""', '"x"', '"\\u0000"',
                  '"\\ud800"', "[]", "{}", "[" * 50 + "]" * 50, "[" * 5000 + "]" * 5000,
                  '{"a":' * 40 + "1" + "}" * 40, "-1", "0", "2", "[1, 2]", '"gpt2"']


# ------------------------------------------------------------------------------------ setup
@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    """User folders in tmp, stand-ins for the worker and the app, a small offers catalog,
    and files of every awkward kind to pass as paths."""
    monkeypatch.setenv("GPUADVISOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GPUADVISOR_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("GPUADVISOR_TEST_ALLOW_HTTP_LOOPBACK", raising=False)
    monkeypatch.chdir(tmp_path)
    _stand_ins(monkeypatch)
    files = tmp_path / "files"
    files.mkdir()
    paths = [str(files), os.devnull, str(files / "missing.toml")]
    if hasattr(os, "mkfifo"):
        for name in ("pipe", "offers.toml", "plan.gpuplan", "config.json"):
            os.mkfifo(files / name)
            paths.append(str(files / name))
    for name, text in (("good-offers.toml", _OFFER), ("empty-gpus.toml", ""),
                       ("deep-models.toml", "[m]\nn_layers = " + "[" * 5000 + "]" * 5000),
                       ("huge-models.toml", _MODEL.replace("N_LAYERS", BIG)),
                       ("neg-models.toml", _MODEL.replace("N_LAYERS", "2").replace(
                           "head_dim = 16", "head_dim = -500")),
                       ("bad.gpuplan", '{"schema_version": 1, "model": {"preset": "gpt2"}, '
                                       '"plan": {"epochs": Infinity}}'),
                       ("good.gpuplan", '{"schema_version": 1, "model": {"preset": "gpt2"}, '
                                        '"plan": {}}'),
                       ("chart.png", "not a png")):
        (files / name).write_text(text, encoding="utf-8")
        paths.append(str(files / name))
    good = {"plan": [str(files / "good.gpuplan")], "source": [str(files / "good-offers.toml")],
            "path": [str(files / "good-offers.toml")], "out": [str(tmp_path / "out.txt")],
            "data": [str(files)], "screenshot": [str(tmp_path / "shot.png")],
            "data_dir": [str(files)]}
    return {"paths": paths, "good": good}


_OFFER = """[fuzz-offer]
kind = "cloud"
gpu_id = "h100-sxm"
provider = "Acme\\nenvs: {X: 1} #"
price_usd = 2.0
instance = "8x H100"
gpus_per_instance = 8
as_of = "2026-01-01"
source = "fuzz"
"""
_MODEL = """[tiny]
name = "Tiny"
n_layers = N_LAYERS
d_model = 64
n_heads = 4
head_dim = 16
d_ff = 128
vocab_size = 100
"""


def _stand_ins(monkeypatch) -> None:
    from gpuadvisor.cli import burnin, probe
    from gpuadvisor.gui import app
    from gpuadvisor.probes import interpreters, runner

    def fake_run_probes(probes, **kwargs):
        hello = Hello(protocol=1, versions={"python": "3", "torch": "2.0"},
                      accelerators={"cpu": True},
                      devices=({"id": "cpu", "type": "cpu", "name": "Fuzz CPU"},))
        results = tuple(Result(p, {"x_s": 1.0}, {"x_s": "s"}, {"device": "cpu"})
                        for p in probes)
        return ProbeRun(status="ok", hello=hello, results=results, returncode=0)

    monkeypatch.setattr(runner, "run_probes", fake_run_probes)
    monkeypatch.setattr(probe, "find_probe_python", lambda: (sys.executable, ""))
    monkeypatch.setattr(interpreters, "candidate_pythons", lambda: [])
    monkeypatch.setattr(interpreters, "check_all", lambda pythons: [])
    monkeypatch.setattr(burnin, "_telemetry_backend", lambda: (None, "no telemetry here"))
    monkeypatch.setattr(app, "run", lambda args: 0)
    offers = catalog.load_offers()
    few = {k: offers[k] for k in list(offers)[:6]}
    monkeypatch.setattr(catalog, "load_offers", lambda path=None, warnings=None: dict(few))


# ------------------------------------------------------------------------------ the parser
def _leaves(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """Every (verb path, parser) that runs a command."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield path, parser
        return
    for name, child in subs[0].choices.items():
        yield from _leaves(child, (*path, name))


LEAVES = {" ".join(path): parser for path, parser in _leaves(build_parser()) if path}
#: Examples per verb (fast ones get more); the whole file runs in about 20 s on 2 cores.
EXAMPLES = {"estimate": 30, "suggest": 8, "export": 20, "catalog list": 6, "catalog show": 6,
            "catalog validate": 14, "catalog update": 14, "detect": 6, "check-log": 12,
            "probe": 20, "gui": 10,
            "completion": 4, "man": 2}

_GOOD = {"model": ["gpt2", "llama-3.1-8b", "qwen3-30b-a3b"], "gpu": ["rtx-4090", "h100-sxm"],
         "offer": ["fuzz-offer"], "simulate": ["2x rtx-3090", "one-gpu", "no-gpu"],
         "id": ["rtx-4090", "gpt2"], "assume": ["efficiency_train=0.5", "gpus_per_node=4"],
         "timeout": ["30"], "burn_in": ["0.5"], "temp_limit": ["80"], "size": ["800x600"],
         "probes": ["matmul", "matmul,step"], "device": ["cpu", "0"],
         "script": ["train.py"], "network": ["400g"], "chart": []}


_ORDINARY = ["1", "2", "4", "16", "64", "0.5", "0.9", "2T", "300M", "name"]


def _accepts(action: argparse.Action, text: str) -> bool:
    if action.type is None or not callable(action.type):
        return True
    try:
        action.type(text)
    except (argparse.ArgumentTypeError, ValueError, TypeError):
        return False
    return True


_PATH_FLAGS = ("plan", "source", "path", "chart", "out", "data", "python", "screenshot",
               "data_dir", "model")


def _values(action: argparse.Action, sandbox: dict) -> st.SearchStrategy[str]:
    """Mostly ordinary values (so a run gets past its flags), then awkward paths and
    hostile text."""
    good: list[str] = list(_GOOD.get(action.dest, [])) + sandbox["good"].get(action.dest, [])
    if action.choices is not None:
        good += [str(c) for c in action.choices]
    if not good:  # a number or a name: the ordinary values its type accepts
        good = [v for v in _ORDINARY if _accepts(action, v)] or _ORDINARY
    hostile = st.sampled_from(HOSTILE_TEXT) | st.integers(-3, 64).map(str) | st.text(
        max_size=12).filter(lambda t: "://" not in t and t != "-" and "\x00" not in t)
    options = [st.sampled_from(good)] * 4 + [hostile]
    if action.dest in _PATH_FLAGS:
        options.append(st.sampled_from(sandbox["paths"]))
    return st.one_of(*options)


@st.composite
def _argv(draw, verb: str, parser: argparse.ArgumentParser, sandbox: dict) -> list[str]:
    argv = verb.split()
    for action in parser._actions:
        if not action.option_strings and action.dest != "help":
            argv.append(draw(_values(action, sandbox)))
    options = [a for a in parser._actions if a.option_strings
               and not isinstance(a, argparse._HelpAction | argparse._VersionAction)]
    chosen = draw(st.lists(st.sampled_from(options), max_size=5, unique_by=id)) if options else []
    for action in [a for a in options if a.required] + chosen:
        flag = draw(st.sampled_from(action.option_strings))
        if action.nargs == 0:
            argv.append(flag)
        else:
            argv += [flag, draw(_values(action, sandbox))]
    if verb == "detect":
        argv.append("--no-torch")  # asking a torch subprocess takes seconds; not input
    return argv


def _call(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    started = time.monotonic()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    assert time.monotonic() - started < CALL_LIMIT_S, argv
    return status, out.getvalue(), err.getvalue()


def _strict_json(text: str):
    def refuse(name):
        raise ValueError(f"{name} in --json output")
    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("verb", sorted(LEAVES))
def test_every_verb_and_flag_fails_with_exit_2_never_a_traceback(verb, sandbox):
    assert verb in EXAMPLES, f"a new verb: give it examples in EXAMPLES ({verb})"

    @settings(FUZZ, max_examples=EXAMPLES[verb])
    @given(_argv(verb, LEAVES[verb], sandbox))
    def check(argv):
        status, out, err = _call(argv)
        if os.environ.get("FUZZ_TRACE"):
            print(status, argv, err[-150:].strip(), file=sys.__stderr__)
        allowed = {0, 1, 2} if verb == "probe" else {0, 2}
        if verb == "estimate":
            allowed.add(3)  # printed, and the plan does not fit
        assert status in allowed, (argv, status, err[-500:])
        assert "Traceback" not in err
        if status == 2:
            assert err.strip(), argv
        if status in (0, 3) and "--json" in argv and out.strip():
            _strict_json(out)

    check()


# ------------------------------------------------------------------------ user-file loaders
@st.composite
def _json_doc(draw, template: dict) -> str:
    """``template`` as JSON text with some values replaced by hostile fragments (and now
    and then a hostile key or a whole hostile document)."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from(JSON_FRAGMENTS))
    parts = []
    for key, value in template.items():
        if draw(st.booleans()):
            text = draw(st.sampled_from(JSON_FRAGMENTS))
        elif isinstance(value, dict) and value:
            text = draw(_json_doc(value))
        else:
            text = json.dumps(value)
        parts.append(f"{json.dumps(key)}: {text}")
    if draw(st.integers(0, 4)) == 0:
        parts.append(f'"extra": {draw(st.sampled_from(JSON_FRAGMENTS))}')
    return "{" + ", ".join(parts) + "}"


_SETTINGS = {"schema_version": 1, "language": "en", "units": "GiB",
             "electricity_usd_per_kwh": 0.2, "currency": "CNY",
             "exchange_rates": {"CNY": 7.0, "EUR": 0.9}, "recent_files": ["/a.gpuplan"],
             "presentation_mode": False, "probe_python": "/usr/bin/python3",
             "window_geometry": None}
_RUN = {"schema_version": 1, "timestamp": "2026-01-01T00:00:00Z", "device_key": "gpu-x",
        "device_id": "cuda:0", "device_name": "NVIDIA H100", "device_type": "cuda",
        "memory_total_bytes": 80e9, "catalog_id": "h100-sxm",
        "versions": {"torch": "2.5", "python": "3.12"},
        "results": {"matmul": {"figures": {"bf16_median_tflops": 600.0},
                               "units": {"bf16_median_tflops": "TFLOPS"}, "conditions": {}},
                    "step": {"figures": {"achieved_tflops": 300.0},
                             "units": {}, "conditions": {"dtype": "bf16", "hidden": 4096}},
                    "bandwidth": {"figures": {"copy_gb_s": 3000.0}, "units": {}}}}
_PLAN = {"schema_version": 1, "app": "gpuadvisor",
         "model": {"custom": {"id": "x", "name": "x", "n_layers": 2, "d_model": 64,
                              "n_heads": 4, "head_dim": 16, "d_ff": 128, "vocab_size": 100}},
         "plan": {"task": "full", "micro_batch": 2, "grad_accum": 1, "seq_len": 128,
                  "n_gpus": 2, "epochs": 1.0, "dataset_tokens": 1e9, "efficiency": 0.5},
         "gpu": "rtx-4090", "assumptions": {"efficiency_train": 0.4, "gpus_per_node": 8}}


@settings(FUZZ, max_examples=80)
@given(text=_json_doc(_SETTINGS))
def test_any_settings_file_loads_or_is_set_aside_with_one_message(text, tmp_path_factory):
    from gpuadvisor.workspace.settings import Settings, load_settings

    path = tmp_path_factory.mktemp("settings") / "settings.json"
    path.write_text(text, encoding="utf-8")
    settings_, message = load_settings(path)
    assert isinstance(settings_, Settings)
    settings_.validate()
    settings_.format_money(1234.5)
    if message is not None:
        assert str(path) in message and not path.exists()
        assert settings_ == Settings()


@settings(FUZZ, max_examples=80)
@given(text=_json_doc({"schema_version": 1, "device_key": "gpu-x", "runs": [_RUN]}),
       run=_json_doc(_RUN))
def test_any_history_file_is_read_or_set_aside_and_never_breaks_a_measurement(
        text, run, tmp_path_factory, monkeypatch):
    from gpuadvisor.probes import history

    monkeypatch.setenv("GPUADVISOR_DATA_DIR", str(tmp_path_factory.mktemp("data")))
    folder = history.history_dir()
    folder.mkdir(parents=True)
    (folder / "a.json").write_text(text, encoding="utf-8")
    (folder / "b.json").write_text('{"schema_version": 1, "runs": [' + run + "]}",
                                   encoding="utf-8")
    warnings: list[str] = []
    for stored in history.runs(warnings=warnings):
        for m in stored.measurements():
            assert 0 < (m.achieved_tflops or m.bandwidth_gb_s) <= 100_000
        stored.to_json()
    history.measurements_for("h100-sxm", warnings=warnings)
    assert len(warnings) <= 2
    assert all(("a.json" in w) or ("b.json" in w) for w in warnings)


@settings(FUZZ, max_examples=80)
@given(text=_json_doc(_PLAN))
def test_any_plan_file_loads_or_is_refused_naming_the_file(text, tmp_path_factory):
    from gpuadvisor.workspace.planfile import PlanFileError, load_plan, parse_plan_dict

    path = tmp_path_factory.mktemp("plan") / "fuzz.gpuplan"
    path.write_text(text, encoding="utf-8")
    try:
        document = parse_plan_dict(load_plan(path), path=path)
    except PlanFileError as exc:
        assert str(path) in str(exc)
        assert path.read_text(encoding="utf-8") == text  # a plan is never moved or changed
        return
    from gpuadvisor.core.estimate import estimate

    estimate(document.model, document.plan, None, document.assumptions)


_TOML_VALUES = ["1", "0", "-500", BIG, "1" * 5000, "1e400", "nan", "inf", "-inf", '"x"',
                '"2026-01-01"', "true", "[1, 2]", "[" * 3000 + "]" * 3000, "{a = 1}", "1.5",
                '"\\u2028"', '"a\\nb"', "2147483648", "65537"]


@st.composite
def _toml(draw, kind: str) -> str:
    keys = {"gpus": ["name", "vendor", "memory_gib", "launch_year", "fp32_tflops",
                     "pcie_gen", "aliases", "tdp_w"],
            "models": ["name", "n_layers", "d_model", "n_heads", "head_dim", "d_ff",
                       "vocab_size", "n_experts", "experts_per_token", "max_positions",
                       "kind", "params", "flops_per_sample"],
            "offers": ["kind", "gpu_id", "provider", "price_usd", "as_of", "source",
                       "gpus_per_instance", "instance", "price_low_usd"]}[kind]
    table = draw(st.sampled_from(["fuzz-1", "a.b", "xxx", '"q"']))
    lines = [f"[{table}]"]
    for key in draw(st.lists(st.sampled_from(keys), max_size=8, unique=True)):
        lines.append(f"{key} = {draw(st.sampled_from(_TOML_VALUES))}")
    if draw(st.integers(0, 5)) == 0:
        lines.append(draw(st.sampled_from(["[[x]]", "a.b.c = 1", "= 1", "[" + "y." * 40 + "z]",
                                           "\x00", "schema_version = 2"])))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("kind", ["gpus", "models", "offers"])
def test_any_catalog_file_validates_or_lists_its_problems_and_update_agrees(
        kind, tmp_path, monkeypatch):
    monkeypatch.setenv("GPUADVISOR_DATA_DIR", str(tmp_path / "data"))

    @settings(FUZZ, max_examples=40)
    @given(_toml(kind))
    def check(text):
        path = tmp_path / f"{kind}.toml"
        path.write_text(text, encoding="utf-8")
        problems = catalog.validate_file(path)
        assert all(isinstance(p, str) and p for p in problems)
        if not problems:  # what validates is usable: every model gives a finite count
            for spec in catalog.load_models(path).values() if kind == "models" else ():
                assert spec.params().total < 1e18
        try:
            catalog.fetch_catalog_bytes(str(path))
        except catalog.UpdateError as exc:
            raise AssertionError(f"a regular file was refused: {exc}") from None

    check()


# ------------------------------------------------------------------------------ protocol
_LINE_TEMPLATES = [
    {"type": "hello", "protocol": 1, "versions": {"python": "3", "torch": "2"},
     "accelerators": {"cpu": True}, "devices": [{"id": "cpu", "name": "c",
                                                 "memory_total_bytes": 1}]},
    {"type": "progress", "probe": "matmul", "fraction": 0.5, "message": "m"},
    {"type": "result", "probe": "matmul", "figures": {"x_s": 1.0}, "units": {"x_s": "s"},
     "conditions": {"device": "cpu", "n": [1, 2]}},
    {"type": "error", "probe": "matmul", "kind": "exception", "message": "boom"},
    {"type": "done"},
]


@settings(FUZZ, max_examples=300)
@given(line=st.one_of(st.sampled_from(_LINE_TEMPLATES).flatmap(_json_doc),
                      st.binary(max_size=64).map(lambda b: b.decode("latin-1")),
                      st.sampled_from(JSON_FRAGMENTS)),
       as_bytes=st.booleans())
def test_any_worker_line_is_a_message_or_a_protocol_error(line, as_bytes):
    data = line.encode("utf-8", "surrogatepass") if as_bytes else line
    try:
        message = parse_line(data)
    except ProtocolError as exc:
        assert str(exc)
        return
    json.dumps(message.to_json(), allow_nan=False)


def test_a_fifo_given_for_any_file_flag_never_blocks(sandbox):
    fifos = [p for p in sandbox["paths"] if Path(p).exists() and Path(p).is_fifo()]
    if not fifos:
        pytest.skip("FIFOs are POSIX")
    for argv in (["probe", "--plan", fifos[0]], ["catalog", "update", "--from", fifos[1]],
                 ["catalog", "validate", fifos[1]], ["estimate", "--model", fifos[3]],
                 ["export", "report", "--model", "gpt2", "--chart", fifos[0]],
                 ["export", "launch", "--model", "gpt2", "--out", fifos[0], "--force"]):
        status, _out, err = _call(argv)
        assert status == 2 and ("FIFO" in err or "regular file" in err), (argv, err)
