"""Inference with a GGUF file holds its tensors as stored: the weights term is the file's
exact tensor bytes, not parameters x a dtype. Needs core's hook (ModelSpec and ModelShape
``weights_file_bytes``, read by memory.weight_bytes for inference plans)."""

from __future__ import annotations

from dataclasses import fields, replace

import pytest

from gpuadvisor.core.memory import memory_breakdown
from gpuadvisor.core.model import ModelSpec, model_shape
from gpuadvisor.core.plan import Plan
from gpuadvisor.localmodels import resolve_model_ref

from .gguf_bytes import TINY_PARAMS, TINY_WEIGHT_BYTES, write_tiny_llama

pytestmark = pytest.mark.skipif(
    "weights_file_bytes" not in {f.name for f in fields(ModelSpec)},
    reason="core does not carry a file's weight bytes yet (ModelSpec.weights_file_bytes)")


def test_inference_holds_the_files_exact_weight_bytes(tmp_path):
    spec = resolve_model_ref(str(write_tiny_llama(tmp_path / "tiny-Q4_K_M.gguf")))
    assert spec.weights_file_bytes == TINY_WEIGHT_BYTES
    assert memory_breakdown(spec, Plan(task="infer")).weights == TINY_WEIGHT_BYTES
    # Two GPUs serving it split the file's tensors (tensor parallelism).
    assert memory_breakdown(spec, Plan(task="infer", n_gpus=2)).weights == TINY_WEIGHT_BYTES / 2
    # Training starts from the architecture, not from the quantized file: 16-bit weights.
    assert memory_breakdown(spec, Plan(task="full", precision="bf16-pure")).weights == (
        2 * TINY_PARAMS)


def test_the_file_bytes_make_two_specs_two_shapes(tmp_path):
    # The shape cache compares specs: a file's bytes must take part (extra does not).
    spec = resolve_model_ref(str(write_tiny_llama(tmp_path / "tiny.gguf")))
    plain = replace(spec, weights_file_bytes=0)
    assert plain != spec
    assert model_shape(spec).weights_file_bytes == TINY_WEIGHT_BYTES
    assert model_shape(plain).weights_file_bytes == 0
