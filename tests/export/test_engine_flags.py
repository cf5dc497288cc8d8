"""Every flag and keyword the serving exports write is one the engine itself accepts.

The lists in ``engine_sources/`` were extracted from the engines' own sources (each file's
header names the repository, the commit, the files read and how): ``vllm serve``'s options
and the choices of ``--quantization``, ``--kv-cache-dtype`` and ``--dtype``; llama-server's
options and its ``--cache-type-k/-v`` and ``-fa`` values; Ollama's Modelfile commands and
PARAMETER names. Each plan below is exported in-process (as ``gpuadvisor export`` writes it),
its command line split with shlex, and every word checked against those lists.
"""

from __future__ import annotations

import contextlib
import functools
import io
import re
import shlex
from pathlib import Path

import pytest
import yaml

from gpuadvisor.cli import main

SOURCES = Path(__file__).parent / "engine_sources"


class EngineList:
    """One ``engine_sources`` file: its ``[flags]``/``[commands]``/``[parameters]`` lists and
    ``[choices OPT ...]`` value lists, and the source it was read from (for messages)."""

    def __init__(self, name: str):
        self.name = name
        self.sections: dict[str, list[str]] = {}
        self.choices: dict[str, list[str]] = {}
        self.commit = self.repo = ""
        current = None
        for line in (SOURCES / name).read_text().splitlines():
            if line.startswith("#"):
                if m := re.match(r"# commit: (\S+)", line):
                    self.commit = m.group(1)
                if m := re.match(r"# repository: (\S+)", line):
                    self.repo = m.group(1)
                continue
            if not line.strip():
                continue
            if m := re.match(r"\[(\w+)((?: [^\s#\]]+)*)\]", line):
                if m.group(1) == "choices":
                    current = []
                    for opt in m.group(2).split():
                        self.choices[opt] = current
                else:
                    current = self.sections.setdefault(m.group(1), [])
                continue
            current.append(line.strip())

    def where(self, what: str) -> str:
        return f"{what} in engine_sources/{self.name} ({self.repo} at {self.commit})"


@functools.cache
def engine(name: str) -> EngineList:
    return EngineList(name)


def _export(kind: str, *argv: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["export", kind, *argv, "--task", "infer", "--no-measured"])
        except SystemExit as exc:
            code = int(exc.code or 0)
    assert code == 0, f"export {kind} {' '.join(argv)} failed: {err.getvalue()}"
    return out.getvalue()


def _command(text: str, program: tuple[str, ...]) -> list[str]:
    """The command words of the export's last non-comment line, the program names dropped."""
    line = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")][-1]
    words = shlex.split(line)
    assert tuple(words[:len(program)]) == program, line
    return words[len(program):]


def _is_option(word: str) -> bool:
    return word.startswith("-") and not re.fullmatch(r"-?\d+(\.\d+)?", word)


def _options(words: list[str]) -> list[tuple[str, str | None]]:
    """(option, value) pairs: an option takes the next word as its value unless that is an
    option too; a bare word outside an option (vLLM's model tag) is skipped."""
    pairs, i = [], 0
    while i < len(words):
        word = words[i]
        if _is_option(word):
            nxt = words[i + 1] if i + 1 < len(words) else None
            if nxt is not None and not _is_option(nxt):
                pairs.append((word, nxt))
                i += 2
                continue
            pairs.append((word, None))
        i += 1
    return pairs


def check_options(words: list[str], source: EngineList, plan: str) -> list[str]:
    """Every option is in the engine's list and every fixed-choice value is allowed; the
    options found."""
    flags = set(source.sections["flags"])
    seen = []
    for option, value in _options(words):
        assert "=" not in option, f"{plan}: {option} written with '='; expected separate words"
        seen.append(option)
        assert option in flags, (f"{plan}: {option} is not an option {source.where('listed')}")
        if option in source.choices and value is not None:
            allowed = source.choices[option]
            assert value in allowed, (f"{plan}: {option} {value} is not an allowed value; "
                                      f"{source.where(option + ' allows ' + ', '.join(allowed))}")
    return seen


# ------------------------------------------------------------------------------- vLLM
VLLM_PLANS = {
    "8B bf16 on one RTX 4090": ("--model", "llama-3.1-8b", "--framework", "vllm",
                                "--gpu", "rtx-4090"),
    "8B fp8 weights + fp8 KV on H100": ("--model", "llama-3.1-8b", "--framework", "vllm",
                                        "--quant", "fp8", "--kv-dtype", "fp8",
                                        "--gpu", "h100-sxm"),
    "70B bf16 tensor-parallel on 4x A100": ("--model", "llama-3.1-70b", "--framework", "vllm",
                                            "--gpus", "4", "--gpu", "a100-sxm-80gb"),
    "70B int4 (GPTQ) TP=2, fp8 KV, 32k context": (
        "--model", "llama-3.1-70b", "--framework", "vllm", "--quant", "int4", "--kv-dtype",
        "fp8", "--gpus", "2", "--seq", "32k", "--gpu", "a100-sxm-80gb"),
    "gpt-oss-20b mxfp4": ("--model", "gpt-oss-20b", "--framework", "vllm", "--quant", "mxfp4",
                          "--gpu", "h100-sxm"),
    "8B GGUF Q4_K_M on vLLM": ("--model", "llama-3.1-8b", "--framework", "vllm",
                               "--quant", "q4_k_m", "--gpu", "rtx-4090"),
    "8B long context, 16 sequences": ("--model", "llama-3.1-8b", "--framework", "vllm",
                                      "--seq", "64k", "--micro-batch", "16",
                                      "--gpu", "h100-sxm"),
}


@pytest.mark.parametrize("plan", list(VLLM_PLANS))
def test_vllm_serve_writes_only_options_vllm_accepts(plan):
    source = engine("vllm_serve_flags.txt")
    words = _command(_export("vllm", *VLLM_PLANS[plan]), ("vllm", "serve"))
    seen = check_options(words, source, plan)
    assert "--max-model-len" in seen and "--tensor-parallel-size" in seen


def test_a_skypilot_task_runs_a_vllm_line_vllm_accepts():
    source = engine("vllm_serve_flags.txt")
    plan = "SkyPilot task, 70B TP=2 on A100s"
    task = yaml.safe_load(_export("skypilot", "--model", "llama-3.1-70b", "--framework", "vllm",
                                  "--gpus", "2", "--kv-dtype", "fp8", "--gpu", "a100-sxm-80gb"))
    run = [ln for ln in task["run"].splitlines() if ln.strip().startswith("vllm serve")]
    assert len(run) == 1, task["run"]
    seen = check_options(shlex.split(run[0])[2:], source, plan)
    assert {"--host", "--port", "--tensor-parallel-size"} <= set(seen)


# -------------------------------------------------------------------------- llama.cpp
LLAMA_PLANS = {
    "8B Q4_K_M on one RTX 4090": ("--model", "llama-3.1-8b", "--quant", "q4_k_m",
                                  "--gpu", "rtx-4090"),
    "8B Q8_0, q8_0 KV, 4 slots": ("--model", "llama-3.1-8b", "--quant", "q8_0", "--kv-dtype",
                                  "q8_0", "--attention", "flash", "--micro-batch", "4",
                                  "--gpu", "rtx-4090"),
    "Qwen3-8B Q4_K_M, q4_0 KV, 32k context": ("--model", "qwen3-8b", "--quant", "q4_k_m",
                                              "--kv-dtype", "q4_0", "--attention", "flash",
                                              "--seq", "32k", "--gpu", "rtx-4090"),
    "Qwen3-8B Q4_K_M, eager attention, fp32 KV": ("--model", "qwen3-8b", "--quant", "q4_k_m",
                                                  "--attention", "eager", "--kv-dtype", "fp32",
                                                  "--gpu", "rtx-4090"),
    "Qwen3-30B-A3B Q4_K_M, experts on CPU": ("--model", "qwen3-30b-a3b", "--quant", "q4_k_m",
                                             "--n-cpu-moe", "8", "--gpu", "rtx-4090"),
    "70B Q4_K_M split over 2 GPUs, bf16 KV": ("--model", "llama-3.1-70b", "--quant", "q4_k_m",
                                              "--gpus", "2", "--kv-dtype", "bf16",
                                              "--gpu", "a100-sxm-80gb"),
}


@pytest.mark.parametrize("plan", list(LLAMA_PLANS))
def test_llama_server_writes_only_options_llama_server_accepts(plan):
    source = engine("llama_server_flags.txt")
    words = _command(_export("llama-server", *LLAMA_PLANS[plan]), ("llama-server",))
    seen = check_options(words, source, plan)
    assert "-c" in seen and "--cache-type-k" in seen and "-fa" in seen


# ----------------------------------------------------------------------------- Ollama
OLLAMA_PLANS = {
    "Qwen3-8B library tag": ("--model", "qwen3-8b", "--framework", "ollama",
                             "--gpu", "rtx-4090"),
    "Llama-2-7B Q8_0, q8_0 KV, 4 parallel": ("--model", "llama-2-7b", "--framework", "ollama",
                                             "--quant", "q8_0", "--kv-dtype", "q8_0",
                                             "--attention", "flash", "--micro-batch", "4",
                                             "--gpu", "rtx-4090"),
    "8B Q4_K_M, 32k context, q4_0 KV": ("--model", "llama-3.1-8b", "--framework", "ollama",
                                        "--quant", "q4_k_m", "--seq", "32k", "--kv-dtype",
                                        "q4_0", "--attention", "flash", "--gpu", "rtx-4090"),
}


@pytest.mark.parametrize("plan", list(OLLAMA_PLANS))
def test_an_ollama_modelfile_uses_only_commands_and_parameters_ollama_knows(plan):
    source = engine("ollama_modelfile.txt")
    llama = engine("llama_server_flags.txt")
    text = _export("ollama", *OLLAMA_PLANS[plan])
    commands = set(source.sections["commands"])
    parameters = set(source.sections["parameters"])
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    assert lines and lines[0].startswith("FROM ")
    for line in lines:
        command, _, rest = line.partition(" ")
        assert command.upper() in commands, (
            f"{plan}: Modelfile command {command} is not {source.where('listed')}")
        if command.upper() == "PARAMETER":
            name = rest.split()[0]
            assert name in parameters, (
                f"{plan}: PARAMETER {name} is not {source.where('a parameter')}")
    # The server line in the comments: Ollama hands OLLAMA_KV_CACHE_TYPE to its llama-server
    # as --cache-type-k/-v (llm/llama_server.go), so the value must be one llama.cpp knows.
    env = dict(re.findall(r"(OLLAMA_\w+)=(\S+)", text))
    assert set(env) == {"OLLAMA_FLASH_ATTENTION", "OLLAMA_KV_CACHE_TYPE", "OLLAMA_NUM_PARALLEL"}
    allowed = llama.choices["--cache-type-k"]
    assert env["OLLAMA_KV_CACHE_TYPE"] in allowed, (
        f"{plan}: OLLAMA_KV_CACHE_TYPE={env['OLLAMA_KV_CACHE_TYPE']} is not a cache type; "
        f"{llama.where('--cache-type-k allows ' + ', '.join(allowed))}")
    assert env["OLLAMA_FLASH_ATTENTION"] in {"0", "1"}


# ------------------------------------------------------------------- the lists themselves
def test_the_lists_name_their_source_commit_and_catch_unknown_flags():
    vllm, llama, ollama = (engine(n) for n in ("vllm_serve_flags.txt", "llama_server_flags.txt",
                                                "ollama_modelfile.txt"))
    assert re.fullmatch(r"[0-9a-f]{40}", llama.commit) and re.fullmatch(r"[0-9a-f]{40}",
                                                                        ollama.commit)
    assert re.fullmatch(r"[0-9a-f]{7,40}", vllm.commit)
    # known options are there, made-up ones are not, and the checker says so
    assert {"--max-model-len", "--no-enforce-eager", "--kv-cache-dtype"} <= set(
        vllm.sections["flags"])
    assert {"-ngl", "--n-gpu-layers", "-np", "--hf-file"} <= set(llama.sections["flags"])
    assert "-p" not in llama.sections["flags"]  # excluded from llama-server in common/arg.cpp
    assert "num_ctx" in ollama.sections["parameters"]
    with pytest.raises(AssertionError, match="--max-model-length is not an option"):
        check_options(["--max-model-length", "4096"], vllm, "made-up flag")
    with pytest.raises(AssertionError, match="--gpu-layers-draft-x is not an option"):
        check_options(["--gpu-layers-draft-x", "1"], llama, "made-up flag")
    with pytest.raises(AssertionError, match="--cache-type-k q3_k is not an allowed value"):
        check_options(["--cache-type-k", "q3_k"], llama, "made-up value")
    with pytest.raises(AssertionError, match="--quantization nf4 is not an allowed value"):
        check_options(["--quantization", "nf4"], vllm, "made-up value")
    assert "num_gpu_layers" not in ollama.sections["parameters"]


@pytest.mark.parametrize(("quant", "instead"), [("nf4", "int4"), ("int8", "fp8")])
def test_vllm_refuses_bitsandbytes_weights_and_names_what_it_serves(quant, instead):
    """bitsandbytes is not in vLLM's quantization methods (engine_sources/vllm_serve_flags.txt
    [choices --quantization]), so such a plan is refused with the alternative, not written
    with a value vLLM rejects."""
    assert "bitsandbytes" not in engine("vllm_serve_flags.txt").choices["--quantization"]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["export", "vllm", "--model", "qwen3-8b", "--framework", "vllm",
                     "--quant", quant, "--gpu", "rtx-4090", "--task", "infer",
                     "--no-measured"])
    assert code == 2 and out.getvalue() == ""
    assert f"vLLM 0.34.0 cannot load {quant} weights" in err.getvalue()
    assert f"--quant {instead}" in err.getvalue()


def test_the_lists_are_of_the_releases_the_catalog_names():
    """catalog/serving.toml [engines] names the releases the exports are written for; the
    lists here must be read from those very commits."""
    from gpuadvisor.catalog.serving import engine_release

    for name, file in (("vllm", "vllm_serve_flags.txt"), ("llama_cpp", "llama_server_flags.txt"),
                       ("ollama", "ollama_modelfile.txt")):
        assert engine(file).commit.startswith(engine_release(name).commit), name
