"""What a log says, as :func:`gpuadvisor.probes.logread.read_log` records it: the reading
itself, its error, and the byte units engines print (shared by each engine's reader)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: What :func:`read_log` tells apart.
ENGINES = ("vllm", "llama.cpp", "ollama", "torch")

UNITS = {"b": 1, "bytes": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12, "kib": 2**10,
          "mib": 2**20, "gib": 2**30, "tib": 2**40, "k": 2**10, "m": 2**20, "g": 2**30}
SIZE = r"([0-9][0-9,]*(?:\.[0-9]+)?)\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)"


class LogError(ValueError):
    """A log that cannot be read: says what is wrong and where."""


@dataclass
class LogReading:
    """What one log says.

    Attributes:
        engine: one of :data:`ENGINES`.
        source: where the log came from (a path, ``-`` for standard input).
        version: the engine's version when the log prints it.
        model: the model as the log names it (a Hub id, a path, an Ollama blob, a GGUF's
            ``general.name``).
        gpu_name: the device as the log names it (``NVIDIA GeForce RTX 3090``).
        settings: the engine settings the log states (``tensor_parallel_size``,
            ``max_model_len``, ``gpu_memory_utilization``, ``kv_cache_dtype``,
            ``enforce_eager``, ``quantization``, ``n_ctx``, ``n_parallel``,
            ``n_gpu_layers``, ``file_type``, ...).
        observed: the figures it reports, bytes unless the name says otherwise
            (``total_memory``, ``free_memory``, ``weights``, ``non_torch``,
            ``activation_peak``, ``kv_cache``, ``kv_tokens``, ``kv_blocks``,
            ``max_concurrency``, ``cuda_graphs``, ``gpu_layers``, ``model_layers``,
            ``gpu_model_buffer``, ``host_model_buffer``, ``compute_buffer``,
            ``peak_allocated``, ``peak_reserved``, ...).
        lines: figure or setting name -> the 1-based line it was read from.
        refused: the engine's own words when it refused to start, else ``None``.
    """

    engine: str
    source: str = "-"
    version: str | None = None
    model: str | None = None
    gpu_name: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    observed: dict[str, float] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    refused: str | None = None

    def set(self, name: str, value: Any, line: int, *, table: str = "observed",
            first: bool = False) -> None:
        """Record ``name`` (the last value wins unless ``first``)."""
        target = self.observed if table == "observed" else self.settings
        if first and name in target:
            return
        target[name] = value
        self.lines[name] = line

    def to_json(self) -> dict[str, Any]:
        return {"engine": self.engine, "source": self.source, "version": self.version,
                "model": self.model, "gpu_name": self.gpu_name,
                "settings": dict(self.settings), "observed": dict(self.observed),
                "lines": dict(self.lines), "refused": self.refused}


def size_bytes(number: str, unit: str) -> float:
    """``("4,403.49", "MiB")`` -> bytes."""
    return float(number.replace(",", "")) * UNITS[unit.lower()]


def number(text: str) -> float:
    return float(text.replace(",", ""))



__all__ = ["ENGINES", "SIZE", "UNITS", "LogError", "LogReading", "number", "size_bytes"]
