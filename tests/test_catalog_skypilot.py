"""catalog/skypilot.toml against what SkyPilot 0.14.1 and its hosted catalogs actually name.

The export (tests/export/test_skypilot.py) checks that tasks use the names in the file; these
tests check the file itself against SkyPilot's own data, copied below with where it was read:

- ACCELERATOR_CLOUDS: github.com/skypilot-org/skypilot-catalog catalogs/v8/common/accelerators.csv
  at commit d4d53f0e1e9df6bcab64b96fe032ebbe43a4f0ce (AcceleratorName -> Clouds), the commit the
  file's header names.
- VERDA_NAMES: the AcceleratorName column of catalogs/v8/verda/vms.csv at commit
  538675a09162988c70e6f07f8302e7d986749ff8 (Verda is not in accelerators.csv at that commit).
- RUNPOD_PROVISIONER_NAMES: the keys of GPU_NAME_MAP in sky/provision/runpod/utils.py of the
  skypilot 0.14.1 wheel; a name the catalog lists but this map lacks fails at launch
  (``GPU_NAME_MAP[instance_type.split('_')[1]]`` raises KeyError).
- SINGLE_NODE_REASONS: CloudImplementationFeatures.MULTI_NODE in _CLOUD_UNSUPPORTED_FEATURES of
  sky/clouds/{runpod,vast,verda,primeintellect,hyperbolic,seeweb,shadeform}.py, 0.14.1.
- SKYPILOT_CLOUDS: the clouds registered in sky.utils.registry.CLOUD_REGISTRY of 0.14.1.
"""

from __future__ import annotations

import pytest

from gpuadvisor.catalog import load_gpus
from gpuadvisor.export.skypilot_names import skypilot_naming

NAMING = skypilot_naming()
GPUS = load_gpus()

ACCELERATOR_CLOUDS: dict[str, set[str]] = {
    "A10": {"azure", "lambda", "oci"},
    "A100": {"aws", "azure", "cudo", "gcp", "lambda", "oci", "primeintellect", "seeweb",
             "shadeform", "vast"},
    "A100-80GB": {"aws", "azure", "gcp", "lambda", "oci", "paperspace", "primeintellect",
                  "runpod", "shadeform", "scp"},
    "A100-80GB-SXM": {"runpod"},
    "A10G": {"aws"},
    "A16": {"shadeform"},
    "A30": {"seeweb"},
    "A40": {"cudo", "runpod", "shadeform"},
    "A4000": {"paperspace", "primeintellect", "shadeform"},
    "A5000": {"shadeform"},
    "A6000": {"lambda", "primeintellect", "shadeform"},
    "A800": {"cudo"},
    "B200": {"aws", "lambda", "primeintellect", "runpod", "shadeform", "nebius"},
    "B300": {"aws", "shadeform"},
    "GH200": {"lambda"},
    "H100": {"aws", "azure", "do", "gcp", "hyperbolic", "lambda", "oci", "paperspace",
             "primeintellect", "runpod", "seeweb", "shadeform", "vast", "nebius"},
    "H100-MEGA": {"gcp"},
    "H100-NVL": {"runpod"},
    "H100-NVLINK": {"fluidstack"},
    "H100-SXM": {"cudo", "runpod"},
    "H200": {"aws", "gcp", "oci", "primeintellect", "seeweb", "shadeform", "vast", "nebius"},
    "H200-SXM": {"runpod"},
    "K80": {"azure"},
    "L4": {"aws", "gcp", "runpod", "seeweb", "shadeform"},
    "L40": {"primeintellect", "runpod", "shadeform"},
    "L40S": {"aws", "cudo", "oci", "primeintellect", "runpod", "seeweb", "shadeform", "vast",
             "nebius"},
    "M4000": {"paperspace"},
    "M60": {"azure"},
    "MI300X": {"runpod"},
    "NVIDIA-H200-NVL": {"runpod"},
    "P100": {"gcp", "oci"},
    "P4": {"gcp"},
    "P4000": {"paperspace"},
    "RTX2000-Ada": {"runpod"},
    "RTX3060": {"vast"},
    "RTX3090": {"runpod", "vast"},
    "RTX4000-Ada": {"runpod"},
    "RTX4060": {"vast"},
    "RTX4070": {"vast"},
    "RTX4090": {"runpod", "shadeform", "vast"},
    "RTX5070": {"vast"},
    "RTX5090": {"runpod", "shadeform", "vast"},
    "RTX5880-Ada": {"vast"},
    "RTX6000": {"lambda", "seeweb"},
    "RTX6000-Ada": {"runpod", "vast"},
    "RTX6000Ada": {"primeintellect", "shadeform"},
    "RTXA4000": {"runpod"},
    "RTXA4500": {"runpod"},
    "RTXA5000": {"cudo", "runpod", "vast"},
    "RTXA6000": {"cudo", "runpod", "seeweb", "vast"},
    "RTXPRO6000": {"runpod", "shadeform"},
    "RTXPRO6000-WK": {"runpod"},
    "RTXPRO6000WS": {"vast"},
    "T4": {"aws", "azure", "gcp"},
    "V100": {"aws", "azure", "cudo", "gcp", "ibm", "lambda", "oci", "paperspace",
             "primeintellect", "shadeform", "vast"},
    "V100-32GB": {"aws", "azure", "paperspace", "shadeform", "scp"},
}

VERDA_NAMES = {"B300", "B200", "H200", "H100", "A100-80GB", "A100-80GB-160GB",
               "A100-80GB-320GB", "A100-80GB-640GB", "A100-40GB", "A100-40GB-320GB",
               "Tesla-V100", "RTX-PRO-6000", "L40S", "RTX-6000-Ada", "RTX-A6000"}

RUNPOD_PROVISIONER_NAMES = {
    "A100-80GB", "A100-80GB-SXM", "A30", "A40", "B200", "H100", "H100-NVL", "H100-SXM",
    "H200-SXM", "L4", "L40", "L40S", "MI300X", "RTX2000-Ada", "RTX3070", "RTX3080",
    "RTX3080Ti", "RTX3090", "RTX3090Ti", "RTX4000-Ada", "RTX4000-Ada-SFF", "RTX4070Ti",
    "RTX4080", "RTX4080SUPER", "RTX4090", "RTX5000-Ada", "RTX5080", "RTX5090", "RTX6000-Ada",
    "RTXA2000", "RTXA4000", "RTXA4500", "RTXA5000", "RTXA6000", "RTXPRO4500", "RTXPRO6000",
    "RTXPRO6000-WK", "V100-16GB-FHHL", "V100-16GB-PCIe", "V100-16GB-SXM2", "V100-32GB-SXM2",
}

SINGLE_NODE_REASONS = {
    "runpod": "Multi-node not supported yet, as the interconnection among nodes are non-trivial"
              " on RunPod.",
    "vast": "Multi-node not supported yet, as the interconnection among nodes are non-trivial"
            " on Vast.",
    "verda": "Multi-node not supported yet, as the interconnection among nodes are non-trivial"
             " on Verda.",
    "primeintellect": "Multi-node not supported yet.",
    "hyperbolic": "Multi-node not supported.",
    "seeweb": "Multi-node not supported. Seeweb does not support multi-node clusters.",
    "shadeform": "Multi-node clusters not supported on Shadeform.",
}

SKYPILOT_CLOUDS = {"aws", "azure", "cudo", "do", "fluidstack", "gcp", "hyperbolic", "ibm",
                   "kubernetes", "lambda", "mithril", "nebius", "oci", "paperspace",
                   "primeintellect", "runpod", "scp", "seeweb", "shadeform", "slurm", "ssh",
                   "vast", "verda", "vsphere", "yotta"}


def test_every_cloud_of_the_file_is_a_cloud_skypilot_registers():
    assert set(NAMING.clouds) <= SKYPILOT_CLOUDS
    assert {"aws", "gcp", "azure", "lambda", "runpod", "vast", "verda", "nebius", "do"} <= set(
        NAMING.clouds)


def test_every_name_used_without_a_cloud_is_one_a_skypilot_catalog_lists():
    # A task without `infra` asks for this name; SkyPilot looks it up in common/accelerators.csv.
    unknown = {gpu: name for gpu, name in NAMING.any.items() if name not in ACCELERATOR_CLOUDS}
    assert unknown == {}


def test_rtx_5080_has_no_cloudless_name_because_no_catalog_rents_it():
    # RunPod's provisioner knows "RTX5080", but no hosted catalog lists it (checked above).
    assert "RTX5080" in RUNPOD_PROVISIONER_NAMES and "RTX5080" not in ACCELERATOR_CLOUDS
    assert "rtx-5080" not in NAMING.any


@pytest.mark.parametrize("cloud", sorted(c for c in NAMING.clouds if c != "verda"))
def test_every_per_cloud_name_is_listed_for_that_cloud(cloud):
    names = NAMING.clouds[cloud].accelerators
    wrong = {gpu: name for gpu, name in names.items()
             if cloud not in ACCELERATOR_CLOUDS.get(name, set())}
    assert wrong == {}


def test_verda_names_and_count_names_are_those_of_its_catalog():
    verda = NAMING.clouds["verda"]
    assert set(verda.accelerators.values()) <= VERDA_NAMES
    assert set(verda.count_names.values()) <= VERDA_NAMES
    assert verda.accelerator("a100-sxm-80gb", 8) == "A100-80GB-640GB"  # 8 x 80 GB


def test_runpod_names_are_ones_its_provisioner_can_launch():
    runpod = NAMING.clouds["runpod"].accelerators
    assert set(runpod.values()) <= RUNPOD_PROVISIONER_NAMES
    # The H200 NVL is in RunPod's catalog but not in GPU_NAME_MAP: left out on RunPod and, with
    # no cloud pinned, asked for under Vast's name for it.
    assert "h200-nvl" not in runpod
    assert NAMING.any["h200-nvl"] == "H200"


def test_every_gpu_a_cloud_rents_has_a_cloudless_name_too():
    rented = {gpu for cloud in NAMING.clouds.values() for gpu in cloud.accelerators}
    assert sorted(rented - set(NAMING.any)) == []


def test_every_gpu_id_of_the_file_is_a_catalog_gpu():
    ids = set(NAMING.any) | {g for c in NAMING.clouds.values() for g in c.accelerators}
    assert sorted(ids - set(GPUS)) == []


@pytest.mark.parametrize("cloud", sorted(SINGLE_NODE_REASONS))
def test_single_node_clouds_carry_skypilots_own_reason(cloud):
    sky_cloud = NAMING.clouds[cloud]
    assert not sky_cloud.multi_node
    assert sky_cloud.multi_node_reason == SINGLE_NODE_REASONS[cloud]


def test_the_other_clouds_run_multi_node_clusters():
    multi = {name for name, c in NAMING.clouds.items() if c.multi_node}
    assert multi == set(NAMING.clouds) - set(SINGLE_NODE_REASONS)
