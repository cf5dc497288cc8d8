"""llama.cpp's GPU backend as a plan setting (``--backend cuda|rocm|vulkan|metal``): which
cards take which backend, Ollama's own pick, the decode step by hand on CUDA and Vulkan, and
the flag at every door (estimate, its JSON, export llama-server, the reproducing line)."""

from __future__ import annotations

import json

import pytest

from gpuadvisor import catalog
from gpuadvisor.cli import main
from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS as A
from gpuadvisor.core.engines import llamacpp, llamacpp_backends
from gpuadvisor.core.engines.base import GPU_CLASSES
from gpuadvisor.core.engines.select import engine_for
from gpuadvisor.core.estimate import estimate
from gpuadvisor.core.model import model_shape
from gpuadvisor.core.plan import Plan
from gpuadvisor.workspace.plan_changes import couple_plan_changes

MODELS = catalog.load_models()
GPUS = catalog.load_gpus()
LAYERS = 32  # Llama 3.1 8B


def plan(**kw):
    base = dict(task="infer", framework="llama.cpp", quant="q4_k_m", seq_len=512,
                new_tokens=128)
    return Plan(**(base | kw))


def shape():
    return model_shape(MODELS["llama-3.1-8b"])


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(("changes", "field"), [
    (dict(backend="opencl"), "backend must be one of cuda, rocm, vulkan, metal"),
    (dict(task="full", framework="hf", quant=None), "backend is for inference plans"),
    (dict(framework="vllm", quant=None), "backend is a llama.cpp/Ollama setting"),
])
def test_the_plan_refuses_a_backend_it_cannot_have(changes, field):
    with pytest.raises(ValueError, match=field):
        plan(backend="vulkan", **changes) if "backend" not in changes else plan(**changes)


def test_a_backend_alone_picks_llama_cpp():
    engine, why = engine_for(plan(framework="auto", quant=None, backend="vulkan"), shape())
    assert engine == "llama.cpp" and "backend" in why


def test_vulkan_on_an_nvidia_card_launches_kernel_by_kernel_without_the_quantize_kernels():
    gpu = GPUS["rtx-4090"]
    cuda = llamacpp.evaluate(shape(), plan(), gpu, A)
    vulkan = llamacpp.evaluate(shape(), plan(backend="vulkan"), gpu, A)
    assert cuda.settings["backend"] == "cuda" and cuda.settings["cuda_graphs"] is True
    assert vulkan.settings["backend"] == "vulkan" and vulkan.settings["cuda_graphs"] is False
    assert "backend" in cuda.defaults and "backend" not in vulkan.defaults
    # Per layer with flash attention: 19 graph nodes - 2 + 1 and, on CUDA, one activation
    # quantization before each of the 7 matrices: 25 kernels on CUDA, 18 on Vulkan; the
    # tail is the output norm, (quantize,) output projection, + 1.
    assert cuda.decode.kernels_per_step == LAYERS * 25 + 3 + 1
    assert vulkan.decode.kernels_per_step == LAYERS * 18 + 2 + 1
    cls = GPU_CLASSES["nvidia-gddr"]
    assert cuda.decode.kernel_gap_s == cls.graph_gap_s
    assert vulkan.decode.kernel_gap_s == cls.stream_gap_s
    # Same bytes, same weight kernels: the steps differ by the launch gaps alone.
    fast = estimate(MODELS["llama-3.1-8b"], plan(), gpu).time.decode_tokens_per_s
    slow = estimate(MODELS["llama-3.1-8b"], plan(backend="vulkan"), gpu).time \
        .decode_tokens_per_s
    gaps = (LAYERS * 18 + 3) * cls.stream_gap_s - (LAYERS * 25 + 4) * cls.graph_gap_s
    assert 1 / slow - 1 / fast == pytest.approx(gaps, rel=1e-6)


#: Each card's CUDA graphs by build: (before PR #6766, May 2024 - July 2026, current).
@pytest.mark.parametrize(("gpu_id", "by_build"), [
    ("p40", (False, False, False)),            # Pascal, 6.1: still off
    ("v100-pcie-16gb", (False, False, True)),  # Volta, 7.0: on since PR #25749
    ("t4", (False, False, True)),              # Turing, 7.5
    ("rtx-2080-ti", (False, False, True)),     # Turing, 7.5
    ("rtx-3090", (False, True, True)),         # Ampere, 8.6: on since PR #6766
    ("a100-sxm-80gb", (False, True, True)),    # Ampere, 8.0
    ("h100-sxm", (False, True, True)),         # Hopper, 9.0
])
def test_cuda_graphs_follow_the_build_and_the_compute_capability(gpu_id, by_build):
    """ggml-cuda.cu turns CUDA graphs off below a compute capability
    (``disable_due_to_gpu_arch``): none before PR #6766 (merged 2024-05-08), below Ampere
    (8.0) until PR #25749 (merged 2026-07-16), below Volta (7.0) since. A card without
    them launches each kernel from the stream, at the stream's gap per kernel."""
    gpu = GPUS[gpu_id]
    cls = GPU_CLASSES["nvidia-hbm" if "HBM" in gpu.memory_type.upper() else "nvidia-gddr"]
    for build, graphs in zip(("2024-03-01", "2026-04-05", None), by_build, strict=True):
        assert llamacpp.cuda_graphs_on(gpu, build) is graphs, build
        r = llamacpp.evaluate(shape(), plan(), gpu, A, build_date=build)
        assert r.settings["cuda_graphs"] is graphs
        assert r.decode.kernel_gap_s == (cls.graph_gap_s if graphs else cls.stream_gap_s)
    # the day each rule came in is its first
    assert llamacpp.cuda_graphs_on(GPUS["t4"], "2026-07-15") is False
    assert llamacpp.cuda_graphs_on(GPUS["t4"], "2026-07-16") is True
    assert llamacpp.cuda_graphs_on(GPUS["rtx-3090"], "2024-05-07") is False
    assert llamacpp.cuda_graphs_on(GPUS["rtx-3090"], "2024-05-08") is True


@pytest.mark.parametrize("gpu_id", ["rtx-4090", "m3-max", "rx-7900-xtx"])
def test_host_work_per_token_follows_graph_reuse(gpu_id):
    """Issue #7456 (May 2024 builds, NVIDIA's own timings): 10-15% of a 6.1 ms token on an
    H100 was CPU work, mostly rebuilding the graph each token; PR #8366 timed the rebuild at
    3-7% (4% RTX 4090, 6% H100 SXM), which builds skip since graph reuse became the default
    (August 2025). Every backend rebuilt the same graph, so the rule is not CUDA's alone."""
    rebuilding = 0.125 * 6.1e-3          # the middle of 10-15% of 6.1 ms
    current = 0.07 * 6.1e-3              # 10-15% less 3-7%: ~7%
    assert llamacpp.host_s_per_token("2025-07-31") == pytest.approx(rebuilding)
    assert llamacpp.host_s_per_token("2025-08-01") == pytest.approx(current, abs=0.03e-3)
    assert llamacpp.host_s_per_token(None) == llamacpp.host_s_per_token("2026-12-01")
    old = llamacpp.evaluate(shape(), plan(), GPUS[gpu_id], A, build_date="2024-11-02")
    new = llamacpp.evaluate(shape(), plan(), GPUS[gpu_id], A)
    assert old.decode.host_s - new.decode.host_s == pytest.approx(rebuilding - current,
                                                                  abs=0.03e-3)
    assert "rebuilt every token" in old.decode.source
    assert "rebuilt" not in new.decode.source


def test_rocm_runs_as_hip_on_amd_and_other_vendors_backends_are_refused():
    r = llamacpp.evaluate(shape(), plan(backend="rocm"), GPUS["rx-7900-xtx"], A)
    assert r.settings["backend"] == "hip" and r.settings["cuda_graphs"] is False
    with pytest.raises(ValueError, match=r"backend cuda runs on NVIDIA GPUs; .*rocm or vulkan"):
        llamacpp.evaluate(shape(), plan(backend="cuda"), GPUS["rx-7900-xtx"], A)
    with pytest.raises(ValueError, match="backend metal runs on Apple GPUs"):
        llamacpp.evaluate(shape(), plan(backend="metal"), GPUS["rtx-3090"], A)


def test_ollama_takes_only_the_backend_it_picks_itself():
    gpu = GPUS["rtx-3090"]
    own = llamacpp.evaluate(shape(), plan(framework="ollama", backend="cuda"), gpu, A,
                            ollama=True)
    assert own.settings["backend"] == "cuda"
    with pytest.raises(ValueError, match=r"Ollama runs .* on its own cuda runner"):
        llamacpp.evaluate(shape(), plan(framework="ollama", backend="vulkan"), gpu, A,
                          ollama=True)


def test_leaving_llama_cpp_clears_the_backend():
    p = plan(backend="vulkan")
    changes = couple_plan_changes(p, {"framework": "vllm", "quant": None})
    assert changes["backend"] is None
    assert p.with_changes(**changes).backend is None


def test_the_flag_at_every_door(capsys):
    flags = ["--model", "llama-3.1-8b", "--task", "infer", "--gpu", "rtx-4090", "--quant",
             "q4_k_m", "--backend", "vulkan"]
    code, out, _ = run(capsys, "estimate", *flags)
    assert code == 0 and "llama.cpp · Vulkan backend · GGUF Q4_K_M" in out
    code, out, _ = run(capsys, "estimate", *flags, "--json")
    data = json.loads(out)
    assert data["plan"]["backend"] == "vulkan"
    assert data["assumptions"]["engine_backend"] == "vulkan"
    code, out, _ = run(capsys, "export", "llama-server", *flags)
    assert code == 0
    assert "--backend vulkan" in out.splitlines()[0]  # the reproducing line
    assert "cmake -B build -DGGML_VULKAN=ON" in out
    code, _, err = run(capsys, "estimate", *flags[:-1], "metal")
    assert code != 0 and "backend metal runs on Apple GPUs" in err


def test_estimate_help_keeps_the_flag_that_export_redeclares(capsys):
    # export's --backend also takes accelerate's deepspeed/fsdp; declaring it must not take
    # the option away from estimate's own help.
    with pytest.raises(SystemExit):
        main(["estimate", "--help"])
    assert "--backend {cuda,rocm,vulkan,metal}" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["export", "--help"])
    assert "--backend {deepspeed,fsdp,cuda,rocm,vulkan,metal}" in capsys.readouterr().out


def test_the_advisor_prices_other_vendors_cards_on_their_own_backend(capsys):
    # a CUDA build priced on an AMD card would be refused: the card runs its own (ROCm)
    code, out, err = run(capsys, "suggest", "--model", "llama-3.1-8b", "--task", "infer",
                         "--quant", "q4_k_m", "--backend", "cuda", "--json")
    assert code == 0, err
    rows = {r["id"]: r for r in json.loads(out)["suggestions"]}
    amd = [r for r in rows.values() if "rx-7900-xtx" in r["id"]]
    assert amd and all(r["fits"] for r in amd)
    gpu = GPUS["rx-7900-xtx"]
    assert llamacpp_backends.plan_for_card(plan(backend="cuda"), gpu).backend is None
    assert llamacpp_backends.plan_for_card(plan(backend="vulkan"), gpu).backend == "vulkan"
    assert llamacpp_backends.plan_for_card(plan(backend="cuda"), GPUS["rtx-3090"]).backend == "cuda"
