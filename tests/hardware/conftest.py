"""Fixtures for hardware tests: the fake pynvml injected at import, a fake /sys tree."""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import ModuleType

import pytest

from gpuadvisor.hardware import nvml
from gpuadvisor.hardware.base import HostInfo
from tests.fakes import fake_pynvml

NO_ENV = nvml.Environment()
HOST = HostInfo(cpu_model="Test CPU", cpu_cores_logical=8, ram_total_bytes=64 * 1024**3)


@pytest.fixture(autouse=True)
def _fresh_nvml_session(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with NVML not initialised, no deprecated-pynvml hint from the venv,
    and no CUDA_VISIBLE_DEVICES / CUDA_DEVICE_ORDER from the shell that runs the tests."""
    monkeypatch.setattr(nvml, "_session", {"module": None, "refs": 0})
    monkeypatch.setattr(nvml, "deprecated_pynvml_hint", lambda *a, **k: None)
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    monkeypatch.delenv("CUDA_DEVICE_ORDER", raising=False)


@pytest.fixture
def install_nvml(monkeypatch: pytest.MonkeyPatch) -> Callable[..., ModuleType]:
    """``install_nvml(devices, **options)`` puts a fake ``pynvml`` in ``sys.modules``."""

    def install(devices=None, **options) -> ModuleType:
        module = fake_pynvml.make_module(devices, **options)
        monkeypatch.setitem(sys.modules, "pynvml", module)
        return module

    return install


@pytest.fixture
def no_nvml(install_nvml) -> ModuleType:
    """pynvml imports, but libnvidia-ml is missing (the usual state of a machine without NVIDIA)."""
    return install_nvml([], init_error=fake_pynvml.NVML_ERROR_LIBRARY_NOT_FOUND)
