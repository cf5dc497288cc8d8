"""Engine logs read back (``check-log``): real excerpts (tests/probes/logs/SOURCES.md says
where each was posted), the figures read from them by hand, and the plan each one ran held
against the estimate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuadvisor import catalog
from gpuadvisor.core.gpu import DRIVER_RESERVE_MIB
from gpuadvisor.probes import logcheck, observed
from gpuadvisor.probes.logread import LogError, read_log
from tests.cli_run import run_cli

LOGS = Path(__file__).parent / "logs"
GiB, MiB = 2**30, 2**20


def read(name: str, engine: str | None = None):
    return read_log((LOGS / name).read_text(), name, engine)


# --------------------------------------------------------------------------- reading
def test_vllm_0_6_profile_line_is_read_figure_by_figure():
    r = read("vllm-0.6.4-rtx3090-llama3.1-8b-20k.log")
    assert r.engine == "vllm"
    # "Loading model weights took 14.9888 GB" (vLLM divides by 2**30 there)
    assert r.observed["weights"] == pytest.approx(14.9888 * GiB)
    assert r.observed["total_memory"] == pytest.approx(23.58 * GiB)
    assert r.observed["non_torch"] == pytest.approx(0.35 * GiB)
    assert r.observed["kv_cache"] == pytest.approx(3.81 * GiB)
    # peak_torch_memory=17.06GiB holds the weights: the activation peak is the rest
    assert r.observed["activation_peak"] == pytest.approx((17.06 - 14.9888) * GiB)
    assert r.observed["kv_blocks"] == 1952 and r.observed["kv_tokens"] == 1952 * 16
    assert r.observed["max_concurrency"] == 1.56
    assert r.settings["gpu_memory_utilization"] == 0.9
    assert r.settings["concurrency_tokens"] == 20000
    assert r.refused is None


def test_vllm_refusal_is_kept_in_its_own_words():
    r = read("vllm-0.6.4-rtx3090-llama3.1-8b-29k-refused.log")
    assert r.refused.startswith("The model's max seq len (29000) is larger than the maximum "
                                "number of tokens that can be stored in KV cache (23648)")
    assert r.observed["kv_tokens"] == 1478 * 16 == 23648


def test_vllm_table_and_sentence_forms_of_the_profile():
    table = read("vllm-0.6.5-h100-llama3-8b-table.log")
    assert {k: round(table.observed[k] / GiB, 2) for k in
            ("total_memory", "weights", "non_torch", "activation_peak", "kv_cache")} == {
        "total_memory": 79.22, "weights": 14.96, "non_torch": 1.79,
        "activation_peak": 1.26, "kv_cache": 53.29}
    sentence = read("vllm-0.7-h100-vision-eager.log")
    assert {k: round(sentence.observed[k] / GiB, 2) for k in
            ("total_memory", "weights", "non_torch", "activation_peak", "kv_cache")} == {
        "total_memory": 79.22, "weights": 19.86, "non_torch": 0.16,
        "activation_peak": 36.63, "kv_cache": 14.65}
    assert sentence.observed["kv_tokens"] == 6001 * 16  # "# CUDA blocks: 6001"


def test_vllm_v1_lines_and_its_newer_refusal():
    r = read("vllm-v1-fp8kv-refused.log")
    assert r.observed["kv_cache"] == pytest.approx(10.55 * GiB)
    assert r.observed["kv_tokens"] == 230_528
    assert r.observed["max_concurrency"] == 2.31
    assert "10.12 GiB KV cache is needed" in r.refused
    tp = read("vllm-v1-2x3090-tp2.log")
    assert tp.observed["kv_tokens"] == 75_840 and tp.observed["max_concurrency"] == 2.48


def test_vllm_0_8_lower_case_block_count_and_a_pasted_command():
    # "# cuda blocks: 3637, # CPU blocks: 1170" (0.8's V0 executor), 16-token blocks
    r = read("vllm-0.8.2-t4-llama3.2-3b-colab.log")
    assert r.observed["kv_blocks"] == 3637 and r.observed["kv_tokens"] == 3637 * 16
    assert r.version == "0.8.2" and r.settings["gpu_memory_utilization"] == 0.89
    # the command pasted above the log: "--quantization gguf", "--enforce-eager",
    # "--max-model-len=10000", the .gguf file as the model
    g = read("vllm-0.8-rtx4070-8gb-llama3.2-3b-q8_0-gguf.log")
    assert g.settings["quantization"] == "gguf" and g.settings["enforce_eager"] is True
    assert g.settings["max_model_len"] == 10_000
    assert g.model.endswith("Llama-3.2-3B-Instruct-Q8_0.gguf")
    assert g.observed["kv_tokens"] == 1395 * 16


def test_vllm_v1_non_default_args_and_its_after_start_summary():
    r = read("vllm-0.10.2-8xl40s-qwen3-235b-a22b-fp8-tp8.log")
    # "non-default args: {'model_tag': ..., 'model': 'Qwen/...-FP8', 'max_model_len': 32768,
    # 'tensor_parallel_size': 8, ...}"
    assert r.model == "Qwen/Qwen3-235B-A22B-Instruct-2507-FP8"
    assert r.settings["tensor_parallel_size"] == 8 and r.settings["max_model_len"] == 32_768
    # "Free memory on device (43.93/44.42 GiB) ... Actual usage is 27.72 GiB for weight,
    # 1.4 GiB for peak activation, 0.21 GiB for non-torch memory, and 3.45 GiB for
    # CUDAGraph memory." (the weights were read from "Model loading took 27.7183 GiB")
    assert r.observed["total_memory"] == pytest.approx(44.42 * GiB)
    assert r.observed["weights"] == pytest.approx(27.7183 * GiB)
    assert r.observed["activation_peak"] == pytest.approx(1.4 * GiB)
    assert r.observed["non_torch"] == pytest.approx(0.21 * GiB)
    assert r.observed["cuda_graphs"] == pytest.approx(3.45 * GiB)
    assert r.gpu_name == "NVIDIA L40S"


def test_ollama_log_gives_its_estimate_and_llamacpp_buffers():
    r = read("ollama-0.5.4-rtx4090-llama3.1-8b.log")
    assert r.engine == "ollama" and r.version == "0.5.4"
    assert r.gpu_name == "NVIDIA GeForce RTX 4090"
    assert r.settings["n_ctx"] == 8192 and r.settings["n_parallel"] == 4
    assert r.settings["file_type"] == "Q4_K - Medium"
    assert r.observed["gpu_layers"] == 33 == r.observed["offload_units"]
    # CUDA0 4403.49 MiB of weights + the LoRA's CUDA0 160.00 MiB
    assert r.observed["gpu_model_buffer"] == pytest.approx((4403.49 + 160.0) * MiB)
    assert r.observed["host_model_buffer"] == pytest.approx(281.81 * MiB)
    assert r.observed["kv_cache"] == pytest.approx(1024 * MiB)
    assert r.observed["compute_buffer"] == pytest.approx(560 * MiB)
    assert r.observed["free_memory"] == pytest.approx(23818 * MiB)
    assert r.observed["available_memory"] == pytest.approx(23.3 * GiB)


def test_llamacpp_partial_offload_splits_host_and_device():
    r = read("llamacpp-mixtral-partial.log")
    assert r.engine == "llama.cpp"
    assert (r.observed["gpu_layers"], r.observed["offload_units"]) == (10, 33)
    assert r.observed["gpu_model_buffer"] == pytest.approx(14705.94 * MiB)
    assert r.observed["host_model_buffer"] == pytest.approx(47324.64 * MiB)
    assert r.observed["kv_cache"] == pytest.approx(20 * MiB)
    assert r.observed["host_kv_cache"] == pytest.approx(44 * MiB)


def test_torch_memory_summary_peaks_in_the_old_units():
    r = read("torch-memory-summary-v100-oom.log")
    assert r.engine == "torch"
    # torch < 2.1 printed "MB" for 2**20 bytes (_format_size divides by 1024)
    assert r.observed["peak_allocated"] == 15377 * MiB
    assert r.observed["peak_reserved"] == 15560 * MiB


def test_a_printed_max_memory_allocated_line_is_read():
    r = read_log("step 10 torch.cuda.max_memory_allocated() = 12884901888\n", "x")
    assert r.engine == "torch" and r.observed["peak_allocated"] == 12884901888


@pytest.mark.parametrize("text, message", [
    ("", "empty"),
    ("hello\nworld\n", "no vLLM, llama.cpp, Ollama or PyTorch memory lines"),
    ("INFO vllm starting\n", "no memory figures"),
])
def test_a_log_that_cannot_be_read_says_why_and_where(text, message):
    with pytest.raises(LogError, match=message) as info:
        read_log(text, "server.log")
    assert "server.log" in str(info.value) or "empty" in str(info.value)


# --------------------------------------------------------------------------- the check
def _check(name: str, model: str, gpu: str, **base):
    from gpuadvisor.core.plan import Plan

    reading = read(name)
    plan, assumed = logcheck.plan_of(reading, Plan(task="infer", **base))
    return logcheck.check(reading, catalog.load_models()[model], catalog.load_gpus()[gpu],
                          plan, assumed=assumed)


def _row(result, key):
    return next(r for r in result.rows if r.key == key)


def test_vllm_kv_capacity_of_the_rtx_3090_log_beats_the_naive_sum():
    result = _check("vllm-0.6.4-rtx3090-llama3.1-8b-20k.log", "llama-3.1-8b", "rtx-3090",
                    framework="vllm", engine_version="0.6.4")
    tokens = _row(result, "kv_tokens")
    assert tokens.observed == 31_232
    assert abs(tokens.difference) < 0.10
    # The naive sum: 0.9 x the nominal 24 GiB less the weights, over 128 KiB per token
    naive = (0.9 * 24 * GiB - 14.9888 * GiB) / (2 * 32 * 8 * 128 * 2)
    assert abs(naive / 31_232 - 1) > 0.5
    # the V0 release profiles the whole 20,000-token context (not V1's 2,048)
    assert result.estimate.engine.settings["max_num_batched_tokens"] == 20_000
    assert abs(_row(result, "activation_peak").difference) < 0.25
    assert _row(result, "total_memory").difference == pytest.approx(0.0, abs=1e-3)


def test_the_refused_rtx_3090_log_is_refused_by_the_estimate_too():
    result = _check("vllm-0.6.4-rtx3090-llama3.1-8b-29k-refused.log", "llama-3.1-8b",
                    "rtx-3090", framework="vllm", engine_version="0.6.4")
    assert result.plan.seq_len + result.plan.new_tokens == 29_000
    assert result.estimate.engine.refuses and not result.estimate.fits
    assert abs(_row(result, "kv_tokens").difference) < 0.15


def test_tp_8_over_4_kv_heads_keeps_a_head_per_rank_as_the_l40s_log_shows():
    # Qwen3-235B-A22B FP8 (read from the name) at TP 8 (read from the log) on 8 x L40S.
    result = _check("vllm-0.10.2-8xl40s-qwen3-235b-a22b-fp8-tp8.log", "qwen3-235b-a22b",
                    "l40s")
    assert result.plan.n_gpus == 8 and result.plan.quant == "fp8"
    assert any("from the model's name" in a for a in result.assumed)
    # one of the 4 KV heads on each rank: 94 layers x 2 x 128 x 2 bytes per token
    assert result.estimate.engine.terms["kv_bytes_per_token"] == 94 * 2 * 128 * 2
    # the sampler is whole on every rank: 256 rows x 151,936 entries x 38 bytes
    act = _row(result, "activation_peak")
    assert act.planned == pytest.approx(256 * 151_936 * 38)
    assert abs(act.difference) < 0.10
    tokens = _row(result, "kv_tokens")
    assert tokens.observed == 237_520 and abs(tokens.difference) < 0.05


def test_a_gguf_served_by_vllm_takes_its_type_from_the_file_name():
    result = _check("vllm-0.8-rtx4070-8gb-llama3.2-3b-q8_0-gguf.log", "llama-3.2-3b",
                    "rtx-4070-laptop", framework="vllm", engine_version="0.8.0")
    assert result.plan.quant == "q8_0" and result.plan.enforce_eager
    assert abs(_row(result, "weights").difference) < 0.05
    assert abs(_row(result, "kv_tokens").difference) < 0.15


def test_ollama_places_the_layers_the_log_shows():
    full = _check("ollama-0.5.4-rtx4090-llama3.1-8b.log", "llama-3.1-8b", "rtx-4090")
    assert full.plan.framework == "ollama" and full.plan.num_ctx == 2048
    assert full.plan.micro_batch == 4 and full.plan.quant == "q4_k_m"
    assert _row(full, "gpu_layers").planned == 33 == _row(full, "gpu_layers").observed
    assert abs(_row(full, "kv_cache").difference) < 0.01
    assert abs(_row(full, "compute_buffer").difference) < 0.10
    partial = _check("ollama-rtx4060-laptop-phi4-partial.log", "phi-4", "rtx-4060-laptop")
    layers = _row(partial, "gpu_layers")
    assert layers.observed == 29 and abs(layers.planned - 29) <= 2


def test_ollamas_graph_reserve_by_its_own_formula():
    # Ollama's GraphSize (fs/ggml), llama, 512-token batch, Llama 3.1 8B (h 4096, 32 heads,
    # 8 KV heads of 128, vocab 128,256) over 80,000 tokens, worked by hand:
    # full = max(4 x 512 x (1 + 4 x 4096 + 80,000 x 33), 4 x 512 x (4096 + 128,256))
    # partial = 4 x 512 x 4096 + max(4 x 512 x (1 + 4096 + 80,000) + 4096^2 x 9/16
    #           + 4 x 80,000 x (512 x 32 + 128 x 8), 4 x 512 x 132,352 + 4096 x 128,256 x 105/128)
    from gpuadvisor.core.engines.ollama_graph import ollama_graph_bytes
    from gpuadvisor.core.model import model_shape

    shape = model_shape(catalog.load_models()["llama-3.1-8b"])
    partial, full = ollama_graph_bytes(shape, 80_000, 0.0)
    assert full == 4 * 512 * (1 + 4 * 4096 + 80_000 * 33)
    assert partial == (4 * 512 * 4096 + 4 * 512 * (1 + 4096 + 80_000) + 4096 * 4096 * 9 // 16
                       + 4 * 80_000 * (512 * 32 + 128 * 8))
    # the log of that plan prints them: memory.graph.full="5.1 GiB" memory.graph.partial="5.4 GiB"
    r = read("ollama-0.2-rtx3090-llama3.1-8b-80k-partial.log")
    assert full / GiB == pytest.approx(r.observed["ollama_graph_full"] / GiB, abs=0.05)
    assert partial / GiB == pytest.approx(r.observed["ollama_graph_partial"] / GiB, abs=0.05)


@pytest.mark.parametrize("name, model, gpu", [
    ("ollama-0.5.4-rtx4090-llama3.1-8b.log", "llama-3.1-8b", "rtx-4090"),  # llama
    ("ollama-llama3.2-3b-80gb-estimate.log", "llama-3.2-3b", "a100-sxm-80gb"),
    ("ollama-0.11-gemma3-12b-11gb-estimate.log", "gemma-3-12b", "rtx-2080-ti"),  # gemma
    # Phi-4 ("phi3") is not in Ollama's table: GQA 4 x 400 MiB of KV / 6 = 266.7 MiB
    ("ollama-rtx4060-laptop-phi4-partial.log", "phi-4", "rtx-4060-laptop"),
])
def test_the_graph_ollama_reserves_is_the_one_its_log_prints(name, model, gpu):
    result = _check(name, model, gpu)
    row = _row(result, "ollama_graph")
    # the log prints "677.5 MiB", "1.3 GiB": its rounding is the tolerance
    assert abs(row.difference) < 0.03, row


def test_check_log_command_keeps_the_card_and_a_second_estimate_uses_it(tmp_path):
    code, out, err = run_cli("check-log", str(LOGS / "vllm-0.6.4-rtx3090-llama3.1-8b-20k.log"),
                             "--model", "llama-3.1-8b", "--gpu", "rtx-3090",
                             "--engine-version", "0.6.4", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["gpu"] == "rtx-3090" and data["plan"]["engine_version"] == "0.6.4"
    assert data["kept"]["non_torch"] == pytest.approx(0.35 * GiB)
    plan = ["estimate", "--model", "llama-3.1-8b", "--task", "infer", "--framework", "vllm",
            "--gpu", "rtx-3090", "--json"]
    code, out, _ = run_cli(*plan)
    used = json.loads(out)["assumptions"]
    assert used["vllm_non_torch_bytes"] == pytest.approx(0.35 * GiB)
    assert "observed" in used["vllm_non_torch_source"]
    code, out, _ = run_cli(*plan, "--no-measured")
    assert json.loads(out)["assumptions"]["vllm_non_torch_bytes"] == pytest.approx(0.2 * GiB)


def test_check_log_names_the_flag_a_log_without_its_gpu_needs():
    code, _, err = run_cli("check-log", str(LOGS / "vllm-0.6.4-rtx3090-llama3.1-8b-20k.log"),
                           "--model", "llama-3.1-8b")
    assert code == 2 and "give --gpu" in err
    code, _, err = run_cli("check-log", str(LOGS / "nope.log"))
    assert code == 2 and "nope.log" in err


def test_an_observed_total_replaces_the_cards_and_says_whose(tmp_path):
    gpus = catalog.load_gpus()
    seen = [{"when": "2026-12-01T10:00:00Z", "engine": "vllm", "gpu_id": "rtx-4090",
             "total_memory": 23.65 * GiB}]
    assert gpus["rtx-4090"].usable_bytes == pytest.approx((24_564 - DRIVER_RESERVE_MIB) * MiB)
    changed = observed.with_observations(gpus, seen)["rtx-4090"]
    assert changed.usable_bytes == pytest.approx(23.65 * GiB, abs=MiB)
    assert "your vllm log of 2026-12-01" in changed.usable_source


def test_an_unreadable_observations_file_is_set_aside_not_overwritten():
    file = observed.observations_file()
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text("{not json")
    warnings: list[str] = []
    assert observed.load(warnings) == []
    assert "kept as observations.json.bad-" in warnings[0]
    assert any(p.name.startswith("observations.json.bad-") for p in file.parent.iterdir())


@pytest.mark.parametrize("name, model, gpu", [
    ("ollama-0.5.4-rtx4090-llama3.1-8b.log", "llama-3.1-8b", "rtx-4090"),
    ("ollama-rtx4060-laptop-phi4-partial.log", "phi-4", "rtx-4060-laptop"),
])
def test_an_ollama_log_names_its_own_model_and_gpu(name, model, gpu):
    # "general.name = Meta Llama 3.1 8B Instruct" / "Phi 4"; "Device 0: NVIDIA GeForce ..."
    code, out, err = run_cli("check-log", str(LOGS / name), "--json", "--no-keep")
    assert code == 0, err
    data = json.loads(out)
    assert (data["model"], data["gpu"]) == (model, gpu)
    assert data["kept"] is None


@pytest.mark.parametrize("name, model, gpu, observed", [
    # an 11 GB card (the log gives only its free memory, 11.1 GiB); the 1.0 GiB projector
    # graph Ollama also reserves is not modelled: one layer more is placed
    ("ollama-0.11-gemma3-12b-11gb-estimate.log", "gemma-3-12b", "rtx-2080-ti", 48),
    ("ollama-llama3.2-3b-80gb-estimate.log", "llama-3.2-3b", "a100-sxm-80gb", 29),
])
def test_ollamas_own_placement_line_is_held_against_ours(name, model, gpu, observed):
    reading = read(name)
    assert reading.observed["planned_gpu_layers"] == observed  # "layers.offload=N"
    assert reading.settings["library"] == "cuda"
    result = _check(name, model, gpu)
    row = _row(result, "gpu_layers")
    assert row.observed == observed and abs(row.planned - observed) <= 1


def test_a_pytorch_summary_needs_the_training_plan_it_came_from():
    log = str(LOGS / "torch-memory-summary-v100-oom.log")
    code, _, err = run_cli("check-log", log, "--model", "gpt2-xl", "--gpu", "v100-sxm2-16gb")
    assert code == 2 and "give --task" in err
    code, out, err = run_cli("check-log", log, "--model", "gpt2-xl", "--gpu", "v100-sxm2-16gb",
                             "--task", "full", "--micro-batch", "2", "--seq", "1024",
                             "--json", "--no-keep")
    assert code == 0, err
    row = next(r for r in json.loads(out)["rows"] if r["key"] == "peak_allocated")
    assert row["observed"] == 15377 * MiB
    from gpuadvisor.core.plan import Plan
    from gpuadvisor.core.resolve import resolve

    est = resolve(catalog.load_models()["gpt2-xl"],
                  Plan(task="full", micro_batch=2, seq_len=1024),
                  catalog.load_gpus()["v100-sxm2-16gb"])
    # PyTorch's allocator does not count the CUDA context the estimate holds
    assert row["planned"] == pytest.approx(est.memory.total
                                           - est.assumptions["cuda_context_bytes"])


# --------------------------------------------------------------------------- more forms
def test_pytorch_out_of_memory_messages_are_read_old_and_new():
    # 2.1: "Tried to allocate 36.00 MiB. GPU 0 has a total capacty of 22.38 GiB of which
    # 16.81 MiB is free. ... Of the allocated memory 22.09 GiB is allocated by PyTorch, and
    # 51.65 MiB is reserved by PyTorch but unallocated." (wrapped over three lines)
    r = read("torch-2.1-rtx4090-chatglm3-oom.log")
    assert r.engine == "torch" and r.refused.startswith("CUDA out of memory. Tried")
    o = r.observed
    assert o["total_memory"] == pytest.approx(22.38 * GiB)
    assert o["oom_allocated"] == pytest.approx(22.09 * GiB)
    assert o["oom_reserved"] == pytest.approx(22.09 * GiB + 51.65 * MiB)
    assert o["oom_needed"] == pytest.approx(22.09 * GiB + 36 * MiB)
    # before 2.1: "Tried to allocate 1.25 GiB (GPU 1; 79.10 GiB total capacity; 76.13 GiB
    # already allocated; 290.12 MiB free; 77.47 GiB reserved in total by PyTorch)"
    old = read("torch-2023-a100-vicuna13b-qlora-oom.log").observed
    assert old["total_memory"] == pytest.approx(79.10 * GiB)
    assert old["free_memory"] == pytest.approx(290.12 * MiB)
    assert old["oom_reserved"] == pytest.approx(77.47 * GiB)
    assert old["oom_needed"] == pytest.approx((76.13 + 1.25) * GiB)
    # "of which 0 bytes is free"
    assert read("torch-2024-11gib-kohya-oom.log").observed["free_memory"] == 0.0


def test_an_out_of_memory_log_checks_the_fit_verdict(tmp_path):
    r = read("torch-2023-a100-vicuna13b-qlora-oom.log")
    model = catalog.load_models()["llama-2-13b"]
    gpu = catalog.load_gpus()["a100-sxm-80gb"]
    plan, _ = logcheck.plan_of(r, logcheck.Plan(task="qlora", seq_len=4096, micro_batch=16))
    result = logcheck.check(r, model, gpu, plan)
    rows = {row.key: row for row in result.rows}
    assert rows["oom_needed"].observed == pytest.approx((76.13 + 1.25) * GiB)
    planned = result.estimate.memory.total - result.estimate.memory.context_bytes
    assert rows["oom_needed"].planned == pytest.approx(planned)
    assert any("PyTorch ran out of memory" in note for note in result.notes)
    assert "ran out of memory" in logcheck.format_check(result)


def test_ollamas_own_engine_buffers_load_request_and_discovery():
    r = read("ollama-0.13-3gpu-device-buffers.log")
    o = r.observed
    assert r.engine == "ollama"
    # kv cache CUDA0 2.5 + CUDA1 2.5 + CUDA2 1.2 GiB; compute graph 1.5 + 1.3 + 4.7 GiB on the
    # GPUs and 79.1 MiB on the CPU; model weights CUDA2 5.1 GiB, CPU 417.3 MiB
    assert o["kv_cache"] == pytest.approx((2.5 + 2.5 + 1.2) * GiB)
    assert o["compute_buffer"] == pytest.approx((1.5 + 1.3 + 4.7) * GiB)
    assert o["host_compute_buffer"] == pytest.approx(79.1 * MiB)
    assert o["gpu_model_buffer"] == pytest.approx(5.1 * GiB)
    assert o["host_model_buffer"] == pytest.approx(417.3 * MiB)
    load = read("ollama-0.11-rtx5060ti-load-request.log")
    assert load.observed["planned_gpu_layers"] == 29
    assert load.settings["n_ctx"] == 8192 and load.settings["type_k"] == "q8_0"
    assert load.settings["flash_attn"] is True and load.settings["file_type"] == "Q4_K_M"
    assert load.model == "DeepSeek R1 Distill Qwen 1.5B"
    found = read("ollama-0.11-rtx3070-inference-compute.log")
    assert found.gpu_name == "NVIDIA GeForce RTX 3070"
    assert found.observed["total_memory"] == pytest.approx(7.7 * GiB)
    assert found.observed["available_memory"] == pytest.approx(7.0 * GiB)


def test_a_wrapped_ollama_offload_line_is_read_whole():
    o = read("ollama-0.5-4gpu-wrapped-offload.log").observed
    assert o["offload_units"] == 81 and o["planned_gpu_layers"] == 44
    assert o["ollama_required_full"] == pytest.approx(127.4 * GiB)
    assert o["ollama_graph_partial"] == pytest.approx(8.2 * GiB)
    assert o["available_memory"] == pytest.approx(4 * 22.0 * GiB)


def test_llama_cpp_fit_projections_and_the_projector_are_read():
    r = read("llamacpp-2026-fit-mmproj.log")
    assert r.engine == "llama.cpp"
    assert r.observed["projector"] == pytest.approx(2447.80 * MiB)
    assert r.observed["fit_projected"] == pytest.approx(3287 * MiB)
    assert r.observed["free_memory"] == pytest.approx(110100 * MiB)
    big = read("llamacpp-b7003-fit-params.log")
    assert big.gpu_name == "NVIDIA RTX 6000 Ada Generation"
    assert big.observed["total_memory"] == pytest.approx(48508 * MiB)
    assert big.observed["fit_projected"] == pytest.approx(410593 * MiB)


def test_the_fit_projection_is_held_against_the_plans_gpu_rows():
    r = read("llamacpp-2026-fit-mmproj.log")
    model = catalog.load_models()["qwen2.5-vl-3b"]
    gpu = catalog.load_gpus()["rtx-4090"]
    plan, _ = logcheck.plan_of(r, logcheck.Plan(task="infer", framework="llama.cpp",
                                                quant="q8_0", seq_len=4096, new_tokens=1))
    rows = {row.key: row for row in logcheck.check(r, model, gpu, plan).rows}
    on_gpu = sum(rows[k].planned for k in ("gpu_model_buffer", "kv_cache", "compute_buffer"))
    assert rows["fit_projected"].planned == pytest.approx(on_gpu)
    assert rows["fit_projected"].observed == pytest.approx(3287 * MiB)


@pytest.mark.parametrize(("planned", "observed", "text"), [
    (15.0, 15.02, "0%"),      # -0.13%: rounds to nothing, not "-0%"
    (204.8, 358.4, "-43%"),   # 204.8 / 358.4 - 1 = -0.4286
    (2.2, 2.05, "+7%"),       # +7.3%
    (None, 1.0, ""),          # nothing planned: no difference
    (1.0, 0.0, ""),           # nothing observed
])
def test_a_difference_is_a_signed_whole_percent(planned, observed, text):
    from gpuadvisor.probes.logcheck import Row

    row = Row(term="t", key="k", planned=planned, observed=observed, unit="bytes")
    assert row.difference_text == text


def test_a_phrase_survives_copy_and_pickle_with_its_template_and_a_brace_in_a_value():
    import copy
    import pickle

    from gpuadvisor.core.phrase import Phrase

    inner = Phrase("vllm serve's default on {gpu}", gpu="GPU {0}")
    outer = Phrase("default: {why}", why=inner)
    assert str(outer) == "default: vllm serve's default on GPU {0}"
    for again in (copy.deepcopy(outer), pickle.loads(pickle.dumps(outer))):
        assert again == outer and again.template == "default: {why}"
        assert again.args["why"].template == "vllm serve's default on {gpu}"
        assert again.args["why"].args == {"gpu": "GPU {0}"}
