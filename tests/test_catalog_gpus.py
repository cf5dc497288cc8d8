"""The shipped GPU catalog, the GpuSpec record, and the catalog schema's error messages."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

import pytest

from gpuadvisor.catalog import (
    CatalogError,
    catalog_dir,
    kind_of,
    load_gpus,
    validate_file,
)

SHIPPED = load_gpus()
GEFORCE = [g for g in SHIPPED.values() if g.vendor == "nvidia" and g.segment == "consumer"]

VALID_ENTRY = """\
[my-card]
name = "Example Card"
vendor = "nvidia"
segment = "consumer"
architecture = "Ada Lovelace"
ecosystem = "cuda"
launch_year = 2023
memory_gib = 16
memory_type = "GDDR6X"
memory_bandwidth_gb_s = 700
fp32_tflops = 40
fp16_tensor_tflops = 80
tdp_w = 300
pcie_gen = 4
pcie_lanes = 16
p2p_link = "none"
compute_capability = "8.9"
source = "Example datasheet (https://example.invalid)"
"""


def write_catalog(tmp_path: Path, text: str, name: str = "gpus.toml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def with_line(entry: str, old: str, new: str) -> str:
    assert old in entry, old
    return entry.replace(old, new)


# -- the shipped catalog ----------------------------------------------------------------------


def test_shipped_catalog_loads_with_at_least_45_gpus():
    assert len(SHIPPED) >= 45
    assert validate_file(catalog_dir() / "gpus.toml") == []


def test_shipped_catalog_covers_every_vendor_segment_and_ecosystem():
    assert {g.vendor for g in SHIPPED.values()} == {"nvidia", "amd", "apple", "intel"}
    assert {g.segment for g in SHIPPED.values()} == {"consumer", "workstation", "datacenter", "soc"}
    assert {g.ecosystem for g in SHIPPED.values()} == {"cuda", "rocm", "mps", "xpu", "gaudi"}


@pytest.mark.parametrize(
    "gpu_id",
    [
        "rtx-3060-12gb", "rtx-3060-ti", "rtx-3070", "rtx-3080-10gb", "rtx-3080-12gb",
        "rtx-3090", "rtx-3090-ti", "rtx-4060-ti-16gb", "rtx-4070", "rtx-4070-ti-super",
        "rtx-4080", "rtx-4080-super", "rtx-4090", "rtx-5070-ti", "rtx-5080", "rtx-5090",
        "rtx-2080-ti", "rtx-a4000", "rtx-a5000", "rtx-a6000", "rtx-4000-ada", "rtx-5000-ada",
        "rtx-6000-ada", "rtx-pro-6000-blackwell", "quadro-rtx-8000", "t4", "v100-sxm2-16gb",
        "v100-sxm2-32gb", "a10", "a10g", "l4", "l40s", "a40", "a100-pcie-40gb",
        "a100-sxm-40gb", "a100-pcie-80gb", "a100-sxm-80gb", "h100-pcie", "h100-sxm",
        "h100-nvl", "h200-sxm", "b200", "mi210", "mi250x", "mi300x", "mi325x", "rx-7900-xtx",
        "radeon-pro-w7900", "m1-max", "m2-max", "m2-ultra", "m3-max", "m4-max",
        "arc-a770-16gb", "gaudi-2", "gaudi-3",
    ],
)
def test_required_gpu_is_in_the_catalog(gpu_id):
    assert gpu_id in SHIPPED


def test_load_gpus_returns_a_fresh_dict_over_the_cached_records():
    first, second = load_gpus(), load_gpus()
    first.pop("rtx-4090")
    assert "rtx-4090" in second
    assert second["h100-sxm"] is load_gpus()["h100-sxm"]


@pytest.mark.parametrize("gpu", SHIPPED.values(), ids=list(SHIPPED))
class TestEveryEntry:
    def test_has_a_source_naming_a_document(self, gpu):
        assert len(gpu.source) > 20
        assert "http" in gpu.source

    def test_memory_bytes_is_gib_times_two_to_the_thirtieth(self, gpu):
        assert gpu.memory_bytes == round(gpu.memory_gib * 2**30)
        # The floor is 4 GiB, not 8: the cards hobbyists own include the GTX 1650 (4 GB), the
        # GTX 1660 family, RTX 2060 and RTX 3050 6GB and the 6 GB laptop chips (issue 18).
        assert gpu.memory_bytes >= 4 * 2**30

    def test_bf16_rate_does_not_exceed_fp8_rate(self, gpu):
        if gpu.bf16_tensor_tflops is not None and gpu.fp8_tensor_tflops is not None:
            assert gpu.bf16_tensor_tflops <= gpu.fp8_tensor_tflops

    def test_nvidia_fp16_tensor_rate_is_at_least_fp32_rate(self, gpu):
        # Every NVIDIA entry is Volta or later, so FP16 runs on tensor cores.
        if gpu.vendor == "nvidia":
            assert gpu.fp16_tensor_tflops >= gpu.fp32_tflops

    def test_geforce_fp16_accumulate_headline_is_twice_the_fp32_accumulate_rate(self, gpu):
        if gpu.fp16_acc16_tensor_tflops is not None:
            assert gpu in GEFORCE
            assert gpu.fp16_acc16_tensor_tflops == pytest.approx(
                2 * gpu.fp16_tensor_tflops, rel=2e-3
            )

    def test_bf16_matches_fp16_where_both_exist(self, gpu):
        if gpu.bf16_tensor_tflops is not None:
            assert gpu.bf16_tensor_tflops == pytest.approx(gpu.fp16_tensor_tflops, rel=1e-3)

    def test_vendor_specific_identifiers_are_present(self, gpu):
        assert (gpu.compute_capability is not None) == (gpu.vendor == "nvidia")
        assert (gpu.gfx_target is not None) == (gpu.vendor == "amd")
        # unified memory: Apple's M-series and NVIDIA's GB10 (DGX Spark) system-on-chips
        assert gpu.unified_memory == (gpu.vendor == "apple" or gpu.id == "gb10")

    def test_peak_rates_are_positive_where_present(self, gpu):
        assert gpu.peak_tflops("fp32") > 0
        assert gpu.peak_tflops("tf32") >= gpu.peak_tflops("fp32") * 0.99
        assert gpu.peak_tflops("fp16") > 0


def test_every_geforce_card_of_ampere_or_later_records_the_headline_rate():
    # Pascal and Volta (GTX 10, TITAN Xp/V) have no FP16-accumulate tensor headline; Turing's
    # TITAN RTX runs FP32 accumulate at the full rate.
    modern = [g for g in GEFORCE if g.architecture not in ("Turing", "Pascal", "Volta")]
    modern += [SHIPPED["rtx-2080-ti"]]
    assert all(g.fp16_acc16_tensor_tflops is not None for g in modern)


# -- spot checks against published figures -----------------------------------------------------


def test_h100_sxm_dense_rates():
    # NVIDIA H100 Tensor Core GPU datasheet / H100 whitepaper: BF16 989.4, FP8 1978.9 dense,
    # 3.35 TB/s, 700 W, NVLink 900 GB/s.
    h100 = SHIPPED["h100-sxm"]
    assert h100.bf16_tensor_tflops == pytest.approx(989.4)
    assert h100.fp8_tensor_tflops == pytest.approx(1978.9)
    assert h100.memory_bandwidth_gb_s == 3350
    assert h100.tdp_w == 700
    assert h100.p2p_bandwidth_gb_s == 900


def test_a100_80gb_sxm():
    # NVIDIA A100 datasheet: 2039 GB/s (80GB SXM), BF16 312, TF32 156, FP32 19.5, NVLink 600 GB/s.
    a100 = SHIPPED["a100-sxm-80gb"]
    assert a100.memory_bandwidth_gb_s == 2039
    assert a100.bf16_tensor_tflops == 312
    assert a100.tf32_tensor_tflops == 156
    assert a100.fp32_tflops == 19.5
    assert a100.interconnect_bandwidth_gb_s == 300


def test_rtx_4090_uses_fp32_accumulate_rate():
    # NVIDIA Ada GPU Architecture whitepaper, Appendix A: FP32 82.6; FP16 tensor with FP32
    # accumulate 165.2 dense (330.3 with FP16 accumulate); FP8 with FP32 accumulate 330.3.
    rtx = SHIPPED["rtx-4090"]
    assert rtx.fp32_tflops == pytest.approx(82.6)
    assert rtx.peak_tflops("fp16") == pytest.approx(165.2)
    assert rtx.fp16_acc16_tensor_tflops == pytest.approx(330.3)
    assert rtx.memory_gib == 24
    assert rtx.memory_bytes == 24 * 2**30


def test_mi300x():
    # AMD Instinct MI300X data sheet: FP16/BF16 1307.4 dense, 5.3 TB/s, 192 GB HBM3, 750 W.
    mi = SHIPPED["mi300x"]
    assert mi.bf16_tensor_tflops == pytest.approx(1307.4)
    assert mi.memory_bandwidth_gb_s == 5300
    assert mi.memory_gib == 192
    assert mi.gfx_target == "gfx942"


def test_t4():
    # NVIDIA T4 datasheet: 65 TFLOPS mixed-precision FP16/FP32, 320 GB/s, 70 W, no bf16.
    t4 = SHIPPED["t4"]
    assert t4.fp16_tensor_tflops == 65
    assert t4.memory_bandwidth_gb_s == 320
    assert t4.tdp_w == 70
    assert t4.peak_tflops("bf16") is None


def test_v100_has_no_bf16_or_tf32():
    # NVIDIA V100 datasheet (SXM2): 125 tensor TFLOPS, 15.7 FP32, 900 GB/s, NVLink 300 GB/s.
    v100 = SHIPPED["v100-sxm2-32gb"]
    assert v100.fp16_tensor_tflops == 125
    assert v100.peak_tflops("bf16") is None
    assert v100.peak_tflops("tf32") == v100.fp32_tflops == 15.7


def test_l40s_and_l4_are_dense_not_sparse():
    # NVIDIA L40S datasheet: BF16 362.05 dense (733 sparse); L4 datasheet: BF16 121 (242 sparse).
    assert SHIPPED["l40s"].bf16_tensor_tflops == pytest.approx(362.05)
    assert SHIPPED["l4"].bf16_tensor_tflops == pytest.approx(121)


def test_rtx_3090_and_5090_whitepaper_rates():
    # GA102 whitepaper: RTX 3090 FP16/FP32-acc 71 (142 FP16-acc), 936 GB/s.
    # RTX Blackwell whitepaper: RTX 5090 FP32 104.8, FP16/FP32-acc 209.5, 1792 GB/s, 575 W.
    assert SHIPPED["rtx-3090"].fp16_tensor_tflops == 71
    assert SHIPPED["rtx-3090"].memory_bandwidth_gb_s == 936
    assert SHIPPED["rtx-5090"].fp16_tensor_tflops == pytest.approx(209.5)
    assert SHIPPED["rtx-5090"].memory_bandwidth_gb_s == 1792


def test_apple_socs_have_unified_memory_and_no_pcie():
    m2 = SHIPPED["m2-ultra"]
    assert m2.unified_memory
    assert m2.pcie_bandwidth_gb_s is None
    assert m2.interconnect_bandwidth_gb_s is None


# -- the cards hobbyists own: GeForce 16, 4-6 GB cards, laptop chips (issue 18) ---------------

HOBBYIST = [
    "gtx-1650", "gtx-1650-super", "gtx-1660", "gtx-1660-super", "gtx-1660-ti",
    "gtx-1650-laptop", "gtx-1650-ti-laptop", "gtx-1660-ti-laptop", "rtx-2060", "rtx-2060-laptop",
    "rtx-3050-6gb", "rtx-3060-laptop", "rtx-4050-laptop", "rtx-3070-laptop",
    "rtx-3080-laptop-8gb", "rtx-3080-laptop-16gb", "rtx-4060-laptop", "rtx-4070-laptop",
    "rtx-4080-laptop", "rtx-4090-laptop", "rtx-5070-laptop", "rtx-5070-ti-laptop",
    "rtx-5080-laptop", "rtx-5090-laptop", "gtx-1060-6gb", "gtx-1070-ti", "quadro-rtx-4000",
    "quadro-rtx-5000", "arc-a380", "rtx-3050-laptop", "rtx-3050-ti-laptop", "rtx-5060-laptop",
    "rtx-5050-laptop", "quadro-rtx-3000-laptop", "arc-a310", "arc-a770-8gb", "gaudi-1",
]

# GeForce 16: SMs and boost clock (MHz) from NVIDIA's specification pages (desktop) and the
# laptop datasheets at their highest boost clock; 64 FP32 lanes per Turing SM.
GTX16 = {
    "gtx-1650": (14, 1665), "gtx-1650-super": (20, 1725), "gtx-1660": (22, 1785),
    "gtx-1660-super": (22, 1785), "gtx-1660-ti": (24, 1770), "gtx-1650-laptop": (16, 1560),
    "gtx-1650-ti-laptop": (16, 1485), "gtx-1660-ti-laptop": (24, 1590),
}


@pytest.mark.parametrize("gpu_id", HOBBYIST)
def test_hobbyist_card_is_in_the_catalog_with_a_source(gpu_id):
    assert gpu_id in SHIPPED
    assert "https://" in SHIPPED[gpu_id].source


@pytest.mark.parametrize(("gpu_id", "sms_and_mhz"), GTX16.items())
def test_geforce_16_fp32_is_sms_times_128_flop_times_boost_clock(gpu_id, sms_and_mhz):
    sms, mhz = sms_and_mhz
    assert SHIPPED[gpu_id].fp32_tflops == pytest.approx(sms * 64 * 2 * mhz / 1e6, abs=0.05)


@pytest.mark.parametrize("gpu_id", GTX16)
def test_geforce_16_has_no_tensor_cores_and_no_bf16(gpu_id):
    # TU116/TU117: FP16 on the vector units at twice FP32 (packed half2), INT8 by DP4A at 4x
    # FP32; no TF32/BF16/FP8 and no FP16-accumulate tensor headline.
    gpu = SHIPPED[gpu_id]
    assert gpu.fp16_tensor_tflops == pytest.approx(2 * gpu.fp32_tflops, rel=0.02)
    assert gpu.int8_tensor_tops == pytest.approx(4 * gpu.fp32_tflops, rel=0.02)
    assert gpu.bf16_tensor_tflops is None and gpu.peak_tflops("bf16") is None
    assert gpu.tf32_tensor_tflops is None and gpu.fp8_tensor_tflops is None
    assert gpu.fp16_acc16_tensor_tflops is None
    assert gpu.compute_capability == "7.5"


def test_gtx_1660_family_memory_and_bandwidth():
    # NVIDIA specs: GTX 1660 6 GB GDDR5 8 Gbps, SUPER GDDR6 14 Gbps, Ti GDDR6 12 Gbps, all
    # 192-bit; GTX 1650 4 GB GDDR5 8 Gbps 128-bit, 75 W.
    assert [SHIPPED[g].memory_bandwidth_gb_s for g in ("gtx-1660", "gtx-1660-super",
                                                       "gtx-1660-ti")] == [192, 336, 288]
    assert {SHIPPED[g].memory_gib for g in ("gtx-1660", "gtx-1660-super", "gtx-1660-ti")} == {6}
    assert SHIPPED["gtx-1650"].memory_bytes == 4 * 2**30
    assert SHIPPED["gtx-1650"].tdp_w == 75


@pytest.mark.parametrize(
    ("gpu_id", "sms", "boost_mhz"),
    [
        # NVIDIA's highest listed boost clock (the maximum-TGP configuration)
        ("rtx-4050-laptop", 20, 2370), ("rtx-3060-laptop", 30, 1703),
        ("rtx-5070-laptop", 36, 2347), ("rtx-5080-laptop", 60, 2287),
        ("rtx-3080-laptop-8gb", 48, 1710), ("rtx-2060", 30, 1680), ("rtx-3050-6gb", 18, 1470),
        # GA107 16 and 20 SMs at the top of 1057-1740 and 1035-1695 MHz; GB206 26 SMs at
        # 1455 MHz and GB207 20 SMs at 1500 MHz (TechPowerUp's 45-50 W boost clocks, the only
        # ones a source gives: catalog notes)
        ("rtx-3050-laptop", 16, 1740), ("rtx-3050-ti-laptop", 20, 1695),
        ("rtx-5060-laptop", 26, 1455), ("rtx-5050-laptop", 20, 1500),
    ],
)
def test_tensor_rate_is_sms_times_512_fp32_accumulate_flop_times_boost_clock(
    gpu_id, sms, boost_mhz
):
    # Turing to Blackwell GeForce: 1024 dense FP16-accumulate FLOP/clk/SM, half that with FP32
    # accumulate (the rate training sees); INT8 twice the FP16-accumulate rate.
    gpu = SHIPPED[gpu_id]
    assert gpu.fp16_tensor_tflops == pytest.approx(sms * 512 * boost_mhz / 1e6, rel=3e-3)
    assert gpu.fp16_acc16_tensor_tflops == pytest.approx(sms * 1024 * boost_mhz / 1e6, rel=3e-3)
    assert gpu.int8_tensor_tops == pytest.approx(sms * 2048 * boost_mhz / 1e6, rel=3e-3)


def test_six_gb_cards_and_their_links():
    assert SHIPPED["rtx-3050-6gb"].memory_bandwidth_gb_s == 168  # 14 Gbps x 96-bit
    assert SHIPPED["rtx-3050-6gb"].pcie_bandwidth_gb_s == pytest.approx(15.75, abs=0.05)  # 4.0 x8
    assert SHIPPED["rtx-4050-laptop"].fp8_tensor_tflops == pytest.approx(48.5, abs=0.05)
    assert SHIPPED["rtx-2060"].peak_tflops("bf16") is None  # Turing: no bf16
    assert SHIPPED["rtx-3060-laptop"].peak_tflops("bf16") == pytest.approx(26.15, abs=0.05)
    for gpu_id in ("rtx-2060", "rtx-3050-6gb", "rtx-3060-laptop", "rtx-4050-laptop",
                   "rtx-2060-laptop", "gtx-1660-ti-laptop"):
        assert SHIPPED[gpu_id].memory_gib == 6


def test_quadro_rtx_datasheet_rates_have_no_geforce_halving():
    # Quadro RTX 4000 datasheet: 7.1 FP32, 57 tensor TFLOPS, 416 GB/s, 160 W; Quadro RTX 5000:
    # 11.2 FP32, 89.2 tensor TFLOPS, 448 GB/s, NVLink bridge 50 GB/s.
    q4, q5 = SHIPPED["quadro-rtx-4000"], SHIPPED["quadro-rtx-5000"]
    assert (q4.fp32_tflops, q4.fp16_tensor_tflops, q4.memory_bandwidth_gb_s) == (7.1, 57, 416)
    assert (q5.fp32_tflops, q5.fp16_tensor_tflops, q5.p2p_bandwidth_gb_s) == (11.2, 89.2, 50)
    assert q4.fp16_acc16_tensor_tflops is None and q5.fp16_acc16_tensor_tflops is None


def test_entry_level_laptop_chips_memory_and_links():
    # NVIDIA: RTX 3050 / 3050 Ti Laptop GPU 4 GB GDDR6 on 128 bits (12 Gbps: 192 GB/s);
    # RTX 5060 / 5050 Laptop GPU 8 GB GDDR7 on 128 bits at 24 Gbps (384 GB/s), PCIe 5.0 x8.
    for gpu_id in ("rtx-3050-laptop", "rtx-3050-ti-laptop"):
        assert (SHIPPED[gpu_id].memory_gib, SHIPPED[gpu_id].memory_bandwidth_gb_s) == (4, 192)
    for gpu_id in ("rtx-5060-laptop", "rtx-5050-laptop"):
        gpu = SHIPPED[gpu_id]
        assert (gpu.memory_gib, gpu.memory_bandwidth_gb_s) == (8, 24 * 128 / 8)
        assert gpu.pcie_bandwidth_gb_s == pytest.approx(31.5, abs=0.1)  # 5.0 x8 = 4.0 x16
        assert gpu.fp8_tensor_tflops == pytest.approx(2 * gpu.fp16_tensor_tflops, rel=2e-3)


def test_laptop_quadro_rtx_3000_is_turing_at_the_full_quadro_tensor_rate():
    # TU106 with 30 SMs at 1380 MHz: 64 FP32 lanes x 2 and 1024 dense FP16 FLOP/clk/SM with
    # FP32 accumulate (Turing whitepaper); a Quadro: no GeForce halving, no bf16.
    gpu = SHIPPED["quadro-rtx-3000-laptop"]
    assert gpu.fp32_tflops == pytest.approx(30 * 128 * 1380 / 1e6, abs=0.05)
    assert gpu.fp16_tensor_tflops == pytest.approx(30 * 1024 * 1380 / 1e6, rel=2e-3)
    assert gpu.fp16_acc16_tensor_tflops is None and gpu.peak_tflops("bf16") is None
    assert (gpu.memory_gib, gpu.segment, gpu.compute_capability) == (6, "workstation", "7.5")


@pytest.mark.parametrize(("gpu_id", "xe_cores", "mhz", "memory_gib", "bandwidth_gb_s"), [
    # Intel ARK: A310 6 Xe-cores, 2000 MHz, 4 GB at 124 GB/s; A770 8GB 32 Xe-cores, 2100 MHz,
    # 16 Gbps x 256-bit; A580 24 Xe-cores, 1700 MHz, 512 GB/s
    ("arc-a310", 6, 2000, 4, 124), ("arc-a770-8gb", 32, 2100, 8, 512),
    ("arc-a580", 24, 1700, 8, 512),
])
def test_arc_alchemist_rates_are_xe_cores_times_256_and_2048_flop_per_clock(
    gpu_id, xe_cores, mhz, memory_gib, bandwidth_gb_s
):
    gpu = SHIPPED[gpu_id]
    assert gpu.fp32_tflops == pytest.approx(xe_cores * 256 * mhz / 1e6, abs=0.05)
    assert gpu.fp16_tensor_tflops == pytest.approx(xe_cores * 2048 * mhz / 1e6, abs=0.05)
    assert (gpu.memory_gib, gpu.memory_bandwidth_gb_s) == (memory_gib, bandwidth_gb_s)


def test_the_a580_cites_its_own_intel_page_not_the_a380s():
    # Intel ARK product ids: A580 227961, A380 227959.
    assert "/sku/227961/intel-arc-a580-graphics/" in SHIPPED["arc-a580"].source
    assert "227959" not in SHIPPED["arc-a580"].source


def test_first_gaudi_from_intels_product_generations_table():
    # Intel, Hot Chips 2024 (Gaudi 3 talk): Gaudi 32 GB, 60 TFLOPS BF16, PCIe 64 GB/s
    # bidirectional (4.0 x16), 2 Tb/s of RoCE NICs bidirectional; Gaudi 2 432 TFLOPS.
    g1, g2 = SHIPPED["gaudi-1"], SHIPPED["gaudi-2"]
    assert (g1.memory_gib, g1.bf16_tensor_tflops, g1.fp8_tensor_tflops) == (32, 60, None)
    assert g1.p2p_bandwidth_gb_s == 2000 / 8
    assert g1.pcie_bandwidth_gb_s == pytest.approx(31.5, abs=0.1)
    assert g2.bf16_tensor_tflops / g1.bf16_tensor_tflops == pytest.approx(7.2)


# -- GpuSpec behaviour -------------------------------------------------------------------------


def test_pcie_gen4_x16_is_about_31_5_gb_s_per_direction():
    assert SHIPPED["rtx-4090"].pcie_bandwidth_gb_s == pytest.approx(31.5, abs=0.05)
    assert SHIPPED["h100-pcie"].pcie_bandwidth_gb_s == pytest.approx(63.0, abs=0.1)
    assert SHIPPED["rtx-4060-ti-16gb"].pcie_bandwidth_gb_s == pytest.approx(15.75, abs=0.05)


def test_interconnect_is_half_the_bidirectional_link_else_pcie():
    assert SHIPPED["h100-sxm"].interconnect_bandwidth_gb_s == 450
    assert SHIPPED["rtx-3090"].interconnect_bandwidth_gb_s == pytest.approx(56.25)
    assert SHIPPED["rtx-4090"].interconnect_bandwidth_gb_s == pytest.approx(31.5, abs=0.05)


def test_peak_tflops_tf32_falls_back_to_fp32_and_rejects_unknown_dtype():
    assert SHIPPED["mi210"].peak_tflops("tf32") == SHIPPED["mi210"].fp32_tflops
    assert SHIPPED["h100-sxm"].peak_tflops("tf32") == pytest.approx(494.7)
    with pytest.raises(ValueError, match="dtype"):
        SHIPPED["h100-sxm"].peak_tflops("int8")


def test_gpuspec_is_frozen_and_coerces_integers_to_float():
    spec = SHIPPED["a100-sxm-80gb"]
    assert isinstance(spec.memory_gib, float)
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.memory_gib = 1  # type: ignore[misc]


@pytest.mark.parametrize(
    ("change", "field_name"),
    [
        ({"memory_gib": -1}, "memory_gib"),
        ({"vendor": "ati"}, "vendor"),
        ({"compute_capability": None}, "compute_capability"),
        ({"p2p_link": "nvlink4"}, "p2p_bandwidth_gb_s"),
        ({"fp16_acc16_tensor_tflops": 1.0}, "fp16_acc16_tensor_tflops"),
        ({"id": "RTX 4090"}, "id"),
        ({"source": " "}, "source"),
    ],
)
def test_gpuspec_rejects_bad_values_naming_the_field(change, field_name):
    with pytest.raises(ValueError, match=f"^{field_name}: ") as info:
        dataclasses.replace(SHIPPED["rtx-4090"], **change)
    assert info.value.field == field_name


# -- schema rejections, written to files --------------------------------------------------------


def test_valid_entry_loads(tmp_path):
    gpus = load_gpus(write_catalog(tmp_path, VALID_ENTRY))
    assert list(gpus) == ["my-card"]
    assert gpus["my-card"].memory_gib == 16.0


def test_unknown_key_names_file_entry_field_and_suggests_the_right_key(tmp_path):
    path = write_catalog(tmp_path, with_line(VALID_ENTRY, "memory_gib =", "memory_gb ="))
    with pytest.raises(CatalogError) as info:
        load_gpus(path)
    assert "gpus.toml: [my-card] field 'memory_gb': unknown key (did you mean 'memory_gib'?)" in (
        info.value.problems
    )


def test_number_written_with_units_is_rejected_with_the_unit_the_field_takes(tmp_path):
    entry = with_line(VALID_ENTRY, "memory_gib = 16", 'memory_gib = "16 GB"')
    path = write_catalog(tmp_path, entry)
    problems = validate_file(path)
    assert len(problems) == 1
    assert problems[0].startswith("gpus.toml: [my-card] field 'memory_gib': ")
    assert "a number in GiB" in problems[0]
    assert "memory_gib = 16" in problems[0]


def test_missing_source_is_rejected(tmp_path):
    entry = "\n".join(line for line in VALID_ENTRY.splitlines() if not line.startswith("source"))
    problems = validate_file(write_catalog(tmp_path, entry))
    assert problems == [
        "gpus.toml: [my-card] field 'source': missing; "
        "it takes a string (document name and URL)"
    ]


def test_negative_bandwidth_is_rejected(tmp_path):
    entry = with_line(VALID_ENTRY, "memory_bandwidth_gb_s = 700", "memory_bandwidth_gb_s = -700")
    problems = validate_file(write_catalog(tmp_path, entry))
    assert len(problems) == 1
    assert "[my-card] field 'memory_bandwidth_gb_s': must be > 0 GB/s" in problems[0]


def test_wrong_type_and_disallowed_value_are_rejected(tmp_path):
    entry = with_line(VALID_ENTRY, "launch_year = 2023", "launch_year = 2023.5")
    entry = with_line(entry, 'p2p_link = "none"', 'p2p_link = "nvlink"')
    problems = validate_file(write_catalog(tmp_path, entry))
    assert any("field 'launch_year': takes an integer" in p for p in problems)
    assert any("field 'p2p_link': 'nvlink' is not allowed" in p for p in problems)


def test_cross_field_rule_from_gpuspec_is_reported_with_entry_and_field(tmp_path):
    entry = with_line(VALID_ENTRY, 'compute_capability = "8.9"\n', "")
    problems = validate_file(write_catalog(tmp_path, entry))
    assert problems == [
        "gpus.toml: [my-card] field 'compute_capability': NVIDIA GPUs need one, like '8.9'"
    ]


def test_toml_syntax_error_names_the_file_and_line(tmp_path):
    broken_line = len(VALID_ENTRY.splitlines()) + 2
    path = write_catalog(tmp_path, VALID_ENTRY + "\n[broken\nname = 1\n")
    with pytest.raises(CatalogError) as info:
        load_gpus(path)
    message = str(info.value)
    assert message.startswith("gpus.toml: TOML syntax error:")
    assert f"line {broken_line}" in message


def test_duplicate_table_is_a_toml_error(tmp_path):
    problems = validate_file(write_catalog(tmp_path, VALID_ENTRY + "\n" + VALID_ENTRY))
    assert len(problems) == 1
    assert "TOML syntax error" in problems[0]


def test_validate_file_reports_all_problems_of_two_bad_entries(tmp_path):
    first = with_line(VALID_ENTRY, "tdp_w = 300", 'tdp_w = "300 W"')
    second = with_line(VALID_ENTRY, "[my-card]", "[other-card]")
    second = with_line(second, "fp32_tflops = 40", "fp32_tflop = 40")
    problems = validate_file(write_catalog(tmp_path, first + "\n" + second))
    assert [p.split(" field ")[0] for p in problems] == [
        "gpus.toml: [my-card]",
        "gpus.toml: [other-card]",
        "gpus.toml: [other-card]",
    ]
    assert "'tdp_w': takes a number in W" in problems[0]
    assert "'fp32_tflop': unknown key (did you mean 'fp32_tflops'?)" in problems[1]
    assert "'fp32_tflops': missing" in problems[2]


def test_bad_table_name_and_stray_top_level_key_are_reported(tmp_path):
    text = 'vendor = "nvidia"\n' + with_line(VALID_ENTRY, "[my-card]", "[My_Card]")
    problems = validate_file(write_catalog(tmp_path, text))
    assert any("top-level key 'vendor' is not a table" in p for p in problems)
    assert any("[My_Card] id is not valid" in p for p in problems)


def test_unsupported_schema_version_is_reported(tmp_path):
    problems = validate_file(write_catalog(tmp_path, "schema_version = 2\n" + VALID_ENTRY))
    assert problems == [
        "gpus.toml: schema_version 2 is not supported (this version of gpuadvisor reads 1)"
    ]


def test_missing_file_is_a_catalog_error(tmp_path):
    with pytest.raises(CatalogError, match=r"gpus\.toml: cannot read the file"):
        load_gpus(tmp_path / "gpus.toml")


@pytest.mark.parametrize(
    ("file_name", "kind"),
    [("gpus.toml", "gpus"), ("lab-gpus.toml", "gpus"), ("my_models.toml", "models"),
     ("offers.toml", "offers"), ("hardware.toml", None)],
)
def test_kind_is_told_from_the_file_name(file_name, kind):
    assert kind_of(file_name) == kind


def test_file_of_unknown_kind_or_missing_file_is_reported(tmp_path):
    assert "cannot tell the catalog kind" in validate_file(tmp_path / "hardware.toml")[0]
    assert "cannot read the file" in validate_file(tmp_path / "offers.toml")[0]


def test_a_catalog_of_too_many_tables_is_refused_before_it_is_parsed(tmp_path):
    from gpuadvisor.catalog.schema import MAX_ENTRIES

    path = tmp_path / "models.toml"
    path.write_text("".join(f"[t{i}]\nname = 'x'\n" for i in range(MAX_ENTRIES + 1)),
                    encoding="utf-8")
    assert validate_file(path) == [
        f"models.toml: {MAX_ENTRIES + 1:,} tables; a catalog file holds at most "
        f"{MAX_ENTRIES:,} entries"]
    # the shipped catalogs are far below it
    for name in ("gpus", "models", "offers", "apis"):
        text = (catalog_dir() / f"{name}.toml").read_text(encoding="utf-8")
        assert text.count("\n[") < MAX_ENTRIES // 10


def test_the_sm_counts_agree_with_the_fp32_rates():
    # fp32 = SMs x FP32 lanes per SM x 2 FLOP x clock: a recorded SM count implies a clock,
    # which must be a clock NVIDIA GPUs run at (0.9-3.1 GHz; the laptop chips' catalog rates
    # are at the top of their power range). A count off by 2x (a lanes-per-SM mix-up, a
    # partial die) lands outside it. The count is recorded for the NVIDIA cards only.
    from gpuadvisor.catalog import load_gpus
    from gpuadvisor.core.engines.prompt_rates import fp32_lanes_per_sm

    counted = [g for g in load_gpus().values() if g.sm_count]
    assert len(counted) >= 120 and all(g.vendor == "nvidia" for g in counted)
    for gpu in counted:
        lanes = fp32_lanes_per_sm(gpu.cc_number)
        clock_ghz = gpu.fp32_tflops * 1e3 / (gpu.sm_count * lanes * 2)
        assert 0.9 <= clock_ghz <= 3.1, (gpu.id, gpu.sm_count, round(clock_ghz, 2))
    a100 = load_gpus()["a100-sxm-80gb"]  # NVIDIA A100 whitepaper: 108 SMs at 1,410 MHz
    assert a100.sm_count == 108
    assert a100.fp32_tflops == pytest.approx(108 * 64 * 2 * 1.41 / 1e3, rel=0.01)


@pytest.mark.parametrize("bad", [0, -4, 1.5, True, "108"])
def test_a_bad_sm_count_is_refused_by_name(bad):
    from gpuadvisor.core.gpu import SpecFieldError

    with pytest.raises(SpecFieldError, match="sm_count"):
        dataclasses.replace(SHIPPED["a100-sxm-80gb"], sm_count=bad)


def test_measured_stream_reads_are_below_the_datasheet_and_name_their_source():
    measured = [g for g in SHIPPED.values() if g.stream_read_gb_s]
    assert {"t4", "p40", "rtx-3090"} <= {g.id for g in measured}
    for gpu in measured:
        assert 0.5 < gpu.stream_read_gb_s / gpu.memory_bandwidth_gb_s <= 1.0, gpu.id
        assert "clpeak" in gpu.stream_read_source or "Benchmark" in gpu.stream_read_source
    # clpeak's Tesla_T4.log: "Global memory bandwidth (GBPS) ... float8 : 263.44"
    assert SHIPPED["t4"].stream_read_gb_s == 263.44


@pytest.mark.parametrize("changes, field", [
    ({"stream_read_gb_s": 400.0, "stream_read_source": "x"}, "stream_read_gb_s"),  # > 320
    ({"stream_read_gb_s": -1.0, "stream_read_source": "x"}, "stream_read_gb_s"),
    ({"stream_read_gb_s": 250.0, "stream_read_source": ""}, "stream_read_source"),
])
def test_a_bad_stream_read_is_refused_by_name(changes, field):
    from gpuadvisor.core.gpu import SpecFieldError

    with pytest.raises(SpecFieldError, match=field):
        dataclasses.replace(SHIPPED["t4"], **changes)
