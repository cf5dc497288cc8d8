"""The probe protocol (DESIGN.md §3): every message round-trips, every bad line is refused
with a ProtocolError that names the problem."""

from __future__ import annotations

import json

import pytest

from gpuadvisor.probes import worker
from gpuadvisor.probes.protocol import (
    MAX_LINE_BYTES,
    PROTOCOL_VERSION,
    Done,
    Error,
    Hello,
    Progress,
    ProtocolError,
    Result,
    parse_line,
    to_line,
)

HELLO = Hello(protocol=PROTOCOL_VERSION, versions={"python": "3.12.3", "torch": "2.13.0"},
              accelerators={"cuda": False, "cpu": True},
              devices=({"id": "cpu", "name": "Some CPU"},))
MESSAGES = [
    HELLO,
    Progress(probe="matmul", fraction=0.25, message="fp32 1024x1024x1024"),
    Result(probe="matmul", figures={"fp32_median_tflops": 1.5},
           units={"fp32_median_tflops": "TFLOPS"}, conditions={"device": "cpu"}),
    Error(probe="bandwidth", kind="out-of-memory", message="no buffer fits"),
    Error(probe=None, kind="timeout", message="stopped"),
    Done(),
]


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: type(m).__name__)
def test_every_message_round_trips_through_one_line(message):
    line = to_line(message)
    assert line.endswith("\n") and "\n" not in line[:-1]
    assert parse_line(line) == message
    assert parse_line(line.encode()) == message


def test_hello_without_torch_says_torch_is_none():
    line = json.dumps({"type": "hello", "protocol": PROTOCOL_VERSION,
                       "versions": {"python": "3.11", "torch": None},
                       "torch_error": "ModuleNotFoundError: No module named 'torch'"})
    hello = parse_line(line)
    assert isinstance(hello, Hello)
    assert hello.torch is None
    assert hello.devices == ()


def test_unknown_extra_keys_are_ignored_so_newer_workers_stay_readable():
    line = json.dumps({"type": "progress", "probe": "matmul", "fraction": 1, "message": "",
                       "eta_s": 3.0})
    assert parse_line(line) == Progress("matmul", 1.0, "")


@pytest.mark.parametrize(("line", "problem"), [
    ("Warning: TF32 is on", "not JSON"),
    ("", "empty line"),
    ("[1, 2]", "not a JSON object"),
    ('{"probe": "matmul"}', "unknown message type None"),
    ('{"type": "telemetry"}', "unknown message type 'telemetry'"),
    ('{"type": "progress", "fraction": 0.5}', "missing 'probe'"),
    ('{"type": "progress", "probe": "matmul", "fraction": "half"}', "'fraction' must be a number"),
    ('{"type": "progress", "probe": "matmul", "fraction": 1.5}', "must be in [0, 1]"),
    ('{"type": "progress", "probe": "matmul", "fraction": true}', "got a boolean"),
    ('{"type": "result", "probe": "m", "figures": {"x": NaN}, "units": {"x": "s"}}', "not JSON"),
    ('{"type": "result", "probe": "m", "figures": {"x": "1"}, "units": {"x": "s"}}',
     "figures.x must be a finite number"),
    ('{"type": "result", "probe": "m", "figures": {"x": 1}, "units": {}}',
     "figures.x has no unit"),
    ('{"type": "result", "probe": "m", "units": {}}', "missing 'figures'"),
    ('{"type": "error", "probe": "m", "message": "boom"}', "missing 'kind'"),
    ('{"type": "hello", "protocol": 999, "versions": {}}', "speaks protocol 999"),
    ('{"type": "hello", "protocol": 1, "versions": {"torch": 2}}', "versions.torch"),
    ('{"type": "hello", "protocol": 1, "versions": {}, "devices": [{"name": "x"}]}',
     "devices[0]"),
])
def test_a_bad_line_is_a_protocol_error_naming_the_problem(line, problem):
    with pytest.raises(ProtocolError) as caught:
        parse_line(line)
    assert problem in str(caught.value)


def test_bytes_that_are_not_utf8_or_too_long_are_refused():
    with pytest.raises(ProtocolError, match="not UTF-8"):
        parse_line(b'{"type": "done"}\xff\n')
    with pytest.raises(ProtocolError, match="longer than"):
        parse_line(b"x" * (MAX_LINE_BYTES + 1))


def test_the_worker_speaks_the_same_protocol_version_as_the_app():
    # The worker is standalone (it may run in another interpreter), so it carries its own copy.
    assert worker.PROTOCOL_VERSION == PROTOCOL_VERSION


def test_the_workers_hello_without_torch_parses():
    message = worker.hello_message(None, "ModuleNotFoundError: No module named 'torch'")
    hello = parse_line(json.dumps(message))
    assert isinstance(hello, Hello)
    assert hello.torch is None
    assert hello.accelerators["cpu"] is True
    assert [d["id"] for d in hello.devices] == ["cpu"]
