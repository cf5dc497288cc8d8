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
