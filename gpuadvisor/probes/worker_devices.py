"""The worker's handshake and devices: versions, accelerators, every device torch can use,
and the :class:`Device` a probe runs on.

Part of the probe worker (:mod:`gpuadvisor.probes.worker`, which re-exports these names
as the ``kit`` the kernels use). Like the worker it needs only the standard library and
the ``torch`` handed to it, runs on Python 3.8+, and never imports torch or gpuadvisor:
run by path, the worker imports it from its own folder.
"""

from __future__ import annotations

import os
import platform
import sys

from .worker_kit import PROTOCOL_VERSION, ProbeFailed

#: The largest share of the device's free memory one probe may take.
MEMORY_SHARE = 0.25


def hello_message(torch, torch_error: str | None) -> dict:
    """The ``hello`` message: versions, accelerators, devices."""
    versions = {"python": platform.python_version(), "torch": None, "cuda": None, "hip": None,
                "platform": platform.platform()}
    accelerators = {"cuda": False, "rocm": False, "mps": False, "xpu": False, "cpu": True}
    devices = []
    if torch is not None:
        versions["torch"] = str(torch.__version__)
        versions["cuda"] = getattr(torch.version, "cuda", None)
        versions["hip"] = getattr(torch.version, "hip", None)
        devices = list_devices(torch)
        kinds = {d["type"] for d in devices}
        accelerators.update(cuda="cuda" in kinds, rocm="rocm" in kinds, mps="mps" in kinds,
                            xpu="xpu" in kinds)
    else:
        devices = [cpu_device(None)]
    return {"type": "hello", "protocol": PROTOCOL_VERSION, "versions": versions,
            "accelerators": accelerators, "devices": devices, "torch_error": torch_error}


def list_devices(torch) -> list:
    """Every device torch can use, accelerators first, the CPU last."""
    devices = []
    try:
        if torch.cuda.is_available():
            kind = "rocm" if getattr(torch.version, "hip", None) else "cuda"
            for i in range(torch.cuda.device_count()):
                props = torch.cuda.get_device_properties(i)
                device = {"id": f"cuda:{i}", "type": kind, "name": props.name,
                          "memory_total_bytes": int(props.total_memory),
                          "capability": f"{props.major}.{props.minor}",
                          "multiprocessors": int(props.multi_processor_count)}
                l2 = getattr(props, "L2_cache_size", None)
                if l2:
                    device["l2_bytes"] = int(l2)
                uuid = getattr(props, "uuid", None)
                if uuid is not None:
                    device["uuid"] = str(uuid)
                devices.append(device)
    except Exception as exc:  # a broken driver: report it, keep the CPU
        print(f"worker: CUDA devices unavailable: {exc}", file=sys.stderr)
    try:
        xpu = getattr(torch, "xpu", None)
        if xpu is not None and xpu.is_available():
            for i in range(xpu.device_count()):
                props = xpu.get_device_properties(i)
                devices.append({"id": f"xpu:{i}", "type": "xpu", "name": props.name,
                                "memory_total_bytes": int(props.total_memory)})
    except Exception as exc:
        print(f"worker: XPU devices unavailable: {exc}", file=sys.stderr)
    try:
        if torch.backends.mps.is_available():
            device = {"id": "mps", "type": "mps", "name": "Apple GPU (MPS)"}
            recommended = getattr(torch.mps, "recommended_max_memory", None)
            if recommended is not None:
                device["memory_total_bytes"] = int(recommended())
            devices.append(device)
    except Exception as exc:
        print(f"worker: MPS unavailable: {exc}", file=sys.stderr)
    devices.append(cpu_device(torch))
    return devices


def cpu_device(torch) -> dict:
    total, available = host_memory()
    device = {"id": "cpu", "type": "cpu", "name": cpu_name(),
              "memory_total_bytes": total, "memory_free_bytes": available}
    if torch is not None:
        device["threads"] = int(torch.get_num_threads())
    return device


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "CPU"


def host_memory():
    """``(total_bytes, available_bytes)`` of host RAM; ``None`` where unknown."""
    try:
        info = {}
        with open("/proc/meminfo", encoding="utf-8") as meminfo:
            for line in meminfo:
                name, _, rest = line.partition(":")
                info[name] = int(rest.split()[0]) * 1024
        return info.get("MemTotal"), info.get("MemAvailable")
    except (OSError, ValueError, IndexError):
        pass
    try:
        page = os.sysconf("SC_PAGE_SIZE")
        return page * os.sysconf("SC_PHYS_PAGES"), page * os.sysconf("SC_AVPHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None, None


# --------------------------------------------------------------------------- devices
class Device:
    """The device the probes run on: its torch name, kind, and how to sync and size on it."""

    def __init__(self, torch, info: dict) -> None:
        self.torch = torch
        self.info = info
        self.id = info["id"]
        self.type = info["type"]
        self.name = info.get("name", self.id)
        self.kind = "cpu" if self.type == "cpu" else "gpu"

    def sync(self) -> None:
        torch = self.torch
        if self.type in ("cuda", "rocm"):
            torch.cuda.synchronize(self.id)
        elif self.type == "xpu":
            torch.xpu.synchronize(self.id)
        elif self.type == "mps":
            torch.mps.synchronize()

    def free_bytes(self) -> int | None:
        torch = self.torch
        try:
            if self.type in ("cuda", "rocm"):
                return int(torch.cuda.mem_get_info(self.id)[0])
            if self.type == "xpu" and hasattr(torch.xpu, "mem_get_info"):
                return int(torch.xpu.mem_get_info(self.id)[0])
            if self.type == "mps":
                total = self.info.get("memory_total_bytes")
                used = torch.mps.driver_allocated_memory()
                return int(total - used) if total else None
        except Exception:
            pass
        if self.type == "cpu":
            return host_memory()[1]
        return self.info.get("memory_total_bytes")

    def budget_bytes(self) -> int | None:
        """The most one probe may allocate: a safe share of the free memory."""
        free = self.free_bytes()
        return int(free * MEMORY_SHARE) if free else None

    def l2_bytes(self) -> int:
        return int(self.info.get("l2_bytes") or 0)

    def empty_cache(self) -> None:
        torch = self.torch
        try:
            if self.type in ("cuda", "rocm"):
                torch.cuda.empty_cache()
            elif self.type == "xpu":
                torch.xpu.empty_cache()
            elif self.type == "mps":
                torch.mps.empty_cache()
        except Exception:
            pass


def resolve_device(torch, spec: str, devices: list) -> Device:
    """The device named by ``spec``: ``auto``, ``cpu``, an index ``N`` (the N-th GPU), or a
    torch name such as ``cuda:1``, ``xpu:0``, ``mps``. Raises ProbeFailed("bad-device")."""
    by_id = {d["id"]: d for d in devices}
    gpus = [d for d in devices if d["type"] != "cpu"]
    spec = (spec or "auto").strip().lower()
    if spec == "auto":
        return Device(torch, gpus[0] if gpus else by_id["cpu"])
    if spec.isdigit():
        index = int(spec)
        if not gpus:
            raise ProbeFailed("bad-device", f"--device {spec}: torch sees no GPU here (a "
                                            "CPU-only torch build?); use --device cpu")
        if index >= len(gpus):
            raise ProbeFailed("bad-device", f"--device {spec}: torch sees {len(gpus)} GPU(s): "
                              + ", ".join(d["id"] for d in gpus))
        return Device(torch, gpus[index])
    if spec in ("cuda", "xpu"):
        spec += ":0"
    if spec not in by_id:
        raise ProbeFailed("bad-device", f"--device {spec}: not available here; torch sees "
                          + ", ".join(by_id))
    return Device(torch, by_id[spec])
