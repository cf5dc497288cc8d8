"""Per-cloud truth in SkyPilot tasks: spot only where SkyPilot has it (skypilot==0.14.1,
sky/clouds/<cloud>.py: the clouds whose _unsupported_features_for_resources returns
SPOT_INSTANCE), and every spot offer of the catalog on a cloud that has spot."""

from __future__ import annotations

import contextlib
import io

import pytest

from gpuadvisor import catalog
from gpuadvisor.cli import main
from gpuadvisor.export.skypilot import _NAMING, skypilot_cloud

#: Clouds SkyPilot 0.14.1 refuses use_spot on, read from its wheel (commit 7e595970).
NO_SPOT = {"lambda", "do", "cudo", "fluidstack", "paperspace", "hyperbolic", "seeweb",
           "shadeform"}


def _cli(*argv: str) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, err.getvalue()


def test_the_naming_file_knows_which_clouds_refuse_spot():
    assert {name for name, c in _NAMING.clouds.items() if not c.spot} == NO_SPOT
    assert all(c.spot_reason for c in _NAMING.clouds.values() if not c.spot)


@pytest.mark.parametrize("cloud", sorted(NO_SPOT & {"lambda", "shadeform", "cudo"}))
def test_spot_on_a_cloud_without_it_is_refused_with_skypilots_reason(cloud):
    gpu = next(g for g in ("h100-sxm", "a100-sxm-80gb", "l40s", "rtx-a6000", "a40")
               if g in _NAMING.clouds[cloud].accelerators)
    code, err = _cli("export", "skypilot", "--model", "llama-3.1-8b", "--task", "qlora",
                     "--gpu", gpu, "--cloud", cloud, "--spot", "--no-measured")
    assert code == 2
    assert _NAMING.clouds[cloud].spot_reason in err and "runpod" in err


def test_every_spot_offer_is_on_a_cloud_with_spot():
    for offer in catalog.load_offers().values():
        cloud = skypilot_cloud(offer.provider) if offer.is_rent else None
        if offer.spot and cloud is not None:
            assert _NAMING.clouds[cloud].spot, offer.id
