"""Shared inputs for the export tests: catalog GPUs and models, and an offer factory."""

from __future__ import annotations

import pytest

from gpuadvisor import catalog
from gpuadvisor.core.offers import Offer


@pytest.fixture(scope="session")
def gpus():
    return catalog.load_gpus()


@pytest.fixture(scope="session")
def models():
    return catalog.load_models()


def make_offer(**fields) -> Offer:
    """A rent offer for an A100 80GB SXM 8-GPU instance unless ``fields`` say otherwise."""
    base = dict(id="test-a100-80gb-x8", kind="cloud", gpu_id="a100-sxm-80gb", provider="AWS",
                price_usd=4.1, as_of="2025-06-01", source="test", gpus_per_instance=8,
                instance="p4de.24xlarge", region="us-east-1", spot=False)
    base.update(fields)
    return Offer(**base)
