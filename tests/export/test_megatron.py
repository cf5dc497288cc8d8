"""``export megatron``: Megatron-LM's ``pretrain_gpt.py`` with the layout the estimate priced.

Every option the export writes is checked against the parser of Megatron-LM's training
script (``engine_sources/megatron_pretrain_gpt_flags.txt``, read from NVIDIA/Megatron-LM at
the commit its header names), and every value is read back and compared with the estimate
the export's first line reproduces: the tensor, pipeline, virtual, context, expert and data
parallel degrees, ZeRO, the batch, the precision, the recomputation and the model's shape.
"""

from __future__ import annotations

import json
import re
import shlex

import pytest
import yaml

from gpuadvisor import catalog
from gpuadvisor.export.megatron import MEGATRON_COMMIT
from gpuadvisor.export.skypilot import NO_DOCKER_CLOUDS
from tests.cli_run import run_cli

from .test_engine_flags import EngineList, _options
from .test_real_tools import TRAINING

SOURCE = EngineList("megatron_pretrain_gpt_flags.txt")

#: Plans whose fastest layout Megatron-LM runs as priced (each names what it exercises).
PLANS = {
    "8B full, 8x H100 (TP x PP x VPP)": ["--model", "llama-3.1-8b", "--task", "full",
                                         "--framework", "megatron", "--gpu", "h100-sxm",
                                         "--gpus", "8"],
    "70B pretrain fp8, 64x H100, pinned TP 4 x PP 8 x VPP 5 ZeRO-1": [
        "--model", "llama-3.1-70b", "--task", "pretrain", "--precision", "fp8", "--gpu",
        "h100-sxm", "--gpus", "64", "--tokens", "1T", "--seq", "8192", "--checkpointing",
        "none", "--layout", "manual", "--tp", "4", "--pp", "8", "--vpp", "5", "--zero", "1",
        "--global-batch", "128"],
    "Qwen3-30B-A3B pretrain, 16x H100 (experts parallel)": [
        "--model", "qwen3-30b-a3b", "--task", "pretrain", "--gpu", "h100-sxm", "--gpus",
        "16", "--tokens", "10B"],
    "8B pretrain, 16x H100, CP 2 at 32k": [
        "--model", "llama-3.1-8b", "--task", "pretrain", "--gpu", "h100-sxm", "--gpus", "16",
        "--tokens", "10B", "--seq", "32k", "--layout", "manual", "--tp", "2", "--cp", "2",
        "--zero", "1"],
    "8B full, 8x A100, ZeRO-3 data parallel (Megatron-FSDP)": [
        "--model", "llama-3.1-8b", "--task", "full", "--gpu", "a100-sxm-80gb", "--gpus", "8",
        "--layout", "manual", "--zero", "3"],
    "70B full, 32x H100, 16 of 80 layers recomputed over PP 4 x VPP 2": [
        "--model", "llama-3.1-70b", "--task", "full", "--gpu", "h100-sxm", "--gpus", "32",
        "--layout", "manual", "--tp", "4", "--pp", "4", "--vpp", "2", "--zero", "1",
        "--checkpointing", "full", "--recompute-layers", "16"],
    "GPT-2 pretrain on one RTX 4090, selective recomputation": [
        "--model", "gpt2", "--task", "pretrain", "--gpu", "rtx-4090", "--tokens", "1B",
        "--checkpointing", "selective"],
    "Qwen3-235B-A22B pretrain fp8, 256x H100, EP 32 folded over TP 2": [
        "--model", "qwen3-235b-a22b", "--task", "pretrain", "--precision", "fp8", "--gpu",
        "h100-sxm", "--gpus", "256", "--tokens", "100B", "--seq", "4096", "--tp", "2",
        "--pp", "8", "--vpp", "4", "--ep", "32", "--zero", "1", "--global-batch", "8192"],
    # 80 layers do not divide over 6 ranks: the export writes the stages one by one
    "70B pretrain, 48x H100, TP 8 x PP 6 x VPP 2 (uneven stages)": [
        "--model", "llama-3.1-70b", "--task", "pretrain", "--gpu", "h100-sxm", "--gpus", "48",
        "--tokens", "10B", "--layout", "manual", "--tp", "8", "--pp", "6", "--vpp", "2",
        "--zero", "1", "--global-batch", "96"],
    "8B full, 16x H100, ZeRO-1 optimizer offload": [
        "--model", "llama-3.1-8b", "--task", "full", "--gpu", "h100-sxm", "--gpus", "16",
        "--layout", "manual", "--zero", "1", "--offload", "optimizer"],
}


def _export(*flags: str) -> tuple[int, str, str]:
    return run_cli("export", "megatron", *flags, "--no-measured")


def _torchrun(text: str) -> list[str]:
    """The words of the script's torchrun command (its continuation lines joined)."""
    body = text.replace("\\\n", " ")
    line = next(ln for ln in body.splitlines() if ln.lstrip().startswith("torchrun "))
    words = shlex.split(line, posix=True)
    return words[words.index("pretrain_gpt.py") + 1:]


def _reproduced(text: str) -> dict:
    match = re.search(r"Reproduce this estimate: (gpuadvisor estimate [^\n]*)", text)
    assert match, "the export does not start with its reproducing command"
    code, out, err = run_cli(*shlex.split(match.group(1))[1:], "--json", "--no-measured")
    assert code in (0, 3), err
    return json.loads(out)


def _values(words: list[str]) -> dict[str, str | None]:
    return dict(_options(words))


def _stages(layout: str) -> list[str]:
    """The stages of a ``--pipeline-model-parallel-layout`` string, each with its repeats
    written out (``Et*3|t*2L`` -> ``["Ettt", "ttL"]``): Megatron-LM's grammar, ``x*n`` for
    ``n`` copies of ``x``, ``|`` between stages, ``,`` cosmetic."""
    text = layout.replace(",", "")
    text = re.sub(r"\(([^)]+)\)\*(\d+)", lambda m: m.group(1) * int(m.group(2)), text)
    text = re.sub(r"(.)\*(\d+)", lambda m: m.group(1) * int(m.group(2)), text)
    return text.split("|")


def _stage_counts(v: dict, n_layers: int) -> tuple[int, list[int]]:
    """``(vpp, blocks per pipeline rank)`` as Megatron-LM builds them from the options:
    its checks (arguments.py, TransformerConfig) re-done here, failing where it would."""
    pp = int(v["--pipeline-model-parallel-size"])
    layout = v.get("--pipeline-model-parallel-layout")
    if layout is None:
        vpp = int(v.get("--num-virtual-stages-per-pipeline-rank") or 1)
        assert n_layers % pp == 0, "Megatron-LM: layers must divide by the pipeline size"
        assert (n_layers // pp) % vpp == 0, "Megatron-LM: a rank's layers must divide by VPP"
        return vpp, [n_layers // pp] * pp
    assert "--num-virtual-stages-per-pipeline-rank" not in v  # one of the two, not both
    stages = _stages(layout)
    assert len(stages) % pp == 0
    vpp = len(stages) // pp
    flat = "".join(stages)
    assert flat[0] == "E" and flat[-1] == "L" and flat.count("E") == flat.count("L") == 1
    assert set(flat) <= {"E", "L", "t"} and flat.count("t") == n_layers
    # stage v x pp + r is rank r's v-th virtual stage
    return vpp, [sum(stages[k * pp + r].count("t") for k in range(vpp)) for r in range(pp)]


@pytest.fixture(scope="module")
def exported():
    out = {}
    for label, flags in PLANS.items():
        code, text, err = _export(*flags)
        assert code == 0, f"{label}: {err}"
        priced_code, priced, _ = run_cli("estimate", *flags, "--json", "--no-measured")
        assert priced_code in (0, 3), label  # 3: priced, and it does not fit as planned
        out[label] = (text, err, json.loads(priced))
    return out


def test_the_flag_list_names_its_source():
    assert SOURCE.commit == MEGATRON_COMMIT  # the export writes the options it was checked on
    assert SOURCE.repo == "github.com/NVIDIA/Megatron-LM"
    assert "--tensor-model-parallel-size" in SOURCE.sections["flags"]


@pytest.mark.parametrize("label", list(PLANS))
def test_every_option_is_pretrain_gpts(exported, label):
    text, _, _ = exported[label]
    flags = set(SOURCE.sections["flags"])
    for option, value in _options(_torchrun(text)):
        assert option in flags, f"{label}: {option} is not {SOURCE.where('an option')}"
        if option in SOURCE.choices and value is not None:
            assert value in SOURCE.choices[option], f"{label}: {option} {value}"


@pytest.mark.parametrize("label", list(PLANS))
def test_the_script_runs_the_priced_layout(exported, label):
    text, err, priced = exported[label]
    est = _reproduced(text)
    assert "cannot run" not in err  # no fallback: Megatron-LM runs every layout priced
    plan = est["plan"]
    lay = est["time"].get("layout") or {  # no layout search: the GPUs as data parallel
        "tp": 1, "pp": 1, "vpp": 1, "cp": 1, "ep": 1, "dp": plan["n_gpus"],
        "zero": plan["zero_stage"] if plan["n_gpus"] > 1 else 0,
        "micro_batch": plan["micro_batch"], "grad_accum": plan["grad_accum"]}
    if priced["time"].get("layout"):
        assert lay == priced["time"]["layout"], label  # the export's estimate is the priced one
    v = _values(_torchrun(text))
    assert int(v["--tensor-model-parallel-size"]) == lay["tp"]
    assert int(v["--pipeline-model-parallel-size"]) == lay["pp"]
    n_layers = catalog.load_models()[PLANS[label][1]].n_layers
    vpp, per_rank = _stage_counts(v, n_layers)
    assert vpp == lay["vpp"]
    assert max(per_rank) == -(-n_layers // lay["pp"])  # the busiest stage, as priced
    assert int(v.get("--context-parallel-size") or 1) == lay["cp"]
    assert int(v.get("--expert-model-parallel-size") or 1) == lay["ep"]
    assert ("--sequence-parallel" in v) == (lay["tp"] > 1)
    n_gpus = est["plan"]["n_gpus"]
    nproc = int(re.search(r"--nproc-per-node (\d+)", text).group(1))
    nodes = int((re.search(r"--nnodes (\d+)", text) or re.search(r"()", "")).group(1) or 1)
    assert nproc * nodes == n_gpus
    # data parallel = GPUs / (TP x PP x CP), as Megatron-LM derives it
    assert n_gpus // (lay["tp"] * lay["pp"] * lay["cp"]) == lay["dp"]
    assert int(v["--micro-batch-size"]) == lay["micro_batch"]
    assert int(v["--global-batch-size"]) == lay["micro_batch"] * lay["grad_accum"] * lay["dp"]
    assert int(v["--seq-length"]) == est["plan"]["seq_len"]
    zero = lay["zero"]
    assert ("--use-distributed-optimizer" in v) == (zero == 1)
    assert v.get("--data-parallel-sharding-strategy") == {2: "optim_grads",
                                                          3: "optim_grads_params"}.get(zero)
    precision = est["plan"]["precision"]
    assert ("--bf16" in v) == (precision in ("bf16", "fp8"))
    assert ("--fp8-format" in v) == (precision == "fp8")
    checkpointing = est["plan"]["checkpointing"]
    assert v.get("--recompute-granularity") == (None if checkpointing == "none"
                                                else checkpointing)
    if est["plan"].get("recompute_layers"):
        chunks = lay["pp"] * lay["vpp"]
        assert v["--recompute-method"] == "block"
        assert int(v["--recompute-num-layers"]) * chunks == est["plan"]["recompute_layers"]
    assert ("--optimizer-cpu-offload" in v) == (est["plan"]["offload"] == "optimizer")
    # the steps train the estimate's tokens in full sequences
    tokens = est["assumptions"]["dataset_tokens"]
    per_step = int(v["--global-batch-size"]) * int(v["--seq-length"])
    assert int(v["--train-iters"]) == -(-int(tokens) // per_step)


@pytest.mark.parametrize("label", list(PLANS))
def test_the_model_shape_is_the_catalogs(exported, label):
    text, _, _ = exported[label]
    model = catalog.load_models()[PLANS[label][1]]
    v = _values(_torchrun(text))
    assert int(v["--num-layers"]) == model.n_layers
    assert int(v["--hidden-size"]) == model.d_model
    assert int(v["--num-attention-heads"]) == model.n_heads
    assert int(v.get("--num-query-groups") or model.n_heads) == (model.n_kv_heads
                                                                 or model.n_heads)
    head = model.head_dim or model.d_model // model.n_heads
    assert int(v.get("--kv-channels") or model.d_model // model.n_heads) == head
    assert int(v["--vocab-size"]) == model.vocab_size
    assert ("--swiglu" in v) == (model.mlp == "gated")
    assert ("--untie-embeddings-and-output-weights" in v) == (not model.tied_embeddings)
    assert v["--normalization"] == {"rmsnorm": "RMSNorm", "layernorm": "LayerNorm"}[model.norm]
    if model.n_experts > 1:
        assert int(v["--num-experts"]) == model.n_experts
        assert int(v["--moe-router-topk"]) == model.experts_per_token
        assert int(v["--ffn-hidden-size"]) == (model.moe_d_ff or model.d_ff)
    else:
        assert int(v["--ffn-hidden-size"]) == model.d_ff


def test_a_full_fine_tune_loads_a_checkpoint_and_pretraining_does_not(exported):
    fine = _values(_torchrun(exported["8B full, 8x H100 (TP x PP x VPP)"][0]))
    assert fine["--load"] == "$MEGATRON_CHECKPOINT" and "--finetune" in fine
    pre = _values(_torchrun(exported["GPT-2 pretrain on one RTX 4090, selective "
                                     "recomputation"][0]))
    assert "--load" not in pre and "--finetune" not in pre
    assert pre["--lr"] == "0.0003" and fine["--lr"] == "1e-05"


@pytest.mark.parametrize("label", list(TRAINING))
def test_every_training_plan_of_the_spread_runs_as_priced_or_is_refused(label):
    """The export tests' spread: Megatron-LM writes each plan's own layout, never a
    fallback, or refuses with one line naming the field (adapters, 4-bit bases, 8-bit
    AdamW and models its options cannot describe)."""
    flags = TRAINING[label]
    code, text, err = _export(*flags)
    if code != 0:
        assert code == 2, err
        last = err.strip().splitlines()[-1]
        assert re.match(r"export megatron: (task|quant|optimizer|precision|offload|model|"
                        r"zero|recompute_layers):", last), last
        return
    assert "cannot run" not in err
    est = _reproduced(text)
    code, out, _ = run_cli("estimate", *flags, "--json", "--no-measured")
    priced = json.loads(out)
    assert est["time"].get("layout") == priced["time"].get("layout"), label
    assert est["memory"]["per_gpu_bytes"] == pytest.approx(priced["memory"]["per_gpu_bytes"],
                                                           rel=1e-9)


@pytest.mark.parametrize(("flags", "why"), [
    (["--model", "llama-3.1-8b", "--task", "lora", "--gpu", "h100-sxm", "--gpus", "8"],
     "task: Megatron-LM trains every weight"),
    (["--model", "llama-3.1-8b", "--task", "full", "--precision", "bf16-pure", "--gpu",
      "h100-sxm", "--gpus", "8"], "precision:"),
    (["--model", "llama-3.1-8b", "--task", "full", "--optimizer", "adamw8bit", "--gpu",
      "h100-sxm", "--gpus", "8"], "optimizer: Megatron-LM has no adamw8bit"),
    (["--model", "gpt-oss-20b", "--task", "full", "--gpu", "h100-sxm", "--gpus", "8"],
     "model: gpt-oss-20b mixes windowed and global attention"),
    (["--model", "llama-3.1-70b", "--task", "full", "--gpu", "h100-sxm", "--gpus", "32",
      "--layout", "manual", "--tp", "4", "--pp", "4", "--vpp", "2", "--zero", "1",
      "--checkpointing", "full", "--recompute-layers", "12"],
     "recompute_layers: Megatron-LM recomputes the same number of layers in each of the 8"),
    (["--model", "llama-3.1-8b", "--task", "infer", "--gpu", "h100-sxm"], "--task:"),
])
def test_what_megatron_cannot_run_is_refused_with_the_reason(flags, why):
    code, _, err = _export(*flags)
    assert code == 2
    assert why in err, err


def test_the_data_parallel_exports_name_the_megatron_export():
    code, _, err = run_cli("export", "deepspeed", "--model", "llama-3.1-8b", "--task", "full",
                           "--gpu", "h100-sxm", "--gpus", "8", "--tp", "2", "--pp", "4",
                           "--no-measured")
    assert code == 0
    assert "cannot run" in err and "gpuadvisor export megatron" in err


def test_launch_with_the_megatron_launcher_is_the_megatron_export():
    flags = PLANS["8B full, 8x H100 (TP x PP x VPP)"]
    assert run_cli("export", "launch", "--launcher", "megatron", *flags,
                   "--no-measured")[1] == _export(*flags)[1]
    code, _, err = run_cli("export", "deepspeed", "--launcher", "megatron", *flags)
    assert code == 2 and "--launcher megatron" in err


def test_a_skypilot_task_runs_the_megatron_script_on_every_node():
    flags = PLANS["70B pretrain fp8, 64x H100, pinned TP 4 x PP 8 x VPP 5 ZeRO-1"]
    code, text, err = run_cli("export", "skypilot", "--launcher", "megatron", *flags,
                              "--cloud", "aws", "--no-measured")
    assert code == 0, err
    task = yaml.safe_load(text)
    assert task["num_nodes"] == 8
    assert task["resources"]["accelerators"] == "H100:8"
    assert task["resources"]["image_id"].startswith("docker:nvcr.io/nvidia/pytorch:")
    assert MEGATRON_COMMIT in task["setup"]
    run = task["run"]
    assert 'NODE_RANK="$SKYPILOT_NODE_RANK"' in run and "SKYPILOT_NODE_IPS" in run
    v = _values(_torchrun(run))
    assert (v["--tensor-model-parallel-size"], v["--pipeline-model-parallel-size"],
            v["--num-virtual-stages-per-pipeline-rank"]) == ("4", "8", "5")
    assert "train.py" not in text  # the user's own script is not needed


def test_a_cloud_that_runs_no_container_is_refused():
    flags = PLANS["8B full, 8x H100 (TP x PP x VPP)"]
    code, _, err = run_cli("export", "skypilot", "--launcher", "megatron", *flags,
                           "--cloud", "shadeform", "--no-measured")
    assert code == 2 and "runs no Docker image on shadeform" in err


def test_the_no_docker_clouds_are_skypilots_own():
    """The pinned set equals the clouds whose SkyPilot driver declares ``DOCKER_IMAGE``
    unsupported (in ``_CLOUD_UNSUPPORTED_FEATURES`` or, IBM and OCI,
    ``_unsupported_features_for_resources``; Slurm where its cluster has no container
    runtime), read from the installed SkyPilot's sources."""
    import inspect

    import sky
    from sky import clouds

    found = set()
    for name in dir(clouds):
        cls = getattr(clouds, name)
        if (isinstance(cls, type) and issubclass(cls, clouds.Cloud)
                and cls is not clouds.Cloud
                and "CloudImplementationFeatures.DOCKER_IMAGE:" in inspect.getsource(cls)):
            found.add(cls.__name__.lower())
    assert sky.__version__.startswith("0.14.")  # the release the set was read from
    assert found == NO_DOCKER_CLOUDS


def test_folded_experts_are_written_whole(exported):
    """EP 32 over TP 2 x DP 16 runs with Megatron-Core's folding: expert tensor parallel 1."""
    v = _values(_torchrun(exported["Qwen3-235B-A22B pretrain fp8, 256x H100, EP 32 folded "
                                   "over TP 2"][0]))
    assert v["--expert-model-parallel-size"] == "32"
    assert v["--expert-tensor-parallel-size"] == "1"
    assert v["--tensor-model-parallel-size"] == "2"
    plain = _values(_torchrun(exported["Qwen3-30B-A3B pretrain, 16x H100 (experts "
                                       "parallel)"][0]))
    assert "--expert-tensor-parallel-size" not in plain
