"""GPU names as drivers, reviews and people write them -> catalog ids (``--gpu``).

The driver strings are what ``nvidia-smi --query-gpu=name`` / NVML, ROCm torch
(``torch.cuda.get_device_name``), oneAPI and macOS print for these cards (the same strings
tests/hardware/test_match.py matches with memory); here the name alone must do.
"""

from __future__ import annotations

import pytest

from gpuadvisor.catalog import load_gpus
from gpuadvisor.cli import main
from gpuadvisor.core.gpu_names import (
    GpuNameError,
    core_tokens,
    match_gpu_name,
    name_tokens,
    resolve_gpu_name,
)

GPUS = load_gpus()

# (name as printed, catalog id)
DRIVER_NAMES = [
    ("NVIDIA GeForce RTX 4090", "rtx-4090"),  # NVML; the 48 GB board shares it as an alias
    ("NVIDIA GeForce RTX 4090 Laptop GPU", "rtx-4090-laptop"),
    ("NVIDIA GeForce RTX 4090 D", "rtx-4090-d"),
    ("NVIDIA GeForce RTX 4080 SUPER", "rtx-4080-super"),
    ("NVIDIA GeForce RTX 4070 Ti SUPER", "rtx-4070-ti-super"),
    ("NVIDIA GeForce RTX 3090", "rtx-3090"),
    ("NVIDIA GeForce RTX 3090 Ti", "rtx-3090-ti"),
    ("NVIDIA GeForce RTX 3080 Ti", "rtx-3080-ti"),
    ("NVIDIA GeForce RTX 2080 Ti", "rtx-2080-ti"),
    ("GeForce RTX 2080 Ti", "rtx-2080-ti"),  # drivers before 2021: no "NVIDIA"
    ("NVIDIA GeForce GTX 1080 Ti", "gtx-1080-ti"),
    ("NVIDIA TITAN RTX", "titan-rtx"),
    ("NVIDIA TITAN Xp", "titan-xp"),
    ("NVIDIA RTX A6000", "rtx-a6000"),
    ("NVIDIA RTX 6000 Ada Generation", "rtx-6000-ada"),
    ("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "rtx-pro-6000-blackwell"),
    ("NVIDIA RTX PRO 6000 Blackwell Server Edition", "rtx-pro-6000-blackwell-server"),
    ("Quadro RTX 8000", "quadro-rtx-8000"),
    ("Tesla T4", "t4"),
    ("Tesla P40", "p40"),
    ("NVIDIA Tesla P40", "p40"),
    ("Tesla P100-PCIE-16GB", "p100-pcie-16gb"),
    ("Tesla V100-SXM2-16GB", "v100-sxm2-16gb"),
    ("Tesla V100-SXM2-32GB", "v100-sxm2-32gb"),
    ("Tesla V100-PCIE-32GB", "v100-pcie-32gb"),
    ("NVIDIA A10G", "a10g"),
    ("NVIDIA A10", "a10"),
    ("NVIDIA L4", "l4"),
    ("NVIDIA L40S", "l40s"),
    ("NVIDIA A100-SXM4-40GB", "a100-sxm-40gb"),
    ("NVIDIA A100-SXM4-80GB", "a100-sxm-80gb"),
    ("NVIDIA A100-PCIE-40GB", "a100-pcie-40gb"),
    ("NVIDIA A100 80GB PCIe", "a100-pcie-80gb"),
    ("NVIDIA A800-SXM4-80GB", "a800-sxm-80gb"),
    ("NVIDIA H100 80GB HBM3", "h100-sxm"),
    ("NVIDIA H100 PCIe", "h100-pcie"),
    ("NVIDIA H100 NVL", "h100-nvl"),
    ("NVIDIA H200", "h200-sxm"),
    ("NVIDIA H200 NVL", "h200-nvl"),
    ("NVIDIA GH200 144G HBM3e", "gh200-144gb"),
    ("NVIDIA B200", "b200"),
    ("AMD Radeon RX 7900 XTX", "rx-7900-xtx"),
    ("Radeon RX 7900 XTX", "rx-7900-xtx"),  # older ROCm drops "AMD"
    ("AMD Radeon RX 7900 XT", "rx-7900-xt"),
    ("AMD Radeon PRO W7900", "radeon-pro-w7900"),
    ("AMD Instinct MI300X", "mi300x"),
    ("AMD Instinct MI250X", "mi250x"),
    ("AMD Instinct MI210", "mi210"),
    ("Intel(R) Arc(TM) A770 Graphics", "arc-a770-16gb"),
    ("GAUDI2", "gaudi-2"),
    # Issue 18, entry-level laptop chips and the rest (where each string was seen is in
    # tests/hardware/test_match.py): NVIDIA's supported-GPU list (open-gpu-kernel-modules
    # README, 595.45.04), Intel's compute-runtime device table, HLML's device name.
    ("NVIDIA GeForce RTX 3050 Laptop GPU", "rtx-3050-laptop"),
    ("NVIDIA GeForce RTX 3050 Ti Laptop GPU", "rtx-3050-ti-laptop"),
    ("NVIDIA GeForce RTX 3050Ti Laptop GPU", "rtx-3050-ti-laptop"),  # HP boards
    ("NVIDIA GeForce RTX 5060 Laptop GPU", "rtx-5060-laptop"),
    ("NVIDIA GeForce RTX 5050 Laptop GPU", "rtx-5050-laptop"),
    ("Quadro RTX 3000", "quadro-rtx-3000-laptop"),
    ("Quadro RTX 3000 with Max-Q Design", "quadro-rtx-3000-laptop"),
    ("Intel(R) Arc(TM) A310 Graphics", "arc-a310"),
    ("Intel(R) Arc(TM) A580 Graphics", "arc-a580"),
    ("HL-205", "gaudi-1"),
    ("Apple M1 Max", "m1-max"),  # macOS names the chip: its fullest variant
    ("Apple M2 Max", "m2-max"),
    ("Apple M3 Max", "m3-max"),
    ("Apple M2 Ultra", "m2-ultra"),
]

# (how reviews, shops and people write it, catalog id)
PEOPLE_NAMES = [
    ("RTX 4090", "rtx-4090"),
    ("rtx 4090", "rtx-4090"),
    ("4090", "rtx-4090"),
    ("RTX-4090", "rtx-4090"),
    ("GeForce RTX 4090 Founders Edition", "rtx-4090"),
    ("RTX 4090 48 GB", "rtx-4090-48gb"),
    ("3090", "rtx-3090"),
    ("RTX 3090 Ti", "rtx-3090-ti"),
    ("P40", "p40"),
    ("tesla p40", "p40"),
    ("RTX A6000", "rtx-a6000"),
    ("A6000", "rtx-a6000"),
    ("7900 XTX", "rx-7900-xtx"),
    ("RX 7900 XTX", "rx-7900-xtx"),
    ("MI300X", "mi300x"),
    ("Arc A770", "arc-a770-16gb"),
    ("A100 SXM4 80GB", "a100-sxm-80gb"),  # word order does not count
    ("A100 80 GB SXM", "a100-sxm-80gb"),  # "SXM" stands for SXM4
    ("H100 SXM", "h100-sxm"),
    ("V100 PCIe 16GB", "v100-pcie-16gb"),
    ("4090 laptop", "rtx-4090-laptop"),
    ("M2 Max 30-core", "m2-max-30c"),
    ("RTX 3080 12GB", "rtx-3080-12gb"),
    ("Arc A770 8GB", "arc-a770-8gb"),  # the driver name alone reads as the 16 GB card
    ("Arc A770 16GB", "arc-a770-16gb"),
    ("A310", "arc-a310"),
    ("3050 Ti laptop", "rtx-3050-ti-laptop"),
    ("RTX 3050 Laptop", "rtx-3050-laptop"),
    ("RTX 5060 Laptop", "rtx-5060-laptop"),
    ("5050 laptop", "rtx-5050-laptop"),
    ("Gaudi HL-205", "gaudi-1"),
]


@pytest.mark.parametrize(("text", "gpu_id"), DRIVER_NAMES + PEOPLE_NAMES)
def test_a_name_as_printed_resolves_to_its_catalog_gpu(text, gpu_id):
    assert resolve_gpu_name(text, GPUS).gpu_id == gpu_id


@pytest.mark.parametrize("gpu_id", sorted(GPUS))
def test_every_catalog_id_and_every_catalog_name_resolves_to_itself(gpu_id):
    assert match_gpu_name(gpu_id, GPUS).gpu_id == gpu_id
    assert match_gpu_name(gpu_id.upper(), GPUS).gpu_id == gpu_id
    assert match_gpu_name(GPUS[gpu_id].name, GPUS).gpu_id == gpu_id


def test_every_catalog_alias_resolves_to_the_card_named_so_else_to_the_cards_sharing_it():
    def reading(text):
        return core_tokens(name_tokens(text))

    for spec in GPUS.values():
        for alias in spec.aliases:
            named = {s.id for s in GPUS.values()
                     if reading(alias) in {reading(s.name),
                                           reading(s.name.split(" (")[0])}}
            sharing = {s.id for s in GPUS.values()
                       if reading(alias) in {reading(a) for a in s.aliases}}
            match = match_gpu_name(alias, GPUS)
            if len(named) == 1:
                assert match.gpu_id in named, alias
            elif named:  # an Apple chip: its fullest variant
                assert match.how == "variant" and match.gpu_id in named, alias
            elif len(sharing) == 1:
                assert (match.gpu_id, match.how) == (spec.id, "alias"), alias
            else:
                assert (match.how, set(match.candidates)) == ("ambiguous", sharing), alias


def test_names_are_read_without_case_vendor_words_trademarks_and_separators():
    assert name_tokens("NVIDIA A100-SXM4-80GB") == ("a100", "sxm4", "80gb")
    assert name_tokens("Intel(R) Arc(TM) A770 Graphics") == ("arc", "a770")
    assert name_tokens("NVIDIA H100 80 GB HBM3") == ("h100", "80gb", "hbm3")
    assert name_tokens("NVIDIA GH200 144G HBM3e") == ("gh200", "144gb", "hbm3e")
    assert core_tokens(("rtx", "4090")) == frozenset({"4090"})
    assert core_tokens(("titan", "rtx")) == frozenset({"titan", "rtx"})  # a line word after


@pytest.mark.parametrize(("text", "candidates"), [
    ("A100", {"a100-pcie-40gb", "a100-pcie-80gb", "a100-sxm-40gb", "a100-sxm-80gb"}),
    ("A100 80GB", {"a100-pcie-80gb", "a100-sxm-80gb"}),
    ("NVIDIA GeForce RTX 3080", {"rtx-3080-10gb", "rtx-3080-12gb"}),  # NVML: same name
    ("NVIDIA GeForce RTX 4060 Ti", {"rtx-4060-ti-16gb", "rtx-4060-ti-8gb"}),
    ("V100", {"v100-pcie-16gb", "v100-pcie-32gb", "v100-sxm2-16gb", "v100-sxm2-32gb"}),
    ("RX 7900", {"rx-7900-gre", "rx-7900-xt", "rx-7900-xtx"}),
    ("Titan", {"titan-rtx", "titan-v", "titan-xp"}),
])
def test_an_ambiguous_name_is_refused_listing_every_candidate(text, candidates):
    with pytest.raises(GpuNameError) as info:
        resolve_gpu_name(text, GPUS)
    assert set(info.value.candidates) == candidates
    message = str(info.value)
    assert f"matches {len(candidates)} catalog GPUs" in message
    for gpu_id in candidates:
        assert f"{gpu_id} ({GPUS[gpu_id].name})" in message


def test_an_apple_chip_name_takes_its_fullest_variant_and_says_so():
    match = resolve_gpu_name("Apple M3 Max", GPUS)
    assert (match.gpu_id, match.how, match.candidates) == ("m3-max", "variant", ("m3-max-30c",))
    assert GPUS["m3-max"].gpu_cores == 40 and GPUS["m3-max-30c"].gpu_cores == 30
    assert "m3-max-30c" in match.note and "fullest" in match.note


def test_an_unknown_name_names_the_closest_catalog_gpus():
    with pytest.raises(GpuNameError) as info:
        resolve_gpu_name("RTX 4099", GPUS)
    assert info.value.candidates[0] == "rtx-4090"
    assert str(info.value).startswith("unknown GPU 'RTX 4099' (closest: rtx-4090 (")
    with pytest.raises(GpuNameError, match="unknown GPU 'M2 Maxx'"):
        resolve_gpu_name("M2 Maxx", GPUS)  # a typo never lands on another chip
    with pytest.raises(GpuNameError, match="unknown GPU ''"):
        resolve_gpu_name("", GPUS)


def test_estimate_takes_a_driver_name_for_gpu(capsys):
    assert main(["estimate", "--model", "llama-3.1-8b", "--task", "infer", "--gpu",
                 "NVIDIA Tesla P40", "--json"]) == 0
    by_name = capsys.readouterr().out
    assert main(["estimate", "--model", "llama-3.1-8b", "--task", "infer", "--gpu", "p40",
                 "--json"]) == 0
    assert capsys.readouterr().out == by_name


def test_estimate_refuses_an_ambiguous_gpu_name_with_exit_2(capsys):
    assert main(["estimate", "--model", "llama-3.1-8b", "--task", "infer", "--gpu",
                 "A100"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("--gpu: 'A100' matches 4 catalog GPUs")
    assert "a100-sxm-80gb (NVIDIA A100 80GB SXM4)" in err
