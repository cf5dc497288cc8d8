"""An MoE decode step reads the always-used weights and the routed share of the experts, in
the bytes the engine stores them: a GGUF file keeps attention and the output at Q8_0 and the
experts at MXFP4, so the share must be taken of the file's own expert bytes, not of a 16-bit
total. Checked by hand and against llama.cpp's own DGX Spark bench."""

from __future__ import annotations

import pytest

from gpuadvisor import catalog
from gpuadvisor.core.inference_time import inference_time, routed_expert_fraction
from gpuadvisor.core.model import model_shape
from gpuadvisor.core.plan import Plan
from tests.cli_run import run_cli


def test_one_token_reads_k_of_e_experts():
    m = catalog.load_models()["gpt-oss-120b"]  # 4 of 128 experts per token
    assert routed_expert_fraction(m, 1) == pytest.approx(4 / 128)
    # b tokens leave an expert unread with probability (1 - k/E)^b
    assert routed_expert_fraction(m, 8) == pytest.approx(1 - (1 - 4 / 128) ** 8)


def test_the_decode_step_reads_the_rest_and_the_routed_experts():
    m = model_shape(catalog.load_models()["gpt-oss-120b"])
    plan = Plan(task="infer", seq_len=1, new_tokens=64, framework="llama.cpp")
    resident, experts, bw = 60e9, 56e9, 273.0
    t = inference_time(m, plan, peak_tflops=1e6, bandwidth_gb_s=bw, resident_bytes=resident,
                       expert_bytes=experts, kv_bytes_per_token=0.0)
    read = resident - experts + experts * 4 / 128
    eff = 0.8  # the default bandwidth efficiency without an engine's decode terms
    assert t.decode_tokens_per_s == pytest.approx(bw * 1e9 * eff / read, rel=1e-3)


@pytest.mark.parametrize(("model", "published"), [
    # ggml-org/llama.cpp benches/dgx-spark.md @4c7e9893 (build 6918, 2025-11-02): tg32
    ("gpt-oss-20b", 84.10),
    ("gpt-oss-120b", 59.02),
])
def test_llama_cpp_on_a_dgx_spark_decodes_as_its_bench(model, published):
    code, out, err = run_cli("estimate", "--model", model, "--task", "infer", "--framework",
                             "llama.cpp", "--gpu", "gb10", "--seq", "512", "--new-tokens",
                             "32", "--json", "--no-measured")
    assert code == 0, err
    import json

    got = json.loads(out)["time"]["decode_tokens_per_s"]
    assert got == pytest.approx(published, rel=0.10)


def test_unified_memory_offers_no_cpu_offload():
    """On a DGX Spark (or a Mac) the CPU's RAM is the GPU's memory: offloading to it frees
    nothing, so no offload lever is offered; a card's plan gets them."""
    from gpuadvisor.core.fit import levers

    model = catalog.load_models()["llama-3.1-70b"]
    plan = Plan(task="full")
    gpus = catalog.load_gpus()
    unified = {lv.id for lv in levers(model, plan, gpus["gb10"])}
    card = {lv.id for lv in levers(model, plan, gpus["h100-sxm"])}
    assert not {"offload", "offload_params"} & unified
    assert {"offload", "offload_params"} <= card


def test_mlx_is_apple_only_even_on_unified_memory():
    code, _, err = run_cli("estimate", "--model", "llama-3.1-8b", "--task", "infer",
                           "--framework", "mlx", "--gpu", "gb10", "--no-measured")
    assert code == 2 and "Apple silicon" in err
