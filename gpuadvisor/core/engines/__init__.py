"""Inference engines as data and formulas: what each keeps in memory and what a token costs.

One module per engine (:mod:`.llamacpp` for llama.cpp and Ollama, :mod:`.vllm`,
:mod:`.exllamav2`, :mod:`.mlx`, :mod:`.transformers`), the shared records and the decode-time
formula in :mod:`.base` (GGUF file types are a fact of the weights, in
:mod:`gpuadvisor.core.gguf_quant`), the choice of engine for a
plan (by the weights' format and the GPU's platform) in :mod:`.select`, the engine's record
in the estimate in :mod:`.combine` and sweeps in :mod:`.sweep`. Pure: numbers in, numbers
out; nothing of ours outside :mod:`gpuadvisor.core` is imported.

The engines sit in the timing layer: they import the spec and sizing modules below them
(:mod:`gpuadvisor.core.memory`, :mod:`gpuadvisor.core.compute`), and only
:mod:`gpuadvisor.core.estimate` and the layers above import them (import-linter's
``layers`` contract in pyproject.toml). This ``__init__`` imports nothing; import the
submodules themselves.
"""
