"""Fixtures for the whole suite."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _private_data_dir(tmp_path_factory, monkeypatch):
    """Every test gets its own data folder: probe runs are never recorded in the real
    user's history, and no test reads it."""
    monkeypatch.setenv("GPUADVISOR_DATA_DIR", str(tmp_path_factory.mktemp("data")))


@pytest.fixture(autouse=True)
def _private_config_dir(tmp_path_factory, monkeypatch):
    """Every test gets its own settings folder: ``gpuadvisor probe --python`` remembers the
    interpreter there, never in the real user's settings."""
    monkeypatch.setenv("GPUADVISOR_CONFIG_DIR", str(tmp_path_factory.mktemp("config")))


@pytest.fixture(autouse=True)
def _no_installed_skypilot_catalog(tmp_path_factory, monkeypatch):
    """SkyPilot's runtime folder is an empty one: a catalog the machine's own SkyPilot has
    downloaded (~/.sky/catalogs) never changes what an export test sees. Tests of that
    catalog point ``SKY_RUNTIME_DIR`` at tests/export/skypilot_catalog."""
    monkeypatch.setenv("SKY_RUNTIME_DIR", str(tmp_path_factory.mktemp("sky")))
