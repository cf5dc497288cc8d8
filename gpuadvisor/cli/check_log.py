"""``gpuadvisor check-log FILE|-``: an engine's log against the estimate of the plan it ran."""

from __future__ import annotations

import argparse
import sys

from .args import InputError, engine_version, int_in, json_text, load_gpu, load_model, quant_name


def add_parser(verbs) -> None:
    """Add the ``check-log`` verb to ``verbs``."""
    chk = verbs.add_parser(
        "check-log", help="planned vs observed: read a vLLM, llama.cpp, Ollama or PyTorch log",
        description="Read a server's start-up log (vLLM, llama-server / llama.cpp, Ollama) or "
                    "a PyTorch memory summary, find the plan it ran (model, GPU and settings "
                    "from the log; the flags fill in what it does not say), and show the "
                    "estimate beside what the engine reported, term by term. What the log "
                    "shows about the card (the memory CUDA reports, vLLM's non-torch "
                    "memory) is kept and used by later estimates for that GPU.")
    chk.add_argument("log", metavar="FILE", help="the log file, or - for standard input")
    chk.add_argument("--engine", choices=("vllm", "llama.cpp", "ollama", "torch"),
                     default=None, help="what wrote the log (default: found from its lines)")
    chk.add_argument("--model", default=None,
                     help="the model (a preset id or a model on disk); default: the one the "
                          "log names")
    chk.add_argument("--gpu", default=None,
                     help="the GPU (catalog id or name); default: the one the log names")
    chk.add_argument("--gpus", type=int_in(1, 1024), default=1,
                     help="GPUs, when the log does not say (default 1)")
    chk.add_argument("--quant", type=quant_name, default=None,
                     help="the weights' quantization, when the log does not say")
    chk.add_argument("--micro-batch", type=int_in(1, 65_536), default=1, metavar="N",
                     help="sequences at once (vLLM max_num_seqs), when the log does not say")
    chk.add_argument("--seq", type=int_in(1, 67_108_864), default=None, metavar="N",
                     help="context length, when the log does not say")
    chk.add_argument("--engine-version", type=engine_version, default=None, metavar="X.Y.Z",
                     help="the engine's release, when the log does not print it")
    chk.add_argument("--task", choices=("pretrain", "full", "lora", "qlora"), default=None,
                     help="a PyTorch log: the training task (the other flags of 'estimate' "
                          "are not taken here; use --json and 'estimate' for more)")
    chk.add_argument("--no-keep", action="store_true",
                     help="do not keep what the log shows about the card")
    chk.add_argument("--json", action="store_true", help="machine-readable output")


def _read_text(path: str) -> str:
    from gpuadvisor.core.limits import MAX_LOG_BYTES
    from gpuadvisor.userfiles import read_regular_file

    if path == "-":
        data = sys.stdin.buffer.read(MAX_LOG_BYTES + 1) if hasattr(sys.stdin, "buffer") \
            else sys.stdin.read(MAX_LOG_BYTES + 1).encode()
    else:
        try:
            data = read_regular_file(path, MAX_LOG_BYTES)
        except OSError as exc:
            raise InputError(f"check-log: {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_LOG_BYTES:
        raise InputError(f"check-log: {path}: over {MAX_LOG_BYTES // 2**20} MiB; give the "
                         "part from the engine's start to its first request")
    return data.decode("utf-8", "replace")


def command(args: argparse.Namespace) -> int:
    from gpuadvisor.core.plan import Plan
    from gpuadvisor.probes import logcheck, observed
    from gpuadvisor.workspace.logs import check_log

    text = _read_text(args.log)
    model = load_model(args.model) if args.model is not None else None
    gpu = load_gpu(args.gpu, observed=False)[0] if args.gpu is not None else None
    if args.task is not None:  # a PyTorch log of a training run
        base = Plan(task=args.task, n_gpus=args.gpus, quant=args.quant,
                    micro_batch=args.micro_batch, seq_len=args.seq or 2048)
    else:
        base = Plan(task="infer", n_gpus=args.gpus, quant=args.quant,
                    micro_batch=args.micro_batch)
        if args.seq:
            base = base.with_changes(seq_len=max(1, args.seq - base.new_tokens))
    try:
        checked = check_log(text, args.log, engine=args.engine, model=model, gpu=gpu,
                            base=base, engine_version=args.engine_version,
                            keep=not args.no_keep)
    except ValueError as exc:
        text = str(exc)  # a log's own errors name it already
        where = "" if text.startswith(f"{args.log}:") else f"{args.log}: "
        raise InputError(f"check-log: {where}{text}") from None
    for warning in checked.warnings:
        print(f"gpuadvisor check-log: {warning}", file=sys.stderr)
    result, kept = checked.result, checked.kept
    if args.json:
        data = result.to_json()
        data["kept"] = kept
        print(json_text(data))
        return 0
    sys.stdout.write(logcheck.format_check(result))
    if kept:
        what = ", ".join(k.replace("_", " ") for k in ("total_memory", "non_torch") if k in kept)
        print(f"\nKept for later estimates on {result.gpu.name}: {what} "
              f"({observed.observations_file()}).")
    return 0


__all__ = ["add_parser", "command"]
