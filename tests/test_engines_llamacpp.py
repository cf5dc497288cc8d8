"""llama.cpp and Ollama: memory terms, -ngl and --n-cpu-moe splits, decode time by hand."""

from __future__ import annotations

import pytest

from gpuadvisor import catalog
from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS as A
from gpuadvisor.core.engines import llamacpp
from gpuadvisor.core.engines.base import GPU_CLASSES, host_memory
from gpuadvisor.core.estimate import estimate
from gpuadvisor.core.model import model_shape
from gpuadvisor.core.plan import Plan

MODELS = catalog.load_models()
GPUS = catalog.load_gpus()
H, F, L, V = 4096, 11008, 32, 32000  # Llama-2-7B
Q4_0 = 18 / 32
Q6_K = 210 / 256
LAYER_Q4_0 = (4 * H * H + 3 * H * F) * Q4_0 + 2 * H * 4  # matrices + two F32 norms


def llama7b():
    return model_shape(MODELS["llama-2-7b"])


def plan(**kw):
    base = dict(task="infer", framework="llama.cpp", quant="q4_0", seq_len=1, new_tokens=128)
    return Plan(**(base | kw))


def test_decode_time_by_hand_on_an_rtx_4090():
    gpu = GPUS["rtx-4090"]
    r = llamacpp.evaluate(llama7b(), plan(), gpu, A)
    cls = GPU_CLASSES["nvidia-gddr"]
    gpu_bytes = L * LAYER_Q4_0 + V * H * Q6_K + H * 4  # layers + output + output norm
    assert r.weights == pytest.approx(gpu_bytes)
    # one token attends to 1 + 64 cells on average (1 prompt token, 128 new): K and V rows
    # of 4096 fp16 elements in 32 layers
    kv_read = 2 * L * H * 2 * (1 + 128 / 2)
    # the card's own measured read (clpeak, krrishnarraj/clpeak#106), not its class's share
    assert gpu.stream_read_gb_s == 909.81
    memory_s = (gpu_bytes + kv_read) / 909.81e9
    kernels = L * (19 - 2 + 1 + 7) + 3 + 1  # nodes - fused norms + FA combine + q8_1, tail
    fixed = (kernels * cls.graph_gap_s + (L * 7 + 1) * cls.dram_latency_s
             + llamacpp.HOST_S_PER_TOKEN + llamacpp.SAMPLING_S_PER_VOCAB * V)
    result = estimate(MODELS["llama-2-7b"], plan(), gpu)
    assert result.time.decode_tokens_per_s == pytest.approx(1 / (memory_s + fixed), rel=1e-9)
    assert kernels == r.decode.kernels_per_step == 804


def test_gpu_layers_split_the_last_layers_onto_the_gpu():
    gpu = GPUS["rtx-3060-12gb"]
    r = llamacpp.evaluate(llama7b(), plan(gpu_layers=16, seq_len=2048), gpu, A)
    assert r.settings["n_gpu_layers"] == 16
    assert r.weights == pytest.approx(16 * LAYER_Q4_0)  # the output layer stays on the CPU
    embd, output = V * H * Q4_0, V * H * Q6_K + H * 4
    assert r.terms["host_weights"] == pytest.approx(16 * LAYER_Q4_0 + embd + output)
    # each token reads the 16 CPU layers and the output at host bandwidth
    host = host_memory(gpu)
    assert r.decode.host_bandwidth_gb_s == host.bandwidth_gb_s
    assert r.decode.host_read_bytes == pytest.approx(
        16 * LAYER_Q4_0 + output + r.terms["host_kv_cache"] / llamacpp.kv_cells(2048 + 128)
        * (2048 + 64), rel=1e-9)
    cells = llamacpp.kv_cells(2048 + 128)
    assert r.kv_cache == pytest.approx(16 * 2 * H * 2 * cells)  # GPU layers' KV only


def test_zero_gpu_layers_is_cpu_only_decode_at_host_bandwidth():
    gpu = GPUS["rtx-4090"]
    cpu = llamacpp.evaluate(llama7b(), plan(gpu_layers=0), gpu, A, host_bandwidth_gb_s=50.0)
    assert cpu.weights == 0.0
    assert cpu.decode.host_bandwidth_gb_s == 50.0
    result = estimate(MODELS["llama-2-7b"], plan(gpu_layers=0), gpu, host_bandwidth_gb_s=50)
    # all 32 layers + output (3.5 GB) at 50 GB/s: about 14 tokens/s
    assert 12 < result.time.decode_tokens_per_s < 15
    assert result.assumptions["engine_host_bandwidth_gb_s"] == 50.0


def test_more_gpu_layers_than_the_model_has_is_refused_by_name():
    with pytest.raises(ValueError, match=r"gpu_layers 40 exceeds llama-2-7b's 32 layers \(33"):
        llamacpp.evaluate(llama7b(), plan(gpu_layers=40), GPUS["rtx-4090"], A)
    llamacpp.evaluate(llama7b(), plan(gpu_layers=33), GPUS["rtx-4090"], A)  # with output


def test_n_cpu_moe_moves_the_first_layers_experts_to_host_ram():
    m = model_shape(MODELS["qwen3-30b-a3b"])
    gpu = GPUS["rtx-4090"]
    every = m.n_layers + 1  # -ngl 999: llama.cpp's --fit would move experts itself
    base = llamacpp.evaluate(m, plan(quant="q8_0", gpu_layers=every), gpu, A)
    moved = llamacpp.evaluate(m, plan(quant="q8_0", n_cpu_moe=12, gpu_layers=every), gpu, A)
    blk = m.block
    experts_per_layer = 3 * blk.experts * blk.d_model * blk.d_ff * 34 / 32  # Q8_0
    assert base.weights - moved.weights == pytest.approx(12 * experts_per_layer)
    # a token reads only its routed experts: 8 of 128 per layer
    routed = 1 - (1 - 8 / 128)
    assert moved.decode.host_read_bytes == pytest.approx(12 * experts_per_layer * routed)
    with pytest.raises(ValueError, match="no mixture-of-experts"):
        llamacpp.evaluate(llama7b(), plan(n_cpu_moe=4), gpu, A)


def test_q8_0_cache_is_34_bytes_per_32_elements():
    gpu = GPUS["rtx-4090"]
    f16 = llamacpp.evaluate(llama7b(), plan(seq_len=4000), gpu, A)
    q8 = llamacpp.evaluate(llama7b(), plan(seq_len=4000, kv_dtype="q8_0"), gpu, A)
    cells = 4352  # 4,128 tokens padded to 256
    assert f16.kv_cache == 2 * L * H * 2 * cells
    assert q8.kv_cache == pytest.approx(2 * L * H * cells * 34 / 32)


def test_compute_buffer_is_the_largest_live_set():
    m = model_shape(MODELS["llama-3.1-8b"])
    # flash attention: the logits of 512 tokens x 128,256 entries beat the MLP's 3 x 14,336
    fa = llamacpp.compute_buffer_bytes(m, 8192, flash=True)
    assert fa == 4 * (512 * 128256 + 2 * 512 * 4096)
    # without it the scores, 32 heads x 512 x 8192 (softmax in place), are larger still;
    # Ollama 0.5.4 printed "CUDA0 compute buffer size = 560.00 MiB" for this plan (within 6%)
    eager = llamacpp.compute_buffer_bytes(m, 8192, flash=False)
    assert eager == 4 * (32 * 512 * 8192 + 2 * 512 * 4096)
    assert eager / 2**20 == pytest.approx(560.0, rel=0.06)


@pytest.mark.parametrize("gpu_id, num_ctx", [("rtx-3060-12gb", 4096), ("rtx-4090", 32768),
                                             ("a100-sxm-80gb", 131072)])
def test_ollama_takes_its_context_by_vram_up_to_the_models(gpu_id, num_ctx):
    # Llama 3.1 8B holds 131,072 tokens: Ollama's 262,144 above 48 GiB is cut to that
    m = model_shape(MODELS["llama-3.1-8b"])
    assert m.max_positions == 131072
    r = llamacpp.evaluate(m, plan(framework="ollama"), GPUS[gpu_id], A, ollama=True)
    assert r.settings["num_ctx"] == num_ctx
    assert "num_ctx" in r.defaults


def test_ollama_cuts_its_default_context_to_the_models():
    # Llama 2 7B holds 4,096 tokens: on a 24 GiB card Ollama's 32,768 becomes 4,096
    r = llamacpp.evaluate(llama7b(), plan(framework="ollama"), GPUS["rtx-4090"], A, ollama=True)
    assert r.settings["num_ctx"] == 4096
    assert "cut to the model's 4,096-token context" in r.defaults["num_ctx"]
    assert llamacpp.ollama_num_ctx(GPUS["rtx-4090"], 100, 0)[0] == 32768  # unknown: default


@pytest.mark.parametrize(("version", "num_ctx"), [
    ("0.5.4", 2048),  # before 0.6.7: 2,048 tokens
    ("0.6.7", 4096), ("0.11.4", 4096),  # 0.6.7 to 0.15.4: 4,096
    ("0.15.5", 32768), (None, 32768),  # then by VRAM: a 24 GiB card gets 32,768
])
def test_ollamas_default_context_follows_its_release(version, num_ctx):
    m = model_shape(MODELS["llama-3.1-8b"])
    r = llamacpp.evaluate(m, plan(framework="ollama", engine_version=version),
                          GPUS["rtx-4090"], A, ollama=True)
    assert r.settings["num_ctx"] == num_ctx
    assert f"({num_ctx:,})" in r.defaults["num_ctx"]


def test_ollama_offloads_as_many_layers_as_fit():
    # 70B at Q4_K_M (39.6 GiB) on a 24 GiB card: some layers stay on the CPU
    m = model_shape(MODELS["llama-3.1-70b"])
    r = llamacpp.evaluate(m, plan(framework="ollama", quant="q4_k_m"), GPUS["rtx-4090"], A,
                          ollama=True)
    layers = r.settings["n_gpu_layers"]
    assert 0 < layers < 80
    assert r.weights + r.kv_cache + r.activations + r.overhead <= GPUS["rtx-4090"].memory_bytes


def test_apple_gpus_fit_in_the_wired_share():
    result = estimate(MODELS["llama-2-7b"], plan(), GPUS["m2-max"])
    assert result.capacity_bytes == pytest.approx(0.75 * GPUS["m2-max"].memory_bytes)


def test_a_gguf_quant_picks_llama_cpp_by_itself():
    result = estimate(MODELS["llama-2-7b"], Plan(task="infer", quant="q4_k_m"),
                      GPUS["rtx-4090"])
    assert result.engine_name == "llama.cpp"
    assert result.assumptions["engine_source"].startswith("auto")
    assert result.to_json()["engine"]["name"] == "llama.cpp"


def test_layer_split_over_two_gpus_halves_memory_not_time():
    # every layer on the GPUs (-ngl 81), as given: one card would not hold them
    one = estimate(MODELS["llama-3.1-70b"], plan(quant="q4_k_m", gpu_layers=81),
                   GPUS["rtx-4090"])
    two = estimate(MODELS["llama-3.1-70b"], plan(quant="q4_k_m", n_gpus=2, gpu_layers=81),
                   GPUS["rtx-4090"])
    assert two.memory.weights == pytest.approx(one.memory.weights / 2)
    # the GPUs take turns: a token still reads every layer, plus one more hand-over
    assert two.time.decode_tokens_per_s < one.time.decode_tokens_per_s
    assert two.time.decode_tokens_per_s == pytest.approx(one.time.decode_tokens_per_s,
                                                         rel=0.01)


def test_a_measured_bandwidth_replaces_the_class_streaming_rate():
    from gpuadvisor.core.calibration import Measurement

    gpu = GPUS["rtx-4090"]
    measured = Measurement(None, None, "2026-01-01T00:00:00Z", kind="bandwidth",
                           bandwidth_gb_s=900.0, gpu_id="rtx-4090")
    base = estimate(MODELS["llama-2-7b"], plan(), gpu)
    probed = estimate(MODELS["llama-2-7b"], plan(), gpu, measurement=measured)
    assert probed.assumptions["bandwidth_efficiency"] == 1.0
    assert probed.assumptions["memory_bandwidth_gb_s"] == 900.0
    # same fixed costs, bytes at 900 GB/s instead of the card's published 909.81
    fixed = base.engine.decode.fixed_s
    read = (1 / base.time.decode_tokens_per_s - fixed) * 909.81e9
    assert 1 / probed.time.decode_tokens_per_s == pytest.approx(read / 900e9 + fixed)


def test_ollama_num_ctx_given_sizes_the_kv_cache_and_stops_at_the_models_context():
    m = model_shape(MODELS["qwen3-8b"])  # 36 layers, 8 KV heads of 128, 40,960 tokens
    gpu = GPUS["rtx-3060-12gb"]
    r = llamacpp.evaluate(m, plan(framework="ollama", num_ctx=16384), gpu, A, ollama=True)
    assert r.settings["num_ctx"] == 16384 and "num_ctx" not in r.defaults
    # K and V of 36 layers x 8 heads x 128 at 2 bytes, for every one of the 16,384 cells
    assert r.kv_cache == pytest.approx(36 * 8 * 128 * 2 * 2 * 16384)
    cut = llamacpp.evaluate(m, plan(framework="ollama", num_ctx=100_000), gpu, A, ollama=True)
    assert cut.settings["num_ctx"] == 40960
    assert "cut to the model's 40,960-token context" in cut.defaults["num_ctx"]
    with pytest.raises(ValueError, match="num_ctx is an Ollama setting"):
        plan(framework="llama.cpp", num_ctx=8192)


def test_ollama_warns_when_num_ctx_is_shorter_than_the_plan():
    m = model_shape(MODELS["qwen3-8b"])
    r = llamacpp.evaluate(m, plan(framework="ollama", num_ctx=64), GPUS["rtx-4090"], A,
                          ollama=True)  # the plan holds 1 + 128 tokens
    assert any("num_ctx 64 holds fewer tokens than the plan's 129" in w for w in r.warnings)


def test_gguf_engines_compute_in_fp16_so_turing_is_not_timed_at_fp32():
    # ggml's CUDA kernels take fp16 activations: a bf16 plan on an RTX 2080 Ti (no bf16
    # units) prefills at the card's fp16 tensor rate, 53.8 TFLOPS, not its fp32 13.4
    from gpuadvisor.core.estimate import estimate

    plan = Plan(task="infer", framework="llama.cpp", quant="q4_k_m", seq_len=512, new_tokens=1)
    gpu = GPUS["rtx-2080-ti"]
    result = estimate(MODELS["llama-3.1-8b"], plan, gpu)
    assert result.assumptions["peak_tflops"] == 53.8 == gpu.fp16_tensor_tflops
    assert result.assumptions["peak_tflops_dtype"] == "fp16"
    assert not any("bf16" in w for w in result.warnings)


def test_a_vision_models_projector_sits_on_the_first_gpu_and_ollama_reserves_it():
    # Gemma 3 12B's 421,290,864-parameter vision tower in its f16 mmproj file: Ollama logs
    # it as "projector.weights=795.9 MiB" (ollama/ollama PR #12000, issue #9818)
    from dataclasses import replace as with_fields

    from gpuadvisor.core.model import model_shape

    spec = MODELS["gemma-3-12b"]
    m = model_shape(spec)
    plan = Plan(task="infer", framework="ollama", quant="q4_k_m", seq_len=2048,
                new_tokens=256)
    gpu = GPUS["rtx-3060-12gb"]
    r = llamacpp.evaluate(m, plan, gpu, A, ollama=True)
    projector = 2 * 421_290_864
    assert r.terms["projector"] == projector
    assert projector / 2**20 == pytest.approx(795.9, rel=0.01)
    bare = llamacpp.evaluate(model_shape(with_fields(spec, vision_params=0)), plan, gpu, A,
                             ollama=True)
    assert r.weights == pytest.approx(bare.weights + projector)
    # on a card the layers fill, the projector takes layers' room before them
    small = GPUS["rtx-3060-8gb"]
    with_tower = llamacpp.evaluate(m, plan, small, A, ollama=True)
    without = llamacpp.evaluate(model_shape(with_fields(spec, vision_params=0)), plan, small,
                                A, ollama=True)
    assert with_tower.settings["n_gpu_layers"] < without.settings["n_gpu_layers"]
