"""llama.cpp's --fit (on by default since late 2025): what the user leaves unset is set so
that each GPU keeps 1 GiB free: every layer when that fits, else the experts of an MoE go
to host memory layer by layer, then whole layers (the output layer first). Each answer is
checked against the estimate of the same plan with those settings given by hand."""

from __future__ import annotations

from gpuadvisor import catalog
from gpuadvisor.cli import main
from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS as A
from gpuadvisor.core.engines.llamacpp import FIT_TARGET_MIB
from gpuadvisor.core.estimate import estimate
from gpuadvisor.core.plan import Plan

MODELS, GPUS = catalog.load_models(), catalog.load_gpus()
MARGIN = FIT_TARGET_MIB * 1024**2


def plan(**fields):
    return Plan(**(dict(task="infer", framework="llama.cpp", quant="q4_k_m", seq_len=4096,
                        new_tokens=256) | fields))


def free(model, p, gpu):
    e = estimate(model, p, gpu)
    return gpu.usable_bytes - e.memory.total, e


def test_a_model_that_leaves_the_margin_keeps_every_layer():
    gpu, model = GPUS["rtx-4090"], MODELS["llama-3.1-8b"]
    left, e = free(model, plan(), gpu)
    assert e.engine.settings["n_gpu_layers"] == 33 and left >= MARGIN


def test_a_dense_model_too_big_keeps_as_many_layers_as_leave_1_gib():
    gpu, model = GPUS["rtx-3060-12gb"], MODELS["llama-3.1-70b"]
    _, e = free(model, plan(), gpu)
    ngl = e.engine.settings["n_gpu_layers"]
    assert 0 < ngl < model.n_layers  # the output layer went first, then layers
    # the same plan with -ngl given: the same memory; one layer more breaks the margin
    left, given = free(model, plan(gpu_layers=ngl), gpu)
    assert given.memory.total == e.memory.total and left >= MARGIN
    more, _ = free(model, plan(gpu_layers=ngl + 1), gpu)
    assert more < MARGIN
    assert e.fits and "llama.cpp --fit" in e.assumptions["engine_n_gpu_layers_source"]


def test_an_moe_model_sends_experts_to_host_ram_before_any_layer():
    gpu, model = GPUS["rtx-3060-12gb"], MODELS["qwen3-30b-a3b"]
    n = model.n_layers
    _, e = free(model, plan(), gpu)
    k = e.engine.settings["n_cpu_moe"]
    assert e.engine.settings["n_gpu_layers"] == n + 1 and 0 < k < n
    left, given = free(model, plan(gpu_layers=n + 1, n_cpu_moe=k), gpu)
    assert given.memory.total == e.memory.total and left >= MARGIN
    fewer, _ = free(model, plan(gpu_layers=n + 1, n_cpu_moe=k - 1), gpu)
    assert fewer < MARGIN
    # decode reads the host-side experts its tokens route to, at host bandwidth
    assert e.engine.decode.host_read_bytes > 0


def test_unified_memory_and_ollama_keep_their_own_rules():
    # on an Apple GPU the host's memory is the GPU's: every layer stays
    _, e = free(MODELS["llama-3.1-70b"], plan(), GPUS["m2-max"])
    assert e.engine.settings["n_gpu_layers"] == MODELS["llama-3.1-70b"].n_layers + 1
    # Ollama places layers by its own estimate (llm/memory.go), not by --fit
    _, o = free(MODELS["llama-3.1-70b"], plan(framework="ollama"), GPUS["rtx-3060-12gb"])
    assert "Ollama" in o.assumptions["engine_n_gpu_layers_source"]


def test_the_export_runs_the_fitted_placement(capsys):
    code = main(["export", "llama-server", "--model", "qwen3-30b-a3b", "--task", "infer",
                 "--quant", "q4_k_m", "--gpu", "rtx-3060-12gb", "--seq", "4096"])
    out = capsys.readouterr().out
    _, e = free(MODELS["qwen3-30b-a3b"], plan(), GPUS["rtx-3060-12gb"])
    s = e.engine.settings
    assert code == 0
    assert f"-ngl {s['n_gpu_layers']} " in out and f"--n-cpu-moe {s['n_cpu_moe']} " in out


def test_ollama_places_layers_by_its_release():
    import pytest

    from gpuadvisor.core.engines import llamacpp
    from gpuadvisor.core.model import model_shape

    gpu, model = GPUS["rtx-3060-12gb"], MODELS["llama-3.1-70b"]
    shape = model_shape(model)
    # the same context both ways: Ollama's num_ctx = the plan's prompt + new tokens
    ollama = dict(framework="ollama", num_ctx=4096 + 256)
    fit = llamacpp.evaluate(shape, plan(), gpu, A)
    current = llamacpp.evaluate(shape, plan(**ollama), gpu, A, ollama=True)
    # Ollama 0.30 on runs llama-server without -ngl: its --fit places the layers
    assert current.settings["n_gpu_layers"] == fit.settings["n_gpu_layers"]
    assert "0.30 on" in current.defaults["n_gpu_layers"]
    older = llamacpp.evaluate(shape, plan(engine_version="0.11.4", **ollama), gpu, A,
                              ollama=True)
    assert "llm/memory.go" in older.defaults["n_gpu_layers"]
    # memory.go sets aside its own graph estimate (fs/ggml GraphSize, llama), here the
    # vocabulary side of the partial-offload graph: 4 x 512 x 8192 + 4 x 512 x (8192 +
    # 128,256) + 8192 x 128,256 x 105/128 bytes (1.08 GiB; llama.cpp's buffer is far smaller)
    graph = 4 * 512 * 8192 + 4 * 512 * (8192 + 128_256) + 8192 * 128_256 * 105 // 128
    assert older.settings["ollama_graph"] == graph
    assert older.activations < graph / 2
    # and one layer's size as a margin, where --fit keeps 1 GiB free: no more layers than
    # the current release on this card
    assert older.settings["n_gpu_layers"] <= current.settings["n_gpu_layers"]
    with pytest.raises(ValueError, match="engine_version is a vLLM or Ollama setting"):
        plan(engine_version="0.11.4")  # llama.cpp


def test_check_log_reads_an_old_ollama_log_by_the_rules_of_its_time():
    from pathlib import Path

    from gpuadvisor.probes.logcheck import PRE_FIT_OLLAMA, plan_of
    from gpuadvisor.probes.logread import read_log

    log = Path(__file__).parent / "probes/logs/ollama-rtx4060-laptop-phi4-partial.log"
    reading = read_log(log.read_text(encoding="utf-8"), log.name)
    found, assumed = plan_of(reading, Plan(task="infer"))
    # it prints llm/memory.go's estimate ("offload to cuda ... layers.offload=29"), no version
    assert reading.version is None
    assert found.framework == "ollama" and found.engine_version == PRE_FIT_OLLAMA
    assert any("before 0.30" in a for a in assumed)


def test_sweeps_keep_the_layers_where_the_engine_put_them_for_the_plan():
    from gpuadvisor.core.engines import sweep
    from gpuadvisor.core.model import model_shape

    gpu, model = GPUS["rtx-3090"], MODELS["llama-3.1-8b"]
    shape, p = model_shape(model), plan()
    pinned = sweep.placed(shape, p, gpu, A)
    assert (pinned.gpu_layers, pinned.n_cpu_moe) == (33, 0)  # every layer, as estimated
    # a million tokens of context: --fit would move layers out until it "fit"; at the
    # plan's placement its KV cache does not fit the card
    _, fits = sweep.along(shape, p, gpu, A, "seq_len", [4096, 1_000_000])
    assert list(fits) == [True, False]
    # the estimate of the long context itself still fits, by offloading layers
    assert estimate(model, plan(seq_len=1_000_000), gpu).engine.settings["n_gpu_layers"] < 33


def test_tied_embeddings_put_a_copy_of_token_embd_on_the_gpu_as_the_output():
    # Gemma 3 12B ties its output to token_embd: llama.cpp loads that tensor twice
    # (TENSOR_DUPLICATED), token_embd in host RAM and the output matrix with the output
    # layer, on the GPU when every layer is there. Q4_K_M keeps it in Q6_K (210 bytes per
    # 256 weights): 262,208 (its config.json vocab_size) x 3,840 x 210 / 256 bytes on each
    # side.
    from gpuadvisor.core.engines import llamacpp
    from gpuadvisor.core.model import model_shape

    shape = model_shape(MODELS["gemma-3-12b"])
    result = llamacpp.evaluate(shape, plan(), GPUS["h100-sxm"], A)
    tied = 262_208 * 3_840 * 210 / 256
    dense, _experts, embd, out, rest = llamacpp._layer_split(shape, "q4_k_m", 0)
    assert embd == tied and out == 0.0  # the file holds it once
    assert result.settings["n_gpu_layers"] == shape.n_layers + 1
    projector = llamacpp.PROJECTOR_BYTES_PER_PARAM * shape.params.vision
    assert result.weights == sum(dense) + tied + rest + projector
    assert result.terms["host_weights"] == tied  # token_embd itself stays on the CPU
