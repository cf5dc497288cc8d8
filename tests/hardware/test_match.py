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
    ("NVIDIA GeForce RTX 4090 Laptop GPU", 16376, "rtx-4090-laptop"),  # AD103, not AD102
    ("NVIDIA GeForce RTX 4080 SUPER", 16376, "rtx-4080-super"),
    ("NVIDIA GeForce RTX 4080", 16376, "rtx-4080"),
    ("NVIDIA GeForce RTX 4070 Ti SUPER", 16376, "rtx-4070-ti-super"),
    ("NVIDIA GeForce RTX 4070", 12282, "rtx-4070"),
    ("NVIDIA GeForce RTX 4060 Ti", 16380, "rtx-4060-ti-16gb"),
    ("NVIDIA GeForce RTX 4060 Ti", 8188, "rtx-4060-ti-8gb"),  # same name, told by memory
    ("NVIDIA GeForce RTX 3090", 24576, "rtx-3090"),
    ("NVIDIA GeForce RTX 3090 Ti", 24564, "rtx-3090-ti"),
    ("NVIDIA GeForce RTX 3080", 10240, "rtx-3080-10gb"),
    ("NVIDIA GeForce RTX 3080", 12288, "rtx-3080-12gb"),
    ("NVIDIA GeForce RTX 3080 Ti", 12288, "rtx-3080-ti"),
    ("NVIDIA GeForce RTX 3070", 8192, "rtx-3070"),
    ("NVIDIA GeForce RTX 3060 Ti", 8192, "rtx-3060-ti"),
    ("NVIDIA GeForce RTX 3060", 12288, "rtx-3060-12gb"),
    ("NVIDIA GeForce RTX 3060", 8192, "rtx-3060-8gb"),  # 128-bit bus, not the 12 GB card
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
    ("Tesla V100-PCIE-16GB", 16160, "v100-pcie-16gb"),  # PCIe V100: other clocks and power
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
    ("NVIDIA GH200 480GB", 97871, "gh200"),  # "480GB" counts Grace's LPDDR5X too
    # AMD
    ("AMD Radeon RX 7900 XTX", 24560, "rx-7900-xtx"),
    ("Radeon RX 7900 XTX", 24560, "rx-7900-xtx"),  # older ROCm drops "AMD"
    ("AMD Radeon RX 7900 XT", 20464, "rx-7900-xt"),
    ("AMD Instinct MI300X", 196592, "mi300x"),
    ("AMD Instinct MI210", 65520, "mi210"),
    ("AMD Radeon PRO W7900", 49136, "radeon-pro-w7900"),
    # Apple: unified memory depends on the configuration bought, so only the name counts
    ("Apple M2 Max", 32768, "m2-max"),
    ("Apple M1 Max", 65536, "m1-max"),
    ("Apple M3 Max", 36864, "m3-max"),
    ("Apple M2 Ultra", 196608, "m2-ultra"),
    ("Apple M2 Pro", 16384, "m2-pro"),  # no core count: the fullest variant (19 cores)
    # Intel
    ("Intel(R) Arc(TM) A770 Graphics", 16256, "arc-a770-16gb"),
    ("Intel(R) Arc(TM) A770 Graphics", 7956, "arc-a770-8gb"),  # same name, told by memory
    ("Intel(R) Arc(TM) A770 Graphics", None, None),  # i915 sysfs: no VRAM figure: 8 or 16 GB?
    ("Intel(R) UHD Graphics 770", None, None),
    ("GAUDI2", 98304, "gaudi-2"),
    # -- the cards people own or rent today (issue: every card a hobbyist meets) --
    ("Tesla P40", 24451, "p40"),
    ("Tesla P100-PCIE-16GB", 16280, "p100-pcie-16gb"),
    ("Tesla V100-PCIE-32GB", 32510, "v100-pcie-32gb"),
    ("NVIDIA GeForce GTX 1080 Ti", 11264, "gtx-1080-ti"),
    ("GeForce GTX 1080 Ti", 11178, "gtx-1080-ti"),
    ("NVIDIA GeForce GTX 1080", 8192, "gtx-1080"),
    ("NVIDIA GeForce GTX 1070", 8192, "gtx-1070"),
    ("NVIDIA TITAN Xp", 12288, "titan-xp"),
    ("NVIDIA TITAN V", 12288, "titan-v"),
    ("NVIDIA TITAN RTX", 24576, "titan-rtx"),
    ("NVIDIA GeForce RTX 2060", 12288, "rtx-2060-12gb"),
    ("NVIDIA GeForce RTX 2060", 6144, "rtx-2060"),  # the 6 GB card, since the 4 GiB floor
    ("NVIDIA GeForce RTX 2060 SUPER", 8192, "rtx-2060-super"),
    ("NVIDIA GeForce RTX 2070", 8192, "rtx-2070"),
    ("NVIDIA GeForce RTX 2070 SUPER", 8192, "rtx-2070-super"),
    ("NVIDIA GeForce RTX 2080", 8192, "rtx-2080"),
    ("NVIDIA GeForce RTX 2080 SUPER", 8192, "rtx-2080-super"),
    ("NVIDIA GeForce RTX 2080 Ti", 22528, "rtx-2080-ti-22gb"),  # China-market 22 GB board
    ("NVIDIA GeForce RTX 3050", 8192, "rtx-3050"),
    ("NVIDIA GeForce RTX 3070 Ti", 8192, "rtx-3070-ti"),
    ("NVIDIA GeForce RTX 4060", 8188, "rtx-4060"),
    ("NVIDIA GeForce RTX 4070 SUPER", 12282, "rtx-4070-super"),
    ("NVIDIA GeForce RTX 4070 Ti", 12282, "rtx-4070-ti"),
    ("NVIDIA GeForce RTX 4090 D", 24564, "rtx-4090-d"),
    ("NVIDIA GeForce RTX 4090", 49140, "rtx-4090-48gb"),  # China-market 48 GB board
    ("NVIDIA GeForce RTX 5060", 8151, "rtx-5060"),
    ("NVIDIA GeForce RTX 5060 Ti", 16311, "rtx-5060-ti-16gb"),
    ("NVIDIA GeForce RTX 5060 Ti", 8151, "rtx-5060-ti-8gb"),
    ("NVIDIA GeForce RTX 5070", 12227, "rtx-5070"),
    ("NVIDIA GeForce RTX 3070 Laptop GPU", 8192, "rtx-3070-laptop"),
    ("NVIDIA GeForce RTX 3080 Laptop GPU", 16384, "rtx-3080-laptop-16gb"),
    ("NVIDIA GeForce RTX 3080 Ti Laptop GPU", 16384, "rtx-3080-ti-laptop"),
    ("NVIDIA GeForce RTX 4060 Laptop GPU", 8188, "rtx-4060-laptop"),
    ("NVIDIA GeForce RTX 4070 Laptop GPU", 8188, "rtx-4070-laptop"),
    ("NVIDIA GeForce RTX 4080 Laptop GPU", 12282, "rtx-4080-laptop"),
    ("NVIDIA GeForce RTX 5090 Laptop GPU", 24463, "rtx-5090-laptop"),
    ("Quadro RTX 6000", 24576, "quadro-rtx-6000"),
    ("NVIDIA RTX A2000 12GB", 12282, "rtx-a2000-12gb"),
    ("NVIDIA RTX A4500", 20470, "rtx-a4500"),
    ("NVIDIA RTX 2000 Ada Generation", 16380, "rtx-2000-ada"),
    ("NVIDIA RTX 4500 Ada Generation", 24570, "rtx-4500-ada"),
    ("NVIDIA RTX PRO 6000 Blackwell Server Edition", 97887, "rtx-pro-6000-blackwell-server"),
    # DGX Spark: NVML reports no memory total (unified; XuehaiPan/nvitop PR 208)
    ("NVIDIA GB10", None, "gb10"),
    ("NVIDIA RTX PRO 4500 Blackwell", 32607, "rtx-pro-4500-blackwell"),
    ("NVIDIA A2", 15356, "a2"),
    ("NVIDIA A16", 15356, "a16"),
    ("NVIDIA A30", 24576, "a30"),
    ("NVIDIA A800-SXM4-80GB", 81920, "a800-sxm-80gb"),
    ("NVIDIA A800 80GB PCIe", 81920, "a800-pcie-80gb"),
    ("NVIDIA H800", 81559, "h800-sxm"),
    ("NVIDIA H20", 97871, "h20"),
    ("NVIDIA L20", 46068, "l20"),
    ("NVIDIA L40", 46068, "l40"),
    ("NVIDIA H200 NVL", 143771, "h200-nvl"),
    ("NVIDIA GH200 144G HBM3e", 146831, "gh200-144gb"),
    ("NVIDIA B100", 183359, "b100"),
    ("NVIDIA B300 SXM6 AC", 268288, "b300"),
    ("NVIDIA GB200", 189471, "gb200"),
    ("AMD Radeon RX 6700 XT", 12272, "rx-6700-xt"),
    ("AMD Radeon RX 6800", 16368, "rx-6800"),
    ("AMD Radeon RX 6800 XT", 16368, "rx-6800-xt"),
    ("AMD Radeon RX 6900 XT", 16368, "rx-6900-xt"),
    ("AMD Radeon RX 6950 XT", 16368, "rx-6950-xt"),
    ("AMD Radeon RX 7600", 8176, "rx-7600"),
    ("AMD Radeon RX 7700 XT", 12272, "rx-7700-xt"),
    ("AMD Radeon RX 7800 XT", 16368, "rx-7800-xt"),
    ("AMD Radeon RX 7900 GRE", 16368, "rx-7900-gre"),
    ("AMD Radeon RX 9060 XT", 16304, "rx-9060-xt-16gb"),
    ("AMD Radeon RX 9070", 16304, "rx-9070"),
    ("AMD Radeon RX 9070 XT", 16304, "rx-9070-xt"),
    ("AMD Instinct MI100", 32752, "mi100"),
    ("AMD Instinct MI250", 131056, "mi250"),
    ("AMD Instinct MI300A", 131072, "mi300a"),
    ("AMD Instinct MI350X", 294896, "mi350x"),
    ("AMD Instinct MI355X", 294896, "mi355x"),
    ("Intel(R) Arc(TM) A580 Graphics", 7956, "arc-a580"),
    ("Intel(R) Arc(TM) A750 Graphics", 7956, "arc-a750"),
    ("Intel(R) Arc(TM) B570 Graphics", 9952, "arc-b570"),
    ("Intel(R) Arc(TM) B580 Graphics", 11873, "arc-b580"),
    ("Apple M1", 16384, "m1"),
    ("Apple M1 Ultra", 131072, "m1-ultra"),
    ("Apple M4 Pro", 49152, "m4-pro"),
    ("Apple M5", 32768, "m5"),
    ("Apple M5 Max", 131072, "m5-max"),
    ("NVIDIA RTX 5000 Ada Generation", 32760, "rtx-5000-ada"),
    ("AMD Instinct MI325X", 262128, "mi325x"),
    ("GAUDI3", 131072, "gaudi-3"),
    # -- GeForce 16, cards with 4-6 GB and more laptop chips (issue 18); names from the NVIDIA
    # driver's supported-GPU list (open-gpu-kernel-modules README, 595.45.04) --
    ("NVIDIA GeForce GTX 1650", 4096, "gtx-1650"),
    ("NVIDIA GeForce GTX 1650 SUPER", 4096, "gtx-1650-super"),
    ("NVIDIA GeForce GTX 1660", 6144, "gtx-1660"),
    ("NVIDIA GeForce GTX 1660 SUPER", 6144, "gtx-1660-super"),
    ("NVIDIA GeForce GTX 1660 Ti", 6144, "gtx-1660-ti"),  # a laptop chip without Max-Q too
    ("GeForce GTX 1660 Ti", 6144, "gtx-1660-ti"),  # drivers before 2021 had no "NVIDIA"
    ("NVIDIA GeForce GTX 1650 with Max-Q Design", 4096, "gtx-1650-laptop"),
    ("NVIDIA GeForce GTX 1650 Ti", 4096, "gtx-1650-ti-laptop"),  # a laptop-only chip
    ("NVIDIA GeForce GTX 1650 Ti with Max-Q Design", 4096, "gtx-1650-ti-laptop"),
    ("NVIDIA GeForce GTX 1660 Ti with Max-Q Design", 6144, "gtx-1660-ti-laptop"),
    ("NVIDIA GeForce RTX 2060 with Max-Q Design", 6144, "rtx-2060-laptop"),
    ("NVIDIA GeForce RTX 3050", 6144, "rtx-3050-6gb"),  # 96-bit GA107, not the 8 GB card
    ("NVIDIA GeForce GTX 1060 6GB", 6144, "gtx-1060-6gb"),
    ("NVIDIA GeForce GTX 1060 3GB", 3072, None),  # below the 4 GiB floor
    ("NVIDIA GeForce GTX 1070 Ti", 8192, "gtx-1070-ti"),
    ("NVIDIA GeForce RTX 3060 Laptop GPU", 6144, "rtx-3060-laptop"),
    ("NVIDIA GeForce RTX 3070 Ti Laptop GPU", 8192, "rtx-3070-ti-laptop"),
    ("NVIDIA GeForce RTX 3080 Laptop GPU", 8192, "rtx-3080-laptop-8gb"),
    ("NVIDIA GeForce RTX 4050 Laptop GPU", 6141, "rtx-4050-laptop"),
    ("NVIDIA GeForce RTX 5070 Laptop GPU", 8151, "rtx-5070-laptop"),
    ("NVIDIA GeForce RTX 5070 Ti Laptop GPU", 12227, "rtx-5070-ti-laptop"),
    ("NVIDIA GeForce RTX 5080 Laptop GPU", 16303, "rtx-5080-laptop"),
    ("Quadro RTX 4000", 8192, "quadro-rtx-4000"),
    ("Quadro RTX 5000", 16384, "quadro-rtx-5000"),
    ("Intel(R) Arc(TM) A380 Graphics", 5956, "arc-a380"),
    # -- entry-level laptop chips, the laptop Quadro RTX 3000, Arc A310, the first Gaudi (issue
    # 18). NVIDIA names from the driver's supported-GPU list (open-gpu-kernel-modules README,
    # 595.45.04); memory as nvidia-smi printed it in users' logs (RTX 3050 Ti Laptop GPU
    # 4096 MiB, RTX 5060 and 5050 Laptop GPU 8151 MiB); Intel's name from its compute
    # runtime's device table (intel/compute-runtime devices_base.inl, 0x56A6); the first
    # Gaudi's name as HLML returns it (HabanaAI/habanalabs-k8s-device-plugin habanalabs.go) --
    ("NVIDIA GeForce RTX 3050 Laptop GPU", 4096, "rtx-3050-laptop"),
    ("NVIDIA GeForce RTX 3050 Ti Laptop GPU", 4096, "rtx-3050-ti-laptop"),
    ("NVIDIA GeForce RTX 3050Ti Laptop GPU", 4096, "rtx-3050-ti-laptop"),  # HP boards
    ("NVIDIA GeForce RTX 5060 Laptop GPU", 8151, "rtx-5060-laptop"),
    ("NVIDIA GeForce RTX 5050 Laptop GPU", 8151, "rtx-5050-laptop"),
    ("Quadro RTX 3000", 6144, "quadro-rtx-3000-laptop"),  # a laptop-only chip
    ("Quadro RTX 3000 with Max-Q Design", 6144, "quadro-rtx-3000-laptop"),
    ("Intel(R) Arc(TM) A310 Graphics", None, "arc-a310"),  # i915 sysfs: one card of the name
    ("HL-205", None, "gaudi-1"),
    # An MI250/MI250X module is two GCDs, which ROCm shows as two devices of half the memory:
    # the catalog's entries are whole modules, so a GCD stays unmatched (a known gap).
    ("AMD Instinct MI250X", 65520, None),
    ("AMD Instinct MI250", 65520, None),
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
    # The 3 GB GTX 1060 is below the catalog's 4 GiB floor: not in the catalog.
    gpu = GpuInfo(index=0, name="NVIDIA GeForce GTX 1060 3GB", vendor="nvidia", backend="nvml",
                  memory_total_bytes=3072 * MIB)
    matched = with_catalog_match(gpu, catalog)
    assert matched.catalog_id is None
    assert matched.memory_total_bytes == 3072 * MIB


def test_every_catalog_gpu_is_in_the_table_of_real_device_names(catalog):
    """Each entry is matched by a driver string of the table, or (Apple variants) by its chip
    name and GPU-core count below."""
    in_table = {expected for _, _, expected in TABLE if expected}
    apple_variants = {g.id for g in catalog.values() if g.vendor == "apple"}
    two_die_modules = {"mi250", "mi250x"}  # seen per GCD; see the table
    assert set(catalog) - apple_variants - two_die_modules <= in_table


@pytest.mark.parametrize(("name", "cores", "expected"), [
    ("Apple M1", 7, "m1-7c"), ("Apple M1", 8, "m1"), ("Apple M1 Pro", 14, "m1-pro-14c"),
    ("Apple M1 Pro", 16, "m1-pro"), ("Apple M1 Max", 24, "m1-max-24c"),
    ("Apple M1 Max", 32, "m1-max"),
    ("Apple M1 Ultra", 48, "m1-ultra-48c"), ("Apple M1 Ultra", 64, "m1-ultra"),
    ("Apple M2", 8, "m2-8c"), ("Apple M2", 10, "m2"), ("Apple M2 Pro", 16, "m2-pro-16c"),
    ("Apple M2 Pro", 19, "m2-pro"), ("Apple M2 Max", 30, "m2-max-30c"),
    ("Apple M2 Max", 38, "m2-max"),
    ("Apple M2 Ultra", 60, "m2-ultra-60c"), ("Apple M2 Ultra", 76, "m2-ultra"),
    ("Apple M3", 8, "m3-8c"), ("Apple M3", 10, "m3"), ("Apple M3 Pro", 14, "m3-pro-14c"),
    ("Apple M3 Pro", 18, "m3-pro"), ("Apple M3 Max", 30, "m3-max-30c"),
    ("Apple M3 Max", 40, "m3-max"),
    ("Apple M3 Ultra", 60, "m3-ultra-60c"), ("Apple M3 Ultra", 80, "m3-ultra"),
    ("Apple M4", 8, "m4-8c"), ("Apple M4", 10, "m4"), ("Apple M4 Pro", 16, "m4-pro-16c"),
    ("Apple M4 Pro", 20, "m4-pro"), ("Apple M4 Max", 32, "m4-max-32c"),
    ("Apple M4 Max", 40, "m4-max"),
    ("Apple M5", 10, "m5"), ("Apple M5 Pro", 20, "m5-pro"), ("Apple M5 Max", 40, "m5-max"),
    ("Apple M3 Max", 36, None),  # no such variant: unmatched, not the nearest
])
def test_apple_variants_are_told_apart_by_gpu_cores(catalog, name, cores, expected):
    # macOS system_profiler: "Chipset Model: Apple M3 Max", "Total Number of Cores: 30".
    assert match_gpu(name, 36 * 1024**3, catalog, gpu_cores=cores) == expected


def test_every_apple_entry_is_reached_by_its_chip_name_and_cores(catalog):
    apple = [g for g in catalog.values() if g.vendor == "apple"]
    assert len(apple) >= 30
    for spec in apple:
        chip = spec.name.split(" (")[0]
        assert match_gpu(chip, None, catalog, gpu_cores=spec.gpu_cores) == spec.id, spec.id


def test_the_apple_backend_passes_its_core_count_to_the_match(catalog):
    gpu = GpuInfo(index=0, name="Apple M4 Max", vendor="apple", backend="apple",
                  memory_total_bytes=36 * 1024**3, gpu_cores=32)
    assert with_catalog_match(gpu, catalog).catalog_id == "m4-max-32c"
