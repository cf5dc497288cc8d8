"""Inline ECC on NVIDIA GDDR cards: who has it (the catalog default, the driver's mode),
what it costs a streaming read (16 of every 17 bytes are data), and every door that reads
bandwidth or memory through it: the engines' read fraction, the training kernels' copy
rate, usable memory, a detected card's spec and its health warning."""

from __future__ import annotations

import json
import statistics
from dataclasses import replace
from pathlib import Path

import pytest

from gpuadvisor import catalog
from gpuadvisor.core.engines.base import GPU_CLASSES, read_fraction
from gpuadvisor.core.gpu import (
    DRIVER_RESERVE_MIB,
    INLINE_ECC_BANDWIDTH_LOSS,
    SpecFieldError,
    ecc_is_inline,
    ecc_read_share,
    inline_ecc,
    usable_memory,
)
from gpuadvisor.core.parallel.insitu import gpu_rates
from gpuadvisor.core.parallel.rates import kernel_fractions
from gpuadvisor.hardware.base import GpuInfo
from gpuadvisor.workspace.rig import DetectedRig

GPUS = catalog.load_gpus()
BENCH = Path(__file__).resolve().parents[1] / "benchmarks/calibration/llamacpp_bench.json"
MIB = 2**20


def test_who_keeps_check_bits_inline():
    # datacenter GDDR cards ship with ECC on; GeForce and workstation cards with it off
    for gpu_id in ("l40s", "a40", "l4", "t4", "a10"):
        assert inline_ecc(GPUS[gpu_id])[0], gpu_id
    for gpu_id in ("rtx-4090", "rtx-a6000", "rtx-6000-ada"):
        assert not inline_ecc(GPUS[gpu_id])[0], gpu_id
    # HBM keeps them in dedicated resources; other vendors are not modelled as inline
    for gpu_id in ("h100-sxm", "a100-sxm-80gb", "mi300x"):
        assert not inline_ecc(GPUS[gpu_id])[0], gpu_id
    # the driver's mode, where detection read it, decides
    assert not inline_ecc(replace(GPUS["l40s"], ecc_enabled=False))[0]
    on, why = inline_ecc(replace(GPUS["rtx-a6000"], ecc_enabled=True))
    assert on and "driver" in why
    assert not inline_ecc(replace(GPUS["h100-sxm"], ecc_enabled=True))[0]
    # where the check bits live is the memory's, whatever the mode
    assert ecc_is_inline(GPUS["rtx-4090"]) and not ecc_is_inline(GPUS["h100-sxm"])


def test_a_stream_keeps_sixteen_of_seventeen_bytes():
    # check bits are 1/16 of the data (nvidia-smi: an L40S shows 46068 of 49152 MiB);
    # reading 16 data bytes moves 1 check byte: 16/17 of the traffic is data
    shown = 46068 / 49152
    assert shown == pytest.approx(15 / 16, abs=1e-3)
    kept = 1 - INLINE_ECC_BANDWIDTH_LOSS
    assert kept == pytest.approx(16 / 17)
    assert ecc_read_share(GPUS["a40"])[0] == pytest.approx(16 / 17)
    assert ecc_read_share(GPUS["rtx-a6000"])[0] == 1.0


def test_twins_with_and_without_ecc_differ_by_the_check_bits():
    # the same chip and memory, ECC on by default (A40, L40S) and off by default (RTX A6000,
    # RTX 6000 Ada), one llama.cpp build on one cloud (XiongjieDai, May 2024): tokens/s per
    # datasheet GB/s, on over off
    rows = {r["id"]: r for r in json.loads(BENCH.read_text())["rows"]}
    pairs = (("LCB327", "LCB325"), ("LCB328", "LCB326"), ("LCB043", "LCB054"),
             ("LCB044", "LCB055"), ("LCB046", "LCB056"))

    def per_gb_s(row_id):
        row = rows[row_id]
        return row["tokens_per_s"] / GPUS[row["catalog_id"]].memory_bandwidth_gb_s

    ratios = []
    for on, off in pairs:
        assert (rows[on]["model"], rows[on]["quant"], rows[on]["test"]) == \
            (rows[off]["model"], rows[off]["quant"], rows[off]["test"])
        assert inline_ecc(GPUS[rows[on]["catalog_id"]])[0]
        assert not inline_ecc(GPUS[rows[off]["catalog_id"]])[0]
        ratios.append(per_gb_s(on) / per_gb_s(off))
    assert statistics.mean(ratios) == pytest.approx(16 / 17, abs=0.01)
    # NVIDIA's "approximately 20%" (transactions in general) is far from what streams lose
    assert all(r > 0.9 for r in ratios)


def test_the_engines_read_at_the_class_share_less_the_check_bits():
    gddr = GPU_CLASSES["nvidia-gddr"].read_fraction
    share, source = read_fraction(GPUS["l40s"])
    assert share == pytest.approx(gddr * 16 / 17)
    assert "16 of every 17" in source
    assert read_fraction(GPUS["rtx-6000-ada"])[0] == gddr
    assert read_fraction(replace(GPUS["l40s"], ecc_enabled=False))[0] == gddr
    # a card's own measurement stands as measured (the T4's clpeak read)
    assert read_fraction(GPUS["t4"])[0] == pytest.approx(263.44 / 320)


def test_training_copies_lose_the_check_bits_too():
    a40 = GPUS["a40"]
    rates, source = gpu_rates(a40, "bf16")
    assert rates.bandwidth_b_s == pytest.approx(
        696e9 * kernel_fractions("a40").memory * 16 / 17)
    assert "16 of every 17" in source
    off, _ = gpu_rates(replace(a40, ecc_enabled=False), "bf16")
    assert off.bandwidth_b_s == pytest.approx(696e9 * kernel_fractions("a40").memory)
    # a measured copy rate is what the card did, ECC and all
    measured, measured_source = gpu_rates(a40, "bf16", bandwidth_gb_s=500.0)
    assert measured.bandwidth_b_s == pytest.approx(500e9)
    assert "16 of every 17" not in measured_source


def test_usable_memory_carves_the_check_bits_only_where_ecc_is_on():
    a40 = GPUS["a40"]  # 48 GiB, no reported total in the catalog
    assert a40.reported_memory_mib is None and a40.cuda_memory_mib is None
    on = usable_memory(a40)[0]
    off = usable_memory(replace(a40, ecc_enabled=False))[0]
    assert on == round((48 * 1024 * 15 / 16 - DRIVER_RESERVE_MIB) * MIB)
    assert off == round((48 * 1024 - DRIVER_RESERVE_MIB) * MIB)


def test_a_detected_card_carries_its_drivers_mode():
    rig = DetectedRig(GPUS, reference=None)
    info = GpuInfo(index=0, name="NVIDIA L40S", vendor="nvidia", backend="nvml",
                   memory_total_bytes=49152 * MIB, catalog_id="l40s", ecc_enabled=False)
    rig.offer([info])
    spec = rig.spec("detected:0")
    assert spec.ecc_enabled is False
    assert read_fraction(spec)[0] == GPU_CLASSES["nvidia-gddr"].read_fraction


def test_a_malformed_mode_is_named():
    with pytest.raises(SpecFieldError, match="ecc_enabled"):
        replace(GPUS["l40s"], ecc_enabled="yes")
