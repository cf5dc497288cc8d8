"""Inference engines as data and formulas: what each keeps in memory and what a token costs.

One module per engine (:mod:`.llamacpp` for llama.cpp and Ollama, :mod:`.vllm`,
:mod:`.exllamav2`, :mod:`.mlx`, :mod:`.transformers`), the shared records and the decode-time
formula in :mod:`.base`, GGUF file types in :mod:`.gguf_quant`, the choice of engine for a
plan (by the weights' format and the GPU's platform) in :mod:`.select`, the engine's record
in the estimate in :mod:`.combine` and sweeps in :mod:`.sweep`. Pure: numbers in, numbers
out; nothing of ours outside :mod:`gpuadvisor.core` is imported.

This ``__init__`` imports nothing, so :mod:`gpuadvisor.core.quant` can read
:mod:`.gguf_quant` without a cycle (the engine modules import :mod:`gpuadvisor.core.memory`,
which imports :mod:`gpuadvisor.core.quant`). Import the submodules themselves.
"""
