"""Device names as drivers report them (nvidia-smi/NVML, ROCm, oneAPI, macOS) -> catalog ids.

Memory figures are what the drivers report (MiB), a little under the label: ECC and driver
reservations (T4: 15360 MiB of 16 GiB; A10G/L4 with ECC on: ~22.5 GiB of 24).
"""

from __future__ import annotations

import pytest

from gpuadvisor.catalog import load_gpus
from gpuadvisor.hardware.base import GpuInfo
from gpuadvisor.hardware.match import match_gpu, normalize_name, with_catalog_match

MIB = 1024**2

TABLE = [
    # NVIDIA GeForce
    ("NVIDIA GeForce RTX 4090", 24564, "rtx-4090"),
    ("NVIDIA GeForce RTX 4090 Laptop GPU", 16376, None),  # a different chip
    ("NVIDIA GeForce RTX 4080 SUPER", 16376, "rtx-4080-super"),
    ("NVIDIA GeForce RTX 4080", 16376, "rtx-4080"),
    ("NVIDIA GeForce RTX 4070 Ti SUPER", 16376, "rtx-4070-ti-super"),
    ("NVIDIA GeForce RTX 4070", 12282, "rtx-4070"),
    ("NVIDIA GeForce RTX 4060 Ti", 16380, "rtx-4060-ti-16gb"),
    ("NVIDIA GeForce RTX 4060 Ti", 8188, None),  # the 8 GB card: not in the catalog
    ("NVIDIA GeForce RTX 3090", 24576, "rtx-3090"),
    ("NVIDIA GeForce RTX 3090 Ti", 24564, "rtx-3090-ti"),
    ("NVIDIA GeForce RTX 3080", 10240, "rtx-3080-10gb"),
    ("NVIDIA GeForce RTX 3080", 12288, "rtx-3080-12gb"),
    ("NVIDIA GeForce RTX 3080 Ti", 12288, None),
    ("NVIDIA GeForce RTX 3070", 8192, "rtx-3070"),
    ("NVIDIA GeForce RTX 3060 Ti", 8192, "rtx-3060-ti"),
    ("NVIDIA GeForce RTX 3060", 12288, "rtx-3060-12gb"),
    ("NVIDIA GeForce RTX 3060", 8192, None),  # 8 GB 3060: 128-bit bus, not the 12 GB card
    ("NVIDIA GeForce RTX 2080 Ti", 11264, "rtx-2080-ti"),
    ("GeForce RTX 2080 Ti", 11019, "rtx-2080-ti"),  # drivers before 2021 had no "NVIDIA"
    ("NVIDIA GeForce RTX 5090", 32607, "rtx-5090"),
    ("NVIDIA GeForce RTX 5080", 16303, "rtx-5080"),
    ("NVIDIA GeForce RTX 5070 Ti", 16303, "rtx-5070-ti"),
    # NVIDIA workstation
    ("Quadro RTX 8000", 48601, "quadro-rtx-8000"),
    ("NVIDIA RTX A6000", 49140, "rtx-a6000"),
    ("NVIDIA RTX A5000", 24564, "rtx-a5000"),
    ("NVIDIA RTX A4000", 16376, "rtx-a4000"),
    ("NVIDIA RTX 6000 Ada Generation", 49140, "rtx-6000-ada"),
    ("NVIDIA RTX 4000 Ada Generation", 20475, "rtx-4000-ada"),
    ("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", 97887, "rtx-pro-6000-blackwell"),
    # NVIDIA datacenter
    ("Tesla T4", 15360, "t4"),
    ("Tesla V100-SXM2-16GB", 16160, "v100-sxm2-16gb"),
    ("Tesla V100-SXM2-32GB", 32768, "v100-sxm2-32gb"),
    ("Tesla V100-PCIE-16GB", 16160, None),  # PCIe V100: other clocks and power, no entry
    ("NVIDIA A10G", 23028, "a10g"),
    ("NVIDIA A10", 23028, "a10"),
    ("NVIDIA L4", 23034, "l4"),
    ("NVIDIA L40S", 46068, "l40s"),
    ("NVIDIA A40", 46068, "a40"),
    ("NVIDIA A100-SXM4-80GB", 81920, "a100-sxm-80gb"),
    ("NVIDIA A100-SXM4-40GB", 40960, "a100-sxm-40gb"),
    ("NVIDIA A100-PCIE-40GB", 40960, "a100-pcie-40gb"),
    ("NVIDIA A100 80GB PCIe", 81920, "a100-pcie-80gb"),
    ("NVIDIA H100 80GB HBM3", 81559, "h100-sxm"),
    ("NVIDIA H100 PCIe", 81559, "h100-pcie"),
    ("NVIDIA H100 NVL", 95830, "h100-nvl"),
    ("NVIDIA H200", 143771, "h200-sxm"),
    ("NVIDIA B200", 183359, "b200"),
    ("NVIDIA GH200 480GB", 97871, None),
    # AMD
    ("AMD Radeon RX 7900 XTX", 24560, "rx-7900-xtx"),
    ("Radeon RX 7900 XTX", 24560, "rx-7900-xtx"),  # older ROCm drops "AMD"
    ("AMD Radeon RX 7900 XT", 20464, None),
    ("AMD Instinct MI300X", 196592, "mi300x"),
    ("AMD Instinct MI210", 65520, "mi210"),
    ("AMD Radeon PRO W7900", 49136, "radeon-pro-w7900"),
    # Apple: unified memory depends on the configuration bought, so only the name counts
    ("Apple M2 Max", 32768, "m2-max"),
    ("Apple M1 Max", 65536, "m1-max"),
    ("Apple M3 Max", 36864, "m3-max"),
    ("Apple M2 Ultra", 196608, "m2-ultra"),
    ("Apple M2 Pro", 16384, None),
    # Intel
    ("Intel(R) Arc(TM) A770 Graphics", 16256, "arc-a770-16gb"),
    ("Intel(R) Arc(TM) A770 Graphics", 7956, None),  # the 8 GB A770
    ("Intel(R) Arc(TM) A770 Graphics", None, "arc-a770-16gb"),  # i915 sysfs: no VRAM figure
    ("Intel(R) UHD Graphics 770", None, None),
    ("GAUDI2", 98304, "gaudi-2"),
    # ambiguity and spelling
    ("NVIDIA GeForce RTX 3080", None, None),  # 10 or 12 GB? don't guess
    ("nvidia geforce rtx 4090", 24564, "rtx-4090"),
    ("", 24564, None),
]


@pytest.fixture(scope="module")
def catalog():
    return load_gpus()


def test_the_table_has_at_least_40_real_device_names():
    assert len({name for name, _, _ in TABLE if name}) >= 40


@pytest.mark.parametrize(("name", "memory_mib", "expected"), TABLE)
def test_driver_name_matches_catalog_entry(catalog, name, memory_mib, expected):
    memory = None if memory_mib is None else memory_mib * MIB
    assert match_gpu(name, memory, catalog) == expected


def test_every_catalog_alias_matches_its_own_entry_at_labelled_memory(catalog):
    for spec in catalog.values():
        for alias in spec.aliases:
            got = match_gpu(alias, int(spec.memory_gib * 1024**3), catalog)
            assert got == spec.id, (alias, got)


def test_normalisation_drops_trademarks_and_vendor_words_only():
    assert normalize_name("Intel(R) Arc(TM) A770 Graphics") == "arc a770"
    assert normalize_name("Tesla T4") == normalize_name("NVIDIA T4") == "t4"
    assert normalize_name("NVIDIA A100-SXM4-80GB") == "a100-sxm4-80gb"


def test_unmatched_card_keeps_the_driver_memory(catalog):
    gpu = GpuInfo(index=0, name="NVIDIA GeForce RTX 3060", vendor="nvidia", backend="nvml",
                  memory_total_bytes=8192 * MIB)
    matched = with_catalog_match(gpu, catalog)
    assert matched.catalog_id is None
    assert matched.memory_total_bytes == 8192 * MIB
