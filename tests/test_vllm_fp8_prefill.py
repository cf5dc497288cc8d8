"""vLLM runs FP8 weights as W8A8 on cards with fp8 units (Ada, Hopper, Blackwell: compute
capability 8.9 on), so the prompt's GEMMs run at the fp8 rate; older cards run FP8 Marlin,
weight-only, at the 16-bit rate (vLLM docs, features/quantization/fp8.md "FP8 W8A8")."""

from __future__ import annotations

import json

import pytest

from tests.cli_run import run_cli


def _estimate(*flags):
    code, out, err = run_cli("estimate", "--model", "llama-3.1-8b", "--task", "infer",
                             "--framework", "vllm", "--seq", "2048", "--json", "--no-measured",
                             *flags)
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize(("gpu", "dtype"), [("h100-sxm", "fp8"), ("gb10", "fp8"),
                                            ("rtx-4090", "fp8"), ("a100-sxm-80gb", "bf16")])
def test_fp8_weights_prefill_at_the_fp8_rate_where_the_card_has_it(gpu, dtype):
    est = _estimate("--quant", "fp8", "--gpu", gpu)
    assert est["assumptions"]["peak_tflops_dtype"] == dtype


def test_the_prompt_takes_the_16_bit_time_over_the_rate_ratio():
    """The same prompt's FLOPs at twice the peak: half the prefill time (GB10: fp8 250,
    bf16 125 TFLOPS)."""
    fp8 = _estimate("--quant", "fp8", "--gpu", "gb10")["time"]["prefill_seconds"]
    bf16 = _estimate("--gpu", "gb10")["time"]["prefill_seconds"]
    assert bf16 / fp8 == pytest.approx(250 / 125, rel=0.02)


def test_a_dgx_spark_prefills_as_lmsys_measured():
    """LMSYS, 'NVIDIA DGX Spark In-Depth Review' (lm-sys/lm-sys.github.io
    blog/2025-10-13-nvidia-dgx-spark.md @304936053ec4): Llama 3.1 8B FP8 on SGLang, batch 1,
    prefill 7,991 tokens/s."""
    est = _estimate("--quant", "fp8", "--gpu", "gb10")
    assert 2048 / est["time"]["prefill_seconds"] == pytest.approx(7991, rel=0.10)
