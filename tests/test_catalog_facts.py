"""Datasheet facts we hold, checked against the GPU catalog.

Each fact is a figure as a vendor document prints it (memory in GB, bandwidth in GB/s, DENSE
BF16 or FP16 tensor TFLOPS, FP32 vector TFLOPS; where a datasheet prints only sparse figures
the fact is that figure halved, said in the comment), written here from the document
independently of the catalog's own derivations (SM counts x clocks). The catalog passes when
at least 95% of the facts agree within the tolerance of their kind: memory 3%, bandwidth 5%,
tensor and FP32 rates 5%. Disagreements are listed so the catalog or the fact gets a look.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest

from gpuadvisor.catalog import load_gpus

TOLERANCE = {"memory_gb": 0.03, "bandwidth_gb_s": 0.05, "bf16_tflops": 0.05,
             "fp16_tflops": 0.05, "fp32_tflops": 0.05}
FIELD = {"memory_gb": "memory_gib", "bandwidth_gb_s": "memory_bandwidth_gb_s",
         "bf16_tflops": "bf16_tensor_tflops", "fp16_tflops": "fp16_tensor_tflops",
         "fp32_tflops": "fp32_tflops"}

H100 = "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet"
H200 = "https://www.nvidia.com/en-us/data-center/h200/"
HGX = "https://www.nvidia.com/en-us/data-center/hgx/"
A100 = ("https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
        "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf")
L40S = "https://resources.nvidia.com/en-us-l40s/l40s-datasheet-28413"
L40 = "https://images.nvidia.com/content/Solutions/data-center/vgpu-L40-datasheet.pdf"
L4 = "https://resources.nvidia.com/en-us-data-center-overview/l4-gpu-datasheet"
T4 = "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/tesla-t4/t4-tensor-core-datasheet-951643.pdf"
A10 = "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a10/pdf/a10-datasheet.pdf"
A40 = "https://images.nvidia.com/content/Solutions/data-center/a40/nvidia-a40-datasheet.pdf"
A30 = ("https://www.nvidia.com/content/dam/en-zz/Solutions/data-center/products/a30-gpu/pdf/"
       "a30-datasheet.pdf")
A2 = "https://www.nvidia.com/content/dam/en-zz/Solutions/data-center/a2/pdf/a2-datasheet.pdf"
P40 = ("https://images.nvidia.com/content/pdf/tesla/"
       "184427-Tesla-P40-Datasheet-NV-Final-Letter-Web.pdf")
P100 = "https://images.nvidia.com/content/tesla/pdf/nvidia-tesla-p100-PCIe-datasheet.pdf"
V100 = ("https://images.nvidia.com/content/technologies/volta/pdf/"
        "tesla-volta-v100-datasheet-letter-fnl-web.pdf")
A6000 = ("https://www.nvidia.com/content/dam/en-zz/Solutions/design-visualization/"
         "quadro-product-literature/proviz-print-nvidia-rtx-a6000-datasheet-us-nvidia-1454980-r9-web.pdf")
ADA6000 = "https://www.nvidia.com/en-us/design-visualization/rtx-6000/"
ADA_WP = ("https://images.nvidia.com/aem-dam/Solutions/geforce/ada/"
          "nvidia-ada-gpu-architecture.pdf")
GA102_WP = ("https://www.nvidia.com/content/PDF/"
            "nvidia-ampere-ga-102-gpu-architecture-whitepaper-v2.pdf")
RTXBW_WP = ("https://images.nvidia.com/aem-dam/Solutions/geforce/blackwell/"
            "nvidia-rtx-blackwell-gpu-architecture.pdf")
TURING_WP = ("https://images.nvidia.com/aem-dam/en-zz/Solutions/design-visualization/"
             "technologies/turing-architecture/NVIDIA-Turing-Architecture-Whitepaper.pdf")
MI300X = "https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html"
MI325X = "https://www.amd.com/en/products/accelerators/instinct/mi300/mi325x.html"
MI355X = "https://www.amd.com/en/products/accelerators/instinct/mi350/mi355x.html"
MI250X = "https://www.amd.com/en/products/accelerators/instinct/mi200/mi250x.html"
MI210 = "https://www.amd.com/en/products/accelerators/instinct/mi200/mi210.html"
MI100 = "https://www.amd.com/en/products/accelerators/instinct/mi100.html"
RX7900 = "https://www.amd.com/en/products/graphics/desktops/radeon/7000-series/amd-radeon-rx-7900xtx.html"
RX9070 = "https://www.amd.com/en/products/graphics/desktops/radeon/9000-series/amd-radeon-rx-9070xt.html"
GAUDI3 = ("https://www.intel.com/content/www/us/en/content-details/817486/"
          "intel-gaudi-3-ai-accelerator-white-paper.html")
B580 = ("https://www.intel.com/content/www/us/en/products/sku/241598/"
        "intel-arc-b580-graphics/specifications.html")
H20 = "https://willitrunai.com/es/gpus/h20-96gb"
APPLE_M4 = "https://www.apple.com/newsroom/2024/10/apple-introduces-m4-pro-and-m4-max/"
APPLE_M2U = "https://www.apple.com/newsroom/2023/06/apple-introduces-m2-ultra/"
APPLE_M5 = ("https://www.apple.com/newsroom/2025/10/"
            "apple-unleashes-m5-the-next-big-leap-in-ai-performance-for-apple-silicon/")
APPLE_M5PRO = "https://www.lowyat.net/2026/385170/apple-m5-pro-m5-max"
APPLE_M1 = ("https://www.apple.com/newsroom/2021/10/"
            "introducing-m1-pro-and-m1-max-the-most-powerful-chips-apple-has-ever-built/")
# GeForce 16, 6 GB cards and laptop chips (issue 18): reviews and spec tables that print
# NVIDIA's figures, the NVIDIA datasheets of the Quadro RTX cards, Intel's product page.
TPU_1660_REVIEW = "https://www.techpowerup.com/review/evga-gtx-1660-xc-ultra/2.html"
SWECLOCKERS_1660 = "https://m.sweclockers.com/artikel/27180/2"
GURU3D_1660S = ("https://www.guru3d.com/review/gigabyte-gtx-1660-super-gaming-oc-review/"
                "page-5/")
HWLUXX_GTX16_LAPTOP = ("https://hardwareluxx.de/index.php/news/hardware/grafikkarten/"
                       "49329-notebook-gpus-technische-daten-der-geforce-gtx-1650-und-gtx-1660-ti"
                       ".html")
GTX1650 = "https://informatyk-szczecin.com/pt/placa-grafica-geforce-gtx-1650"
TC_1660TI_LAPTOP = ("https://technical.city/en/video/"
                    "GeForce-GTX-1660-Ti-mobile-vs-GeForce-RTX-2050-Max-Q")
TPU_3050_6GB = "https://www.techpowerup.com/gpu-specs/geforce-rtx-3050-6-gb.c4188"
RTX4050_LAPTOP = "https://data-check.eu/en/nvidia-geforce-rtx-4050-laptop-gpu/"
RTX50_LAPTOPS = ("https://www.neowin.net/news/"
                 "rtx-50-powered-laptops-promise-double-the-performance-and-40-better-battery-life/")
RTX5080_LAPTOP_150W = ("https://hmc-tech.com/gpu/"
                       "nvidia-geforce-rtx-5080-laptop-150w-vs-nvidia-geforce-rtx-4050-laptop-100w")
QRTX4000 = ("https://www.nvidia.com/content/dam/en-zz/Solutions/design-visualization/"
            "quadro-product-literature/quadro-rtx-4000-datasheet.pdf")
QRTX5000 = ("https://www.nvidia.com/content/dam/en-zz/Solutions/design-visualization/"
            "quadro-product-literature/quadro-rtx-5000-data-sheet-us-nvidia-704120-r4-web.pdf")
A380 = ("https://www.intel.com/content/www/us/en/products/sku/227959/"
        "intel-arc-a380-graphics/specifications.html")
A580 = ("https://www.intel.com/content/www/us/en/products/sku/227961/"
        "intel-arc-a580-graphics/specifications.html")
A310 = ("https://www.intel.com/content/www/us/en/products/sku/227958/"
        "intel-arc-a310-graphics/specifications.html")
A770_8GB = ("https://www.intel.com/content/www/us/en/products/sku/227955/"
            "intel-arc-a770-graphics-8gb/specifications.html")
TPU_3050_LAPTOP = "https://www.techpowerup.com/gpu-specs/geforce-rtx-3050-mobile.c3788"
RTX5060_LAPTOP = ("https://www.purepc.pl/"
                  "nvidia-geforce-rtx-5060-laptop-gpu-specyfikacja-ukladu-graficznego-blackwell-notebook")
RTX5050_LAPTOP = ("https://www.techspot.com/news/"
                  "108431-nvidia-announces-rtx-5050-laptop-gpu-desktop-version.html")
QRTX3000_LAPTOP = ("https://sysrqmts.com/gpus/compare/"
                   "ati-firegl-9700-x1-128-vs-nvidia-quadro-rtx-3000-max-q")
GAUDI_GENERATIONS = "https://www.sgpjbg.com/baogao/465025.html"  # Intel, Hot Chips 2024


class Fact(NamedTuple):
    gpu_id: str
    kind: str  # a key of TOLERANCE
    value: float
    source: str


FACTS = [
    # NVIDIA Hopper / Blackwell (H100 datasheet: SXM BF16 1979 sparse -> 989.5 dense; PCIe 1513
    # -> 756.5; H100 NVL 1671 -> 835.5)
    Fact("h100-sxm", "memory_gb", 80, H100),
    Fact("h100-sxm", "bandwidth_gb_s", 3350, H100),
    Fact("h100-sxm", "bf16_tflops", 989.5, H100),
    Fact("h100-pcie", "bandwidth_gb_s", 2000, H100),
    Fact("h100-pcie", "bf16_tflops", 756.5, H100),
    Fact("h100-nvl", "memory_gb", 94, H100),
    Fact("h100-nvl", "bandwidth_gb_s", 3900, H100),
    Fact("h100-nvl", "bf16_tflops", 835.5, H100),
    Fact("h200-sxm", "memory_gb", 141, H200),
    Fact("h200-sxm", "bandwidth_gb_s", 4800, H200),
    Fact("h200-sxm", "bf16_tflops", 989.5, H200),
    Fact("h200-nvl", "memory_gb", 141, H200),
    Fact("h200-nvl", "bf16_tflops", 835.5, H200),  # 1671 sparse
    Fact("b200", "memory_gb", 180, HGX),  # HGX B200: 1.44 TB over 8 GPUs
    Fact("b200", "bandwidth_gb_s", 8000, HGX),
    Fact("b200", "bf16_tflops", 2250, HGX),  # 4.5 PF sparse
    Fact("b300", "memory_gb", 288, HGX),
    Fact("b300", "bf16_tflops", 2250, HGX),
    Fact("h20", "memory_gb", 96, H20),
    Fact("h20", "bandwidth_gb_s", 4000, H20),
    Fact("h20", "fp16_tflops", 148, H20),
    # NVIDIA Ampere data center (A100 datasheet: BF16 312 dense, 624 sparse)
    Fact("a100-sxm-80gb", "memory_gb", 80, A100),
    Fact("a100-sxm-80gb", "bandwidth_gb_s", 2039, A100),
    Fact("a100-sxm-80gb", "bf16_tflops", 312, A100),
    Fact("a100-pcie-80gb", "bandwidth_gb_s", 1935, A100),
    Fact("a100-pcie-40gb", "bandwidth_gb_s", 1555, A100),
    Fact("a30", "memory_gb", 24, A30),
    Fact("a30", "bandwidth_gb_s", 933, A30),
    Fact("a30", "bf16_tflops", 165, A30),
    Fact("a10", "bandwidth_gb_s", 600, A10),
    Fact("a10", "bf16_tflops", 125, A10),
    Fact("a40", "bandwidth_gb_s", 696, A40),
    Fact("a40", "bf16_tflops", 149.7, A40),
    Fact("a2", "memory_gb", 16, A2),
    Fact("a2", "bandwidth_gb_s", 200, A2),
    Fact("a2", "fp16_tflops", 18, A2),
    # NVIDIA Ada data center (L40S: BF16 362.05 dense / 733 sparse; L40: 181.05 / 362.1;
    # L4: 121 / 242)
    Fact("l40s", "memory_gb", 48, L40S),
    Fact("l40s", "bandwidth_gb_s", 864, L40S),
    Fact("l40s", "bf16_tflops", 362.05, L40S),
    Fact("l40", "bandwidth_gb_s", 864, L40),
    Fact("l40", "bf16_tflops", 181.05, L40),
    Fact("l4", "memory_gb", 24, L4),
    Fact("l4", "bandwidth_gb_s", 300, L4),
    Fact("l4", "bf16_tflops", 121, L4),
    # Turing, Volta, Pascal data center
    Fact("t4", "memory_gb", 16, T4),
    Fact("t4", "bandwidth_gb_s", 320, T4),
    Fact("t4", "fp16_tflops", 65, T4),
    Fact("v100-pcie-32gb", "bandwidth_gb_s", 900, V100),
    Fact("v100-pcie-16gb", "fp16_tflops", 112, V100),
    Fact("v100-sxm2-32gb", "fp16_tflops", 125, V100),
    Fact("p40", "memory_gb", 24, P40),
    Fact("p40", "bandwidth_gb_s", 346, P40),
    Fact("p100-pcie-16gb", "bandwidth_gb_s", 732, P100),
    Fact("p100-pcie-16gb", "fp16_tflops", 18.7, P100),
    # NVIDIA workstation
    Fact("rtx-a6000", "bandwidth_gb_s", 768, A6000),
    Fact("rtx-a6000", "bf16_tflops", 154.8, A6000),  # 309.7 sparse
    Fact("rtx-6000-ada", "memory_gb", 48, ADA6000),
    Fact("rtx-6000-ada", "bandwidth_gb_s", 960, ADA6000),
    # GeForce, FP16 with FP32 accumulate from the architecture whitepapers' appendix tables
    Fact("rtx-4090", "bandwidth_gb_s", 1008, ADA_WP),
    Fact("rtx-4090", "fp16_tflops", 165.2, ADA_WP),
    Fact("rtx-4080", "bandwidth_gb_s", 716.8, ADA_WP),
    Fact("rtx-4080", "fp16_tflops", 97.5, ADA_WP),
    Fact("rtx-3090", "bandwidth_gb_s", 936, GA102_WP),
    Fact("rtx-3090", "fp16_tflops", 71, GA102_WP),
    Fact("rtx-3080-10gb", "bandwidth_gb_s", 760, GA102_WP),
    Fact("rtx-3080-10gb", "fp16_tflops", 59.5, GA102_WP),
    Fact("rtx-3070", "fp16_tflops", 40.6, GA102_WP),
    Fact("rtx-5090", "memory_gb", 32, RTXBW_WP),
    Fact("rtx-5090", "bandwidth_gb_s", 1792, RTXBW_WP),
    Fact("rtx-5090", "fp16_tflops", 209.5, RTXBW_WP),
    Fact("rtx-5080", "bandwidth_gb_s", 960, RTXBW_WP),
    Fact("rtx-2080-ti", "bandwidth_gb_s", 616, TURING_WP),
    Fact("rtx-2080-ti", "fp16_tflops", 53.8, TURING_WP),
    # AMD Instinct and Radeon (AMD prints dense matrix figures; MI355X FP16 5.0 PF sparse)
    Fact("mi300x", "memory_gb", 192, MI300X),
    Fact("mi300x", "bandwidth_gb_s", 5300, MI300X),
    Fact("mi300x", "bf16_tflops", 1307.4, MI300X),
    Fact("mi325x", "memory_gb", 256, MI325X),
    Fact("mi325x", "bandwidth_gb_s", 6000, MI325X),
    Fact("mi355x", "memory_gb", 288, MI355X),
    Fact("mi355x", "bandwidth_gb_s", 8000, MI355X),
    Fact("mi355x", "bf16_tflops", 2516.6, MI355X),
    Fact("mi250x", "memory_gb", 128, MI250X),
    Fact("mi250x", "bandwidth_gb_s", 3276.8, MI250X),
    Fact("mi250x", "bf16_tflops", 383, MI250X),
    Fact("mi210", "bandwidth_gb_s", 1638.4, MI210),
    Fact("mi210", "bf16_tflops", 181, MI210),
    Fact("mi100", "bandwidth_gb_s", 1228.8, MI100),
    Fact("mi100", "fp16_tflops", 184.6, MI100),
    Fact("rx-7900-xtx", "bandwidth_gb_s", 960, RX7900),
    Fact("rx-7900-xtx", "fp16_tflops", 122.8, RX7900),
    Fact("rx-9070-xt", "bandwidth_gb_s", 640, RX9070),
    Fact("rx-9070-xt", "fp16_tflops", 194.7, RX9070),  # 389 with sparsity
    # Intel
    Fact("gaudi-3", "memory_gb", 128, GAUDI3),
    Fact("gaudi-3", "bandwidth_gb_s", 3700, GAUDI3),
    Fact("gaudi-3", "bf16_tflops", 1835, GAUDI3),
    Fact("arc-b580", "memory_gb", 12, B580),
    Fact("arc-b580", "bandwidth_gb_s", 456, B580),
    # Apple (unified-memory bandwidth as Apple announces it)
    Fact("m1-max", "bandwidth_gb_s", 400, APPLE_M1),
    Fact("m1-pro", "bandwidth_gb_s", 200, APPLE_M1),
    Fact("m2-ultra", "bandwidth_gb_s", 800, APPLE_M2U),
    Fact("m4-max", "bandwidth_gb_s", 546, APPLE_M4),
    Fact("m4-pro", "bandwidth_gb_s", 273, APPLE_M4),
    Fact("m5", "bandwidth_gb_s", 153, APPLE_M5),
    Fact("m5-pro", "bandwidth_gb_s", 307, APPLE_M5PRO),
    Fact("m5-max", "bandwidth_gb_s", 614, APPLE_M5PRO),
    # GeForce 16 (no tensor cores: FP32 is the vector rate the reviews print)
    Fact("gtx-1660", "bandwidth_gb_s", 192, TPU_1660_REVIEW),
    Fact("gtx-1660-ti", "bandwidth_gb_s", 288, TPU_1660_REVIEW),
    Fact("gtx-1660-ti", "memory_gb", 6, SWECLOCKERS_1660),
    Fact("gtx-1660-ti", "fp32_tflops", 5.437, SWECLOCKERS_1660),
    Fact("gtx-1660", "fp32_tflops", 5.027, SWECLOCKERS_1660),
    Fact("rtx-2060", "bandwidth_gb_s", 336, SWECLOCKERS_1660),
    Fact("rtx-2060", "memory_gb", 6, SWECLOCKERS_1660),
    Fact("rtx-2060", "fp32_tflops", 6.451, SWECLOCKERS_1660),
    # GTX 1660 SUPER: 14 Gbps on 192 bits, 1408 cores at 1785 MHz -> 336 GB/s, 5.03 TFLOPS
    Fact("gtx-1660-super", "bandwidth_gb_s", 336, GURU3D_1660S),
    Fact("gtx-1650", "memory_gb", 4, GTX1650),
    Fact("gtx-1650", "bandwidth_gb_s", 128, GTX1650),
    Fact("gtx-1650", "fp32_tflops", 2.984, GTX1650),
    Fact("gtx-1660-ti-laptop", "bandwidth_gb_s", 288, HWLUXX_GTX16_LAPTOP),
    Fact("gtx-1660-ti-laptop", "fp32_tflops", 4.884, TC_1660TI_LAPTOP),  # 1590 MHz boost
    Fact("rtx-3050-6gb", "bandwidth_gb_s", 168, TPU_3050_6GB),
    Fact("rtx-3050-6gb", "fp32_tflops", 6.774, TPU_3050_6GB),
    # Laptop chips at their maximum-TGP boost clock
    Fact("rtx-4050-laptop", "memory_gb", 6, RTX4050_LAPTOP),
    Fact("rtx-4050-laptop", "bandwidth_gb_s", 192, RTX4050_LAPTOP),  # 16 Gbps x 96-bit
    Fact("rtx-5080-laptop", "memory_gb", 16, RTX50_LAPTOPS),
    Fact("rtx-5070-ti-laptop", "memory_gb", 12, RTX50_LAPTOPS),
    Fact("rtx-5070-laptop", "memory_gb", 8, RTX50_LAPTOPS),
    Fact("rtx-5080-laptop", "fp32_tflops", 35.13, RTX5080_LAPTOP_150W),  # 2287 MHz at 150 W
    # Quadro RTX datasheets (tensor figures are dense on Turing)
    Fact("quadro-rtx-4000", "bandwidth_gb_s", 416, QRTX4000),
    Fact("quadro-rtx-4000", "fp32_tflops", 7.1, QRTX4000),
    Fact("quadro-rtx-5000", "fp16_tflops", 89.2, QRTX5000),
    Fact("quadro-rtx-5000", "fp32_tflops", 11.2, QRTX5000),
    Fact("arc-a380", "bandwidth_gb_s", 186, A380),
    # Entry-level cards of issue 18 (laptop chips at their maximum-TGP boost clock)
    Fact("arc-a580", "memory_gb", 8, A580),
    Fact("arc-a580", "bandwidth_gb_s", 512, A580),
    Fact("arc-a310", "memory_gb", 4, A310),
    Fact("arc-a310", "bandwidth_gb_s", 124, A310),
    Fact("arc-a770-8gb", "memory_gb", 8, A770_8GB),
    Fact("rtx-3050-laptop", "memory_gb", 4, TPU_3050_LAPTOP),
    Fact("rtx-3050-laptop", "bandwidth_gb_s", 192, TPU_3050_LAPTOP),
    Fact("rtx-5060-laptop", "memory_gb", 8, RTX5060_LAPTOP),
    Fact("rtx-5060-laptop", "bandwidth_gb_s", 384, RTX5060_LAPTOP),
    Fact("rtx-5050-laptop", "memory_gb", 8, RTX5050_LAPTOP),
    Fact("rtx-5050-laptop", "bandwidth_gb_s", 384, RTX5050_LAPTOP),
    Fact("quadro-rtx-3000-laptop", "memory_gb", 6, QRTX3000_LAPTOP),
    Fact("quadro-rtx-3000-laptop", "bandwidth_gb_s", 288, QRTX3000_LAPTOP),
    Fact("gaudi-1", "memory_gb", 32, GAUDI_GENERATIONS),
    Fact("gaudi-1", "bandwidth_gb_s", 900, GAUDI_GENERATIONS),
    Fact("gaudi-1", "bf16_tflops", 60, GAUDI_GENERATIONS),
]

CATALOG = load_gpus()


def _agrees(fact: Fact) -> tuple[bool, float | None]:
    held = getattr(CATALOG[fact.gpu_id], FIELD[fact.kind])
    if held is None:
        return False, None
    return abs(held - fact.value) <= TOLERANCE[fact.kind] * fact.value, held


def test_we_hold_at_least_sixty_facts_each_with_a_source():
    assert len(FACTS) >= 60
    assert len({(f.gpu_id, f.kind) for f in FACTS}) == len(FACTS)
    assert all(f.source.startswith("https://") for f in FACTS)
    assert {f.kind for f in FACTS} == set(TOLERANCE)


@pytest.mark.parametrize("fact", FACTS, ids=[f"{f.gpu_id}-{f.kind}" for f in FACTS])
def test_every_fact_names_a_catalog_gpu(fact):
    assert fact.gpu_id in CATALOG


def test_at_least_95_percent_of_the_datasheet_facts_agree_with_the_catalog():
    results = [(fact, *_agrees(fact)) for fact in FACTS]
    wrong = [f"{f.gpu_id} {f.kind}: datasheet {f.value:g}, catalog {held}"
             for f, ok, held in results if not ok]
    share = 1 - len(wrong) / len(FACTS)
    assert share >= 0.95, "\n".join(wrong)
