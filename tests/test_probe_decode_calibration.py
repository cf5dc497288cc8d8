"""Decode and host measurements as the estimate reads them: the probe history turns the
decode probe's fused GEMV reads into ``bandwidth`` measurements (basis ``gemv``), the
hostmem probe into ``host_bandwidth``; :func:`select` prefers a 16-bit GEMV to a copy,
:func:`decode_bandwidth` answers per weight format, :func:`host_bandwidth` for the host."""

from __future__ import annotations

import json

import pytest

from gpuadvisor.core.calibration import (
    Measurement,
    decode_bandwidth,
    host_bandwidth,
    measured_format,
    select,
)
from gpuadvisor.core.estimate import estimate
from gpuadvisor.core.plan import Plan
from gpuadvisor.probes import history
from gpuadvisor.probes.compare import versus_catalog
from gpuadvisor.probes.protocol import parse_line
from gpuadvisor.probes.runner import ProbeRun
from tests.test_compute import GPT2_SMALL, make_gpu

RTX_4090 = {"id": "cuda:0", "type": "cuda", "name": "NVIDIA GeForce RTX 4090",
            "memory_total_bytes": 25_757_220_864, "uuid": "GPU-1234abcd-5678"}
CPU = {"id": "cpu", "type": "cpu", "name": "AMD Ryzen 9 7950X", "memory_total_bytes": 2**36}


def _result(probe, figures, conditions):
    return parse_line(json.dumps({
        "type": "result", "probe": probe, "figures": figures,
        "units": {name: "GB/s" for name in figures}, "conditions": conditions}))


def make_run() -> ProbeRun:
    """A ``probe --inference`` run on an RTX 4090 as the worker reports it."""
    hello = parse_line(json.dumps({
        "type": "hello", "protocol": 1,
        "versions": {"python": "3.12.3", "torch": "2.13.0", "cuda": "12.8", "hip": None},
        "accelerators": {"cuda": True, "cpu": True}, "devices": [RTX_4090, CPU]}))
    decode = _result("decode", {"fp16_gb_s": 905.0, "fp16_max_gb_s": 920.0,
                                "bf16_gb_s": 900.0, "int8_gb_s": 610.0,
                                "q4_unfused_gb_s": 95.0},
                     {"device": "cuda:0", "device_name": RTX_4090["name"]})
    hostmem = _result("hostmem", {"read_gb_s": 62.5, "copy_gb_s": 48.0, "read_1t_gb_s": 21.0},
                      {"device": "cpu", "device_name": CPU["name"]})
    return ProbeRun(status="ok", hello=hello, results=(decode, hostmem), returncode=0)


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(history.DATA_DIR_ENV, str(tmp_path))
    return tmp_path


def test_the_history_keeps_fused_gemv_reads_and_the_host_read_as_measurements(data_dir):
    history.record(make_run(), timestamp="2026-12-01T10:00:00Z")
    found = history.measurements_for("rtx-4090")
    gemv = {m.dtype: m for m in found if m.kind == "bandwidth"}
    assert set(gemv) == {"fp16", "bf16", "int8"}  # the unfused q4 is not the card's rate
    assert gemv["fp16"].bandwidth_gb_s == 905.0 and gemv["fp16"].basis == "gemv"
    assert gemv["int8"].gpu_id == "rtx-4090"
    assert gemv["fp16"].source == ("probe decode (fp16 GEMV) on NVIDIA GeForce RTX 4090, "
                                   "torch 2.13.0")
    [host] = [m for m in found if m.kind == "host_bandwidth"]
    assert (host.bandwidth_gb_s, host.gpu_id) == (62.5, None)
    assert history.host_measurement() == host
    # Another card's measurements still carry the host's (its layers left in RAM).
    assert history.measurements_for("rtx-3090") == [host]


def test_select_prefers_a_16_bit_gemv_to_a_copy_for_decoding():
    copy = Measurement(None, None, "2026-12-02T00:00:00Z", kind="bandwidth",
                       bandwidth_gb_s=850.0)
    gemv = Measurement(None, "fp16", "2026-12-01T00:00:00Z", kind="bandwidth",
                       basis="gemv", bandwidth_gb_s=905.0)
    int8 = Measurement(None, "int8", "2026-12-03T00:00:00Z", kind="bandwidth",
                       basis="gemv", bandwidth_gb_s=610.0)
    assert copy.basis == "copy"
    assert select([copy, gemv, int8], "rtx-4090", "bf16")[1] is gemv
    assert select([copy, int8], "rtx-4090", "bf16")[1] is copy
    bf16 = Measurement(None, "bf16", "2026-11-01T00:00:00Z", kind="bandwidth",
                       basis="gemv", bandwidth_gb_s=900.0)
    assert select([gemv, bf16], "rtx-4090", "bf16")[1] is bf16  # the plan's own dtype
    assert select([gemv, bf16], "rtx-4090", "fp16")[1] is gemv


def test_an_inference_estimate_decodes_at_the_measured_gemv_rate():
    gpu = make_gpu(memory_bandwidth_gb_s=1000)
    plan = Plan(task="infer", precision="bf16", seq_len=512, new_tokens=256)
    gemv = Measurement(None, "fp16", "2026-12-01T00:00:00Z", kind="bandwidth", basis="gemv",
                       bandwidth_gb_s=500.0, gpu_id=gpu.id, source="probe decode (fp16 GEMV)")
    plain = estimate(GPT2_SMALL, plan, gpu)
    measured = estimate(GPT2_SMALL, plan, gpu, measurement=[gemv])
    assert measured.assumptions["memory_bandwidth_gb_s"] == 500.0
    assert measured.assumptions["bandwidth_source"] == "measured 2026-12-01"
    assert measured.assumptions["measured_bandwidth_source"] == "probe decode (fp16 GEMV)"
    # Memory-bound decode at 500 GB/s instead of 1000 x bandwidth_efficiency 0.8: 1.6 x
    # the time per token.
    assert plain.time.bound == measured.time.bound == "memory bandwidth"
    assert plain.assumptions["bandwidth_efficiency"] == 0.8
    assert (plain.time.decode_tokens_per_s / measured.time.decode_tokens_per_s
            == pytest.approx(800.0 / 500.0))


@pytest.mark.parametrize(("name", "fmt"), [
    ("none", "fp16"), ("fp16", "fp16"), ("f16", "fp16"), ("bf16", "bf16"), ("fp32", "fp16"),
    ("int8", "int8"), ("q8_0", "int8"), ("fp8", "int8"), ("nf4", "q4"), ("nf4-dq", "q4"),
    ("int4", "q4"), ("mxfp4", "q4"), ("q4_k_m", "q4"), ("q4_0", "q4"), ("q2_k", "q4"),
    ("q6_k", "q4"), ("iq4_xs", "q4"), ("exl2-4.65", "q4"), ("Q5_K_M", "q4"),
])
def test_each_weight_format_is_stood_for_by_a_measured_one(name, fmt):
    assert measured_format(name) == fmt


def test_an_unknown_weight_format_is_refused_naming_it():
    with pytest.raises(ValueError, match="'fp64' is not a dtype or quantization"):
        measured_format("fp64")


GEMV_FP16 = Measurement(None, "fp16", "2026-12-01T00:00:00Z", kind="bandwidth", basis="gemv",
                        bandwidth_gb_s=905.0, gpu_id="rtx-4090", source="probe decode")
GEMV_Q4 = Measurement(None, "q4", "2026-11-01T00:00:00Z", kind="bandwidth", basis="gemv",
                      bandwidth_gb_s=700.0, gpu_id="rtx-4090", source="probe decode")
LOOP_Q4 = Measurement(None, "q4", "2026-12-05T00:00:00Z", kind="decode_loop",
                      bandwidth_gb_s=420.0, gpu_id="rtx-4090", source="plan check")
COPY = Measurement(None, None, "2026-12-06T00:00:00Z", kind="bandwidth", bandwidth_gb_s=850.0,
                   gpu_id="rtx-4090", source="probe bandwidth (copy)")
HOST = Measurement(None, None, "2026-12-01T00:00:00Z", kind="host_bandwidth",
                   bandwidth_gb_s=62.5)
ALL = [GEMV_FP16, GEMV_Q4, LOOP_Q4, COPY, HOST]


def test_decode_bandwidth_takes_the_gemv_of_the_format_first():
    found = decode_bandwidth(ALL, "rtx-4090", "q4_k_m")
    assert (found.bandwidth_gb_s, found.basis, found.weight_format, found.measured_format) == (
        700.0, "gemv", "q4", "q4")
    assert found.measurement is GEMV_Q4
    assert found.note.startswith("measured q4 GEMV 2026-11-01")


def test_a_16_bit_gemv_stands_for_an_unmeasured_format_and_says_so():
    found = decode_bandwidth([GEMV_FP16, COPY], "rtx-4090", "int8")
    assert (found.bandwidth_gb_s, found.measured_format) == (905.0, "fp16")
    assert "int8 was not measured, the fp16 GEMV stands for it" in found.note


def test_an_eager_engine_asks_for_the_decode_loop_first():
    found = decode_bandwidth(ALL, "rtx-4090", "nf4", order=("decode_loop", "gemv", "copy"))
    assert (found.bandwidth_gb_s, found.basis) == (420.0, "decode_loop")
    # Without a GEMV or a loop, the copy; another card's measurements never count.
    assert decode_bandwidth([COPY, HOST], "rtx-4090", "bf16").basis == "copy"
    assert decode_bandwidth(ALL, "rtx-3090", "fp16") is None
    with pytest.raises(ValueError, match="unknown basis 'matmul'"):
        decode_bandwidth(ALL, "rtx-4090", "fp16", order=("matmul",))


def test_host_bandwidth_is_the_newest_host_measurement():
    newer = Measurement(None, None, "2026-12-09T00:00:00Z", kind="host_bandwidth",
                        bandwidth_gb_s=70.0)
    assert host_bandwidth(ALL) is HOST
    assert host_bandwidth([*ALL, newer]) is newer
    assert host_bandwidth([GEMV_FP16]) is None


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"kind": "bandwidth", "basis": "gemv", "dtype": None, "bandwidth_gb_s": 1.0},
     "gemv measurement needs its weight format"),
    ({"kind": "decode_loop", "dtype": "nf4", "bandwidth_gb_s": 1.0},
     "decode_loop measurement needs its weight format"),
    ({"kind": "bandwidth", "basis": "triad", "dtype": None, "bandwidth_gb_s": 1.0},
     "basis must be one of copy, gemv"),
    ({"kind": "host_bandwidth", "dtype": None, "bandwidth_gb_s": 0.0},
     "bandwidth_gb_s must be a positive"),
    ({"kind": "step", "dtype": "bf16", "achieved_tflops": 1.0, "basis": "gemv"},
     "basis is for bandwidth measurements"),
])
def test_a_bandwidth_measurement_refuses_what_it_cannot_be(kwargs, message):
    values = {"achieved_tflops": None, "when": "2026-12-01"} | kwargs
    with pytest.raises(ValueError, match=message):
        Measurement(**values)


def test_versus_catalog_sets_each_fused_gemv_against_the_memory_bandwidth(data_dir):
    from gpuadvisor.catalog import load_gpus

    history.record(make_run(), timestamp="2026-12-01T10:00:00Z")
    stored = next(r for r in history.runs() if r.catalog_id == "rtx-4090")
    gpu = load_gpus()["rtx-4090"]
    rows = {r.figure: r for r in versus_catalog(stored, gpu) if r.probe == "decode"}
    assert set(rows) == {"fp16_gb_s", "bf16_gb_s", "int8_gb_s"}
    # 905 of the RTX 4090's 1008 GB/s (catalog, NVIDIA's Ada whitepaper).
    assert rows["fp16_gb_s"].theoretical == gpu.memory_bandwidth_gb_s == 1008.0
    assert rows["fp16_gb_s"].percent == pytest.approx(100 * 905 / 1008)


def _loop_run(fused: bool) -> ProbeRun:
    hello = parse_line(json.dumps({
        "type": "hello", "protocol": 1, "versions": {"python": "3.12.3", "torch": "2.13.0"},
        "accelerators": {"cuda": True, "cpu": True}, "devices": [RTX_4090, CPU]}))
    check = parse_line(json.dumps({
        "type": "result", "probe": "decodecheck",
        "figures": {"achieved_gb_s_full": 512.0, "tokens_per_s_full": 33.0},
        "units": {"achieved_gb_s_full": "GB/s", "tokens_per_s_full": "tokens/s"},
        "conditions": {"device": "cuda:0", "weights": "q4", "fused": fused, "hidden": 4096,
                       "layers_full": 32, "context": 2176, "micro_batch": 1}}))
    return ProbeRun(status="ok", hello=hello, results=(check,), returncode=0)


def test_a_fused_decode_loop_is_kept_as_a_decode_loop_measurement(data_dir):
    history.record(_loop_run(fused=True), timestamp="2026-12-02T10:00:00Z")
    history.record(_loop_run(fused=False), timestamp="2026-12-03T10:00:00Z")
    [loop] = [m for m in history.measurements_for("rtx-4090") if m.kind == "decode_loop"]
    assert (loop.bandwidth_gb_s, loop.dtype, loop.when) == (512.0, "q4", "2026-12-02T10:00:00Z")
    assert loop.shape == "hidden 4096, layers 32, context 2176, batch 1"
    assert loop.source.startswith("probe decode loop (plan check) on NVIDIA GeForce RTX 4090")
    found = decode_bandwidth([loop], "rtx-4090", "q4_k_m")
    assert (found.basis, found.bandwidth_gb_s) == ("decode_loop", 512.0)


def test_estimate_on_a_probed_card_decodes_at_its_measured_gemv_rate(data_dir, capsys):
    from gpuadvisor.cli import main

    history.record(make_run(), timestamp="2026-12-01T10:00:00Z")
    assert main(["estimate", "--model", "llama-3.1-8b", "--task", "infer", "--gpu",
                 "NVIDIA GeForce RTX 4090", "--json"]) == 0
    used = json.loads(capsys.readouterr().out)["assumptions"]
    assert used["memory_bandwidth_gb_s"] == 900.0  # a bf16 plan: the bf16 GEMV
    assert used["bandwidth_source"] == "measured 2026-12-01"
    assert "GEMV" in used["measured_bandwidth_source"]


def test_estimate_reads_layers_left_in_ram_at_the_measured_host_rate(data_dir, capsys):
    from gpuadvisor.cli import main

    history.record(make_run(), timestamp="2026-12-01T10:00:00Z")
    argv = ["estimate", "--model", "llama-3.1-70b", "--task", "infer", "--quant", "q4_k_m",
            "--gpu", "rtx-4090", "--gpu-layers", "40", "--json"]
    assert main(argv) in (0, 3)
    measured = json.loads(capsys.readouterr().out)
    a = measured["assumptions"]
    # The hostmem probe's all-thread read (62.5 GB/s), not an assumed figure.
    assert any(v == 62.5 for k, v in a.items() if "host" in k and "bandwidth" in k), a
    assert any(v == "measured 2026-12-01" for k, v in a.items() if "host" in k), a
    # By hand, --host-bandwidth wins over the history.
    assert main([*argv, "--host-bandwidth", "30"]) in (0, 3)
    given = json.loads(capsys.readouterr().out)
    slower = given["time"]["decode_tokens_per_s"] < measured["time"]["decode_tokens_per_s"]
    assert slower  # half the host rate: the 40 layers in RAM take longer each token
