"""What inference engines load for a model preset: its serving identifiers.

A preset's numbers describe an architecture; to serve it, vLLM needs a Hugging Face repository,
llama.cpp a GGUF file and Ollama a library tag. :class:`ServingIds` holds those names as the
catalog gives them (``catalog/serving.toml``, each entry sourced), so the serving exports name
things that exist instead of the preset's own id.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .plan import GGUF_QUANTS


@dataclass(frozen=True)
class ServingIds:
    """The identifiers of one model preset.

    Attributes:
        hf_repo: the Hugging Face repository vLLM serves (``owner/name``; the instruct
            variant where one exists).
        ollama: the Ollama library tag of the preset's weights at the library's default
            quantization (``llama3.1:8b``), or None.
        ollama_quant: the GGUF type of that default tag (``q4_k_m``), or None.
        ollama_tags: other library tags by GGUF type.
        gguf_repo: a Hugging Face repository of GGUF files, or None.
        gguf_files: its file per GGUF type.
        source: where each was read.
    """

    hf_repo: str
    source: str
    ollama: str | None = None
    ollama_quant: str | None = None
    ollama_tags: Mapping[str, str] = field(default_factory=dict)
    gguf_repo: str | None = None
    gguf_files: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.ollama_quant is not None and self.ollama_quant not in GGUF_QUANTS:
            raise ValueError(f"ollama_quant: {self.ollama_quant!r} is not a GGUF type")
        for name in ("ollama_tags", "gguf_files"):
            unknown = sorted(set(getattr(self, name)) - set(GGUF_QUANTS))
            if unknown:
                raise ValueError(f"{name}: not GGUF types: {', '.join(unknown)}")

    def ollama_tag(self, quant: str | None) -> str | None:
        """The library tag of ``quant`` (None: the default tag), or None when the library
        has none."""
        if quant is None or quant == self.ollama_quant:
            return self.ollama
        return self.ollama_tags.get(quant)

    def gguf_file(self, quant: str | None) -> tuple[str, str] | None:
        """``(repository, file)`` of the GGUF of ``quant``, or None when none is known."""
        if self.gguf_repo is None or quant is None or quant not in self.gguf_files:
            return None
        return self.gguf_repo, self.gguf_files[quant]


__all__ = ["ServingIds"]
