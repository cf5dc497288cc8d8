"""The probe history: one JSON file per device under $GPUADVISOR_DATA_DIR/probes, written
atomically; a corrupt file is moved aside and reported, never overwritten silently.

Runs are built from protocol lines, so no torch and no worker are needed."""

from __future__ import annotations

import json

import pytest

from gpuadvisor.probes import history
from gpuadvisor.probes.protocol import parse_line
from gpuadvisor.probes.runner import ProbeRun

RTX_4090 = {"id": "cuda:0", "type": "cuda", "name": "NVIDIA GeForce RTX 4090",
            "memory_total_bytes": 25_393_692_672, "uuid": "GPU-1234abcd-5678"}
CPU = {"id": "cpu", "type": "cpu", "name": "Fake CPU 9000", "memory_total_bytes": 2**34}


def make_run(bf16_tflops: float = 50.0, *, device=RTX_4090, torch="2.13.0") -> ProbeRun:
    """A finished run as the runner builds it, from the worker's protocol lines."""
    hello = parse_line(json.dumps({
        "type": "hello", "protocol": 1,
        "versions": {"python": "3.12.3", "torch": torch, "cuda": "12.8", "hip": None},
        "accelerators": {"cuda": True, "cpu": True}, "devices": [device, CPU]}))
    matmul = parse_line(json.dumps({
        "type": "result", "probe": "matmul",
        "figures": {"bf16_median_tflops": bf16_tflops, "fp32_median_tflops": 20.0},
        "units": {"bf16_median_tflops": "TFLOPS", "fp32_median_tflops": "TFLOPS"},
        "conditions": {"device": device["id"], "device_name": device["name"]}}))
    bandwidth = parse_line(json.dumps({
        "type": "result", "probe": "bandwidth", "figures": {"copy_gb_s": 900.0},
        "units": {"copy_gb_s": "GB/s"}, "conditions": {"device": device["id"]}}))
    return ProbeRun(status="ok", hello=hello, results=(matmul, bandwidth), returncode=0)


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(history.DATA_DIR_ENV, str(tmp_path))
    return tmp_path


def test_record_then_load_round_trips_every_field(data_dir):
    paths = history.record(make_run(), timestamp="2026-12-01T10:00:00Z")
    assert paths == [data_dir / "probes" / "gpu-1234abcd-5678.json"]
    data = json.loads(paths[0].read_text(encoding="utf-8"))
    assert data["schema_version"] == history.HISTORY_SCHEMA_VERSION
    [stored] = history.runs()
    assert stored.timestamp == "2026-12-01T10:00:00Z"
    assert stored.device_key == "gpu-1234abcd-5678"
    assert stored.device_name == "NVIDIA GeForce RTX 4090"
    assert stored.device_id == "cuda:0"
    assert stored.catalog_id == "rtx-4090"
    assert stored.versions["torch"] == "2.13.0" and stored.versions["cuda"] == "12.8"
    assert stored.figure("matmul", "bf16_median_tflops") == 50.0
    assert stored.results["bandwidth"]["units"] == {"copy_gb_s": "GB/s"}
    assert stored.results["matmul"]["conditions"]["device_name"] == "NVIDIA GeForce RTX 4090"
    assert history.runs("gpu-1234abcd-5678") == [stored]
    assert history.runs("someone-else") == []


def test_a_device_without_uuid_is_keyed_by_a_slug_of_its_name(data_dir):
    [path] = history.record(make_run(device=CPU))
    assert path.name == "cpu-fake-cpu-9000.json"
    [stored] = history.runs()
    assert stored.catalog_id is None
    assert stored.timestamp.endswith("Z")


def test_runs_append_and_latest_for_picks_the_newest(data_dir):
    history.record(make_run(40.0), timestamp="2026-11-01T09:00:00Z")
    history.record(make_run(60.0), timestamp="2026-12-01T09:00:00Z")
    history.record(make_run(50.0), timestamp="2026-11-15T09:00:00Z")
    assert len(history.runs()) == 3
    latest = history.latest_for("rtx-4090", probe="matmul")
    assert latest is not None and latest.timestamp == "2026-12-01T09:00:00Z"
    assert latest.figure("matmul", "bf16_median_tflops") == 60.0
    assert history.latest_for("h100-sxm") is None
    assert history.latest_for("rtx-4090", probe="training-step") is None


def test_measurement_carries_dtype_date_and_gpu(data_dir):
    history.record(make_run(50.0), timestamp="2026-12-01T09:00:00Z")
    stored = history.latest_for("rtx-4090")
    m = stored.measurement("bf16")
    assert (m.achieved_tflops, m.dtype, m.date, m.gpu_id) == (50.0, "bf16",
                                                              "2026-12-01", "rtx-4090")
    assert "RTX 4090" in m.source
    assert stored.measurement("fp8") is None


@pytest.mark.parametrize("content", [b"{not json", b"[1, 2]", b'{"runs": []}',
                                     b'{"schema_version": 99, "runs": []}',
                                     b'{"schema_version": 1, "runs": [{"x": 1}]}'])
def test_a_corrupt_file_is_backed_up_and_reported_never_overwritten(data_dir, content):
    folder = data_dir / "probes"
    folder.mkdir()
    bad = folder / "gpu-1234abcd-5678.json"
    bad.write_bytes(content)
    warnings: list[str] = []
    assert history.runs(warnings=warnings) == []
    assert len(warnings) == 1 and "gpu-1234abcd-5678.json" in warnings[0]
    [backup] = folder.glob("gpu-1234abcd-5678.json.bad-*")
    assert backup.read_bytes() == content
    assert not bad.exists()


def test_recording_over_a_corrupt_file_keeps_it_aside_and_says_so(data_dir):
    folder = data_dir / "probes"
    folder.mkdir()
    (folder / "gpu-1234abcd-5678.json").write_text("garbage", encoding="utf-8")
    warnings: list[str] = []
    history.record(make_run(), warnings=warnings)
    assert len(warnings) == 1 and "kept as" in warnings[0]
    [backup] = folder.glob("*.bad-*")
    assert backup.read_text(encoding="utf-8") == "garbage"
    assert len(history.runs()) == 1


def test_a_run_without_results_records_nothing(data_dir):
    run = ProbeRun(status="error", hello=None)
    assert history.record(run) == []
    assert not (data_dir / "probes").exists()


def test_writes_leave_no_temporary_files(data_dir):
    history.record(make_run())
    history.record(make_run())
    assert [p.name for p in (data_dir / "probes").iterdir()] == ["gpu-1234abcd-5678.json"]


def test_a_run_becomes_core_measurements_step_matmul_and_bandwidth(data_dir):
    from gpuadvisor.core.calibration import select

    run = make_run(bf16_tflops=50.0)
    step = parse_line(json.dumps({
        "type": "result", "probe": "step",
        "figures": {"achieved_tflops": 31.5, "tokens_per_s": 9000.0, "step_s": 0.11},
        "units": {"achieved_tflops": "TFLOPS", "tokens_per_s": "tokens/s", "step_s": "s"},
        "conditions": {"device": RTX_4090["id"], "dtype": "bf16", "hidden": 2048,
                       "seq": 1024, "micro_batch": 1, "layers": 2}}))
    run = ProbeRun(status="ok", hello=run.hello, results=(*run.results, step), returncode=0)
    history.record(run, timestamp="2026-12-02T10:00:00Z")
    found = history.measurements_for("rtx-4090")
    kinds = sorted((m.kind, m.dtype) for m in found)
    assert kinds == [("bandwidth", None), ("matmul", "bf16"), ("matmul", "fp32"),
                     ("step", "bf16")]
    compute, bandwidth = select(found, "rtx-4090", "bf16")
    assert compute.kind == "step" and compute.achieved_tflops == 31.5
    assert compute.shape == "hidden 2048, seq 1024, micro-batch 1, layers 2"
    assert bandwidth.bandwidth_gb_s == 900.0
    assert all(m.gpu_id == "rtx-4090" for m in found)
    assert history.measurements_for("h100-sxm") == []
