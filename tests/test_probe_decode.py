"""The decode (GEMV bandwidth per weight format) and hostmem (host RAM bandwidth) probes.

Bytes are counted by hand from the formats' layouts; bandwidths are checked with a fake
clock (``kit.bench`` returning fixed times) in a subprocess that drives the kernels on CPU
torch, so torch never enters the test process; the real worker then runs both probes on
the CPU through the runner.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from gpuadvisor.probes.kernels.decode_shape import (
    CACHE_MULTIPLE,
    DECODE_SIZES,
    GiB,
    MiB,
    gb_s,
    host_cache_bytes,
    parse_cache_size,
    pass_bytes,
    pass_target_bytes,
    plan_matrices,
    weight_bytes,
)
from gpuadvisor.probes.runner import run_probes

needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                                 reason="torch is not installed (pip install torch==2.13.0)")
ROOT = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------- bytes
def test_bytes_of_a_4096_square_matrix_in_each_format_counted_by_hand():
    # fp16/bf16: 2 bytes a weight.
    assert weight_bytes(4096, 4096, "fp16") == 4096 * 4096 * 2 == 33_554_432
    assert weight_bytes(4096, 4096, "bf16") == 33_554_432
    # int8: 1 byte a weight + a 16-bit scale per output row.
    assert weight_bytes(4096, 4096, "int8") == 16_777_216 + 8_192
    # q4: 4 bits a weight + 2 x 16 bits (scale, zero) per 32 weights: 20 bytes per 32
    # weights, llama.cpp's block_q4_1 (ggml-common.h: ggml_half2 dm + qs[QK4_1 / 2]).
    assert weight_bytes(4096, 4096, "q4") == 8_388_608 + 4 * 4096 * 128 == 10_485_760
    assert weight_bytes(4096, 4096, "q4") / (4096 * 4096) == 20 / 32


def test_a_q4_matrix_needs_whole_groups_and_unknown_formats_are_refused():
    with pytest.raises(ValueError, match="not a multiple of the group"):
        weight_bytes(64, 48, "q4")
    with pytest.raises(ValueError, match="unknown weight format 'q3'"):
        weight_bytes(64, 64, "q3")
    with pytest.raises(ValueError, match="positive"):
        weight_bytes(0, 64, "fp16")


def test_a_pass_alternates_up_and_down_projections_until_it_holds_the_target():
    # hidden 4096, ffn 14336 in fp16: each matrix 14336 x 4096 x 2 = 117,440,512 bytes,
    # over a 100 MB target, so rows are halved twice: (3584, 4096) and (1024, 14336), each
    # 29,360,128 bytes; four of them (117,440,512) are the first sum >= 100,000,000.
    matrices = plan_matrices(100_000_000, 4096, 14336, "fp16")
    assert matrices == [(3584, 4096), (1024, 14336)] * 2
    assert pass_bytes(matrices, "fp16") == 4 * 29_360_128
    # A target above one matrix: whole matrices, up and down in turn.
    big = plan_matrices(512 * MiB, 4096, 14336, "fp16")
    assert big[:2] == [(14336, 4096), (4096, 14336)]
    assert len(big) == 5  # 4 x 117,440,512 = 469,762,048 < 536,870,912 <= 5 x
    assert pass_bytes(big, "fp16") == 5 * 117_440_512


def test_the_tiny_cpu_pass_in_each_format_counted_by_hand():
    sizes = DECODE_SIZES[("cpu", "tiny")]  # 256 x 768 matrices, 2 MiB a pass
    assert (sizes["hidden"], sizes["ffn"], sizes["target_bytes"]) == (256, 768, 2 * MiB)
    # fp16: 393,216 bytes a matrix; 6 of them are the first sum >= 2,097,152.
    assert len(plan_matrices(2 * MiB, 256, 768, "fp16")) == 6
    # int8: 768 x 256 + 2 x 768 = 198,144 and 256 x 768 + 2 x 256 = 197,120; ten of them
    # hold 1,976,320 bytes, eleven 2,174,464.
    int8 = plan_matrices(2 * MiB, 256, 768, "int8")
    assert len(int8) == 11 and pass_bytes(int8, "int8") == 2_174_464
    # q4: 98,304 bytes of nibbles + 4 x 768 x 8 (or 4 x 256 x 24) = 24,576 of scales and
    # zeros = 122,880 a matrix; 18 of them (2,211,840) are the first >= 2 MiB.
    q4 = plan_matrices(2 * MiB, 256, 768, "q4")
    assert len(q4) == 18 and pass_bytes(q4, "q4") == 2_211_840


def test_the_pass_grows_to_a_multiple_of_the_cache_and_stays_within_the_memory_it_may_use():
    quick = DECODE_SIZES[("gpu", "quick")]  # 512 MiB
    assert CACHE_MULTIPLE == 8
    # H100: 50 MiB of L2 -> 400 MiB < 512 MiB: the suite's size.
    assert pass_target_bytes(quick, 50 * MiB, None) == (512 * MiB, "suite")
    # MI300X: 256 MiB of Infinity Cache -> 2 GiB.
    assert pass_target_bytes(quick, 256 * MiB, None) == (2 * GiB, "8 x cache")
    assert pass_target_bytes(quick, 256 * MiB, 1 * GiB) == (1 * GiB,
                                                            "memory the probe may use")
    tiny = DECODE_SIZES[("cpu", "tiny")]  # tests: never grown with the cache
    assert pass_target_bytes(tiny, 32 * MiB, None) == (2 * MiB, "suite")


def test_bandwidth_is_bytes_over_seconds_in_decimal_gigabytes():
    assert gb_s(2_211_840, 0.02) == pytest.approx(0.110592)
    assert gb_s(1e9, 1.0) == 1.0
    with pytest.raises(ValueError):
        gb_s(1e9, 0.0)


def test_cache_sizes_are_read_from_sysfs(tmp_path):
    assert parse_cache_size("32768K\n") == 32 * MiB
    assert parse_cache_size("1M") == MiB
    assert parse_cache_size("512") == 512
    assert parse_cache_size("big") is None
    for index, (kind, size) in enumerate([("Data", "32K"), ("Instruction", "32K"),
                                          ("Unified", "1024K"), ("Unified", "36864K")]):
        folder = tmp_path / f"index{index}"
        folder.mkdir()
        (folder / "type").write_text(kind + "\n")
        (folder / "size").write_text(size + "\n")
    assert host_cache_bytes(str(tmp_path)) == 36 * MiB
    assert host_cache_bytes(str(tmp_path / "missing")) is None


# --------------------------------------------------------------------------- torch side
# Drives the kernels in-process on CPU torch and prints one JSON line.
SCENARIOS = r'''
import json, sys
sys.path.insert(0, sys.argv[1])
import torch
from gpuadvisor.probes import worker

worker.load_kernels()
decode = worker.RUNNERS["decode"].__globals__
hostmem = worker.RUNNERS["hostmem"].__globals__
formats = worker.import_kernel("decode_formats")
shape = worker.import_kernel("decode_shape")

class Channel:
    def progress(self, probe, fraction, message):
        pass

cpu = worker.Device(torch, worker.cpu_device(torch))
tiny = dict(worker.SUITES[("cpu", "tiny")], name="tiny")
seen = {}
bf16 = torch.bfloat16

# Stored bytes of each format, fused and unfused, against the layout's count.
seen["nbytes"] = {}
for fmt in ("fp16", "bf16", "int8", "q4"):
    for fused in (True, False):
        w = formats.make_weight(torch, cpu, 768, 256, fmt, bf16, fused=fused)
        seen["nbytes"][f"{fmt}-{fused}"] = [w.nbytes, w.fused, w.kernel]

# Dequantizing by hand: nibbles (high = even column), (q - zero) x scale per 32.
values = torch.arange(64, dtype=torch.int32).reshape(1, 64) % 16
packed = formats.pack_nibbles(torch, values)
seen["packed_first"] = [int(packed[0, 0]), int(packed[0, 1])]
seen["unpacked"] = formats.unpack_nibbles(torch, packed).tolist() == values.tolist()
scales = torch.tensor([[0.5, 2.0]], dtype=torch.float32)
zeros = torch.tensor([[8.0, 1.0]], dtype=torch.float32)
seen["dequantized"] = formats.dequantize_q4(torch, packed, scales, zeros,
                                            torch.float32).tolist()

# The unfused q4 GEMV equals x times the dequantized matrix.
w = formats.make_weight(torch, cpu, 64, 128, "q4", torch.float32, fused=False)
x = torch.randn(1, 128)
packed, scales, zeros = w.tensors
reference = x @ formats.dequantize_q4(torch, packed, scales, zeros, torch.float32).T
seen["unfused_q4_matches"] = bool(torch.allclose(w.apply(x), reference, atol=1e-5))

# A fake clock: every pass takes 10, 20, 40 ms.
real_bench = worker.bench
worker.bench = lambda fn, sync, budget_s, max_batches: ([0.01, 0.02, 0.04], 1, 3)
seen["fixed"] = worker.RUNNERS["decode"](torch, cpu, tiny, Channel(), {})
seen["unfused"] = worker.RUNNERS["decode"](torch, cpu, tiny, Channel(),
                                           {"formats": ["int8", "q4"], "fused": False})
seen["host"] = worker.RUNNERS["hostmem"](torch, cpu, tiny, Channel(), {})
worker.bench = real_bench

# Out of memory above 1 MiB a pass: 2 -> 1 MiB.
real_time_format = decode["_time_format"]
targets = []
def tight(torch_, device, fmt, target, *args):
    targets.append(target)
    if target > worker.MiB:
        raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 MiB")
    return real_time_format(torch_, device, fmt, target, *args)
decode["_time_format"] = tight
seen["oom"] = worker.RUNNERS["decode"](torch, cpu, tiny, Channel(), {"formats": ["fp16"]})
seen["oom_targets"] = targets
decode["_time_format"] = real_time_format

for name, options in (("bad_formats", {"formats": ["fp4"]}), ("bad_fused", {"fused": 1})):
    try:
        worker.RUNNERS["decode"](torch, cpu, tiny, Channel(), options)
    except worker.ProbeFailed as exc:
        seen[name] = [exc.kind, str(exc)]
print(json.dumps(seen))
'''


@pytest.fixture(scope="module")
def scenarios():
    done = subprocess.run([sys.executable, "-c", SCENARIOS, str(ROOT)], capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@needs_torch
def test_each_format_stores_exactly_the_bytes_its_layout_counts(scenarios):
    for fmt in ("fp16", "bf16", "int8", "q4"):
        for fused in (True, False):
            nbytes, _, _ = scenarios["nbytes"][f"{fmt}-{fused}"]
            # The unfused q4 keeps scale and zero as two tensors: the same bytes.
            assert nbytes == weight_bytes(768, 256, fmt), (fmt, fused)
    # This torch (CPU build) has the fused weight-only kernels.
    assert scenarios["nbytes"]["int8-True"][1:] == [True, "torch._weight_int8pack_mm"]
    assert scenarios["nbytes"]["q4-True"][1:] == [True, "torch._weight_int4pack_mm_for_cpu"]
    assert scenarios["nbytes"]["q4-False"][1] is False


@needs_torch
def test_4_bit_values_are_packed_two_a_byte_and_dequantized_per_group(scenarios):
    # Columns 0 and 1 hold 0 and 1: 0 << 4 | 1 = 1; columns 2, 3: 2 << 4 | 3 = 35.
    assert scenarios["packed_first"] == [1, 35]
    assert scenarios["unpacked"] is True
    q = [i % 16 for i in range(64)]
    expected = [(v - 8.0) * 0.5 for v in q[:32]] + [(v - 1.0) * 2.0 for v in q[32:]]
    assert scenarios["dequantized"] == [expected]
    assert scenarios["unfused_q4_matches"] is True


@needs_torch
def test_decode_bandwidth_is_the_stored_bytes_over_the_measured_time(scenarios):
    result = scenarios["fixed"]
    figures, formats = result["figures"], result["conditions"]["formats"]
    # Bytes per pass from the hand counts above; median time 20 ms, best 10 ms.
    for fmt, stored in (("fp16", 6 * 393_216), ("bf16", 6 * 393_216), ("int8", 2_174_464),
                        ("q4", 2_211_840)):
        assert formats[fmt]["bytes_per_pass"] == stored
        assert figures[f"{fmt}_gb_s"] == float(f"{stored / 0.02 / 1e9:.4g}")
        assert figures[f"{fmt}_max_gb_s"] == float(f"{stored / 0.01 / 1e9:.4g}")
        assert result["units"][f"{fmt}_gb_s"] == "GB/s"
        assert formats[fmt]["fused"] is True
    assert figures["q4_gb_s"] == 0.1106
    assert formats["q4"]["bytes_per_weight"] == 0.625
    assert formats["int8"]["shapes"] == [[768, 256], [256, 768]]
    assert result["conditions"]["target_bytes"] == 2 * MiB


@needs_torch
def test_an_unfused_gemv_is_reported_apart_never_as_the_cards_bandwidth(scenarios):
    figures = scenarios["unfused"]["figures"]
    assert set(figures) == {"int8_unfused_gb_s", "int8_unfused_max_gb_s",
                            "q4_unfused_gb_s", "q4_unfused_max_gb_s"}
    assert figures["q4_unfused_gb_s"] == 0.1106  # the same stored bytes over the time
    assert "unfused" in scenarios["unfused"]["conditions"]["formats"]["q4"]["kernel"]


@needs_torch
def test_host_read_counts_the_buffer_once_and_copy_twice(scenarios):
    result = scenarios["host"]
    size = result["conditions"]["buffer_bytes"]
    assert size == 16 * MiB
    threads = result["conditions"]["threads"]
    assert result["figures"]["read_gb_s"] == float(f"{size / 0.02 / 1e9:.4g}") == 0.8389
    assert result["figures"]["copy_gb_s"] == float(f"{2 * size / 0.02 / 1e9:.4g}") == 1.678
    assert result["figures"]["read_max_gb_s"] == float(f"{size / 0.01 / 1e9:.4g}")
    if threads > 1:
        assert result["figures"]["read_1t_gb_s"] == 0.8389
    assert result["conditions"]["device"] == "cpu"


@needs_torch
def test_decode_retries_a_smaller_pass_after_out_of_memory_and_refuses_bad_options(scenarios):
    assert scenarios["oom_targets"][:2] == [2 * MiB, MiB]
    assert scenarios["oom"]["conditions"]["oom_retries"] == 1
    assert scenarios["oom"]["figures"]["fp16_gb_s"] > 0
    assert scenarios["bad_formats"][0] == "bad-option"
    assert "formats must be a list of fp16, bf16, int8, q4" in scenarios["bad_formats"][1]
    assert scenarios["bad_fused"] == ["bad-option",
                                      "decode: fused must be true or false, got 1"]


@needs_torch
def test_the_real_worker_runs_decode_and_hostmem_on_the_cpu():
    run = run_probes(["decode", "hostmem"], device="cpu", timeout_s=120,
                     extra_args=["--tiny"])
    assert run.status == "ok", run.errors
    decode, host = run.result("decode"), run.result("hostmem")
    for fmt in ("fp16", "int8", "q4"):
        assert decode.figures[f"{fmt}_gb_s"] > 0
        assert decode.figures[f"{fmt}_max_gb_s"] >= decode.figures[f"{fmt}_gb_s"]
    assert decode.conditions["bytes_counted"].startswith("the weight matrices' stored bytes")
    assert host.figures["read_gb_s"] > 0 and host.figures["copy_gb_s"] > 0
    assert host.units["read_gb_s"] == "GB/s"
    assert host.conditions["suite"] == "tiny"


# --------------------------------------------------------------------------- command line
def test_probe_inference_runs_decode_and_hostmem_alone_or_after_the_named_probes(
        monkeypatch, capsys):
    from gpuadvisor.cli import main
    from gpuadvisor.probes import interpreters, runner

    seen = []

    def fake_run(probes, **kwargs):
        if probes:  # (the interpreter check says hello with no probe)
            seen.append(tuple(probes))
        return runner.ProbeRun(status="ok", hello=None)

    monkeypatch.setattr(runner, "run_probes", fake_run)
    monkeypatch.setattr(interpreters, "candidate_pythons", lambda *a, **k: [])
    assert main(["probe", "--inference", "--no-save", "--json"]) == 0
    assert main(["probe", "--inference", "--probes", "matmul,decode", "--no-save",
                 "--json"]) == 0
    capsys.readouterr()
    assert seen == [("decode", "hostmem"), ("matmul", "decode", "hostmem")]
    assert runner.INFERENCE_PROBES == ("decode", "hostmem")
    assert {"decode", "hostmem", "decodecheck"} <= set(runner.PROBES)
