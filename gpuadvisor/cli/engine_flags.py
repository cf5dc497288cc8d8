"""The inference-engine flags of ``estimate`` (and every verb built on its parser): llama.cpp
and Ollama's layers, MoE offload, backend and context, vLLM's memory share, scheduler budget,
CUDA graphs and release, the serving targets and the host's bandwidth."""

from __future__ import annotations

import argparse

from .args import engine_version, fraction, int_in, positive_float


def add_engine_flags(est: argparse.ArgumentParser) -> None:
    """Add the "inference engine" group to ``est`` (see :mod:`gpuadvisor.cli.estimate`)."""
    from gpuadvisor.core import limits as L
    from gpuadvisor.core import plan as P

    eng = est.add_argument_group(
        "inference engine",
        "llama.cpp/Ollama, vLLM and ExLlamaV2 settings (see --framework)")
    eng.add_argument("--gpu-layers", type=int_in(0, 65_536), default=None, metavar="N",
                     help="llama.cpp -ngl / Ollama num_gpu: layers on the GPU, the rest in "
                          "host RAM (model layers + 1 includes the output layer; default: "
                          "all for llama.cpp, as many as fit for Ollama)")
    eng.add_argument("--n-cpu-moe", type=int_in(0, 65_536), default=0, metavar="N",
                     help="llama.cpp --n-cpu-moe: keep the experts of the first N layers "
                          "in host RAM")
    eng.add_argument("--gpu-memory-utilization", type=fraction, default=None, metavar="F",
                     help="vLLM: share of each GPU's memory it reserves (default 0.9)")
    eng.add_argument("--num-ctx", type=int_in(1, L.MAX_SEQ_TOKENS, tokens=True), default=None,
                     metavar="N", help="Ollama: its context, PARAMETER num_ctx (default: "
                     "Ollama's for the card's memory, up to the model's own context)")
    eng.add_argument("--max-num-batched-tokens", type=int_in(1, L.MAX_SEQ_TOKENS, tokens=True),
                     default=None, metavar="N",
                     help="vLLM: tokens per scheduler step, the size of its profiling pass "
                          "(default: the release's, 2,048 or 8,192 by the card)")
    eng.add_argument("--enforce-eager", action="store_true",
                     help="vLLM: no CUDA graphs (no graph memory; slower decoding)")
    eng.add_argument("--backend", choices=P.BACKENDS, default=None,
                     help="llama.cpp: the GPU backend it was built with (default: the card's "
                          "own, CUDA / ROCm / Metal; Vulkan elsewhere); Ollama takes only the "
                          "one it picks")
    eng.add_argument("--engine-version", type=engine_version, default=None, metavar="X.Y.Z",
                     help="vLLM or Ollama: the release whose memory rules apply (default: "
                          "the current one; vLLM before 0.8 profiles a whole max_model_len, "
                          "Ollama before 0.30 places layers by its own estimate)")
    eng.add_argument("--min-tokens-per-s", type=positive_float("--min-tokens-per-s", 100_000),
                     default=None, metavar="F",
                     help="vLLM / llama.cpp serving: the speed each user must keep (default: "
                          "reading speed, 5.3 tokens/s)")
    eng.add_argument("--max-first-token", type=positive_float("--max-first-token", 3600),
                     default=None, metavar="S",
                     help="vLLM / llama.cpp serving: the first token's ceiling in seconds "
                          "(default 1)")
    eng.add_argument("--host-bandwidth", type=positive_float("--host-bandwidth", 100_000),
                     default=None, metavar="GB/S",
                     help="host RAM bandwidth for layers kept on the CPU (default: assumed "
                          "from the GPU's class; a host-memory probe measures it)")


__all__ = ["add_engine_flags"]
