"""The "Examples" section at the end of each verb's ``--help`` (and of the man page)."""

from __future__ import annotations

#: Verb (sub-verbs joined by a space) -> command lines a newcomer can copy, with a comment.
EXAMPLES: dict[str, list[tuple[str, str]]] = {
    "estimate": [
        ("gpuadvisor estimate --model llama-3.1-8b --task qlora --gpu rtx-4090",
         "does a QLoRA fine-tune of Llama 3.1 8B fit a 24 GB card, and how long?"),
        ("gpuadvisor estimate --model qwen3-8b --task lora --gpu 'RTX 3090' --seq 8k",
         "a GPU by the name the driver prints; 8k = 8,192 tokens"),
        ("gpuadvisor estimate --model llama-2-70b --task pretrain --gpu h100-sxm --gpus 64 "
         "--tokens 2T", "the fastest parallel layout on 64 GPUs, with the step decomposed"),
        ("gpuadvisor estimate --model qwen3-30b-a3b --task infer --framework llama.cpp "
         "--quant q4_k_m --gpu rtx-4060-ti-16gb --json", "decode speed with llama.cpp, as JSON"),
        ("gpuadvisor estimate --model llama-3.1-70b --task infer --quant q4_k_m --gpu-layers 40 "
         "--gpu rtx-4090", "a 70B model half on a 24 GB card (-ngl 40), the other 40 layers "
         "read from host RAM each token"),
        ("gpuadvisor estimate --model llama-3.1-8b --task full --gpu rtx-3060-12gb || echo no",
         "exit status 3 when the plan does not fit"),
    ],
    "suggest": [
        ("gpuadvisor suggest --model llama-3.1-8b --task qlora --tokens 100M",
         "your card, cards to buy, rentals and clouds, cheapest first"),
        ("gpuadvisor suggest --model qwen3-32b --task infer --quant q4_k_m --framework llama.cpp",
         "per million tokens: own card, rentals and hosted APIs, with the break-even"),
    ],
    "export": [
        ("gpuadvisor export skypilot --model llama-3.1-8b --task qlora --gpu a100-sxm-80gb",
         "a SkyPilot task that rents what the estimate priced"),
        ("gpuadvisor export llama-server --model qwen3-8b --task infer --quant q4_k_m "
         "--gpu rtx-4090", "the llama-server line with the estimate's memory settings"),
        ("gpuadvisor export report --format html --model gpt2 --out report.html",
         "a report to share"),
    ],
    "catalog": [("gpuadvisor catalog list --kind models", "every model preset"),
                ("gpuadvisor catalog show rtx-4090", "one entry with its sources")],
    "catalog list": [("gpuadvisor catalog list", "GPUs"),
                     ("gpuadvisor catalog list --kind offers --json", "offers as JSON")],
    "catalog show": [("gpuadvisor catalog show h100-sxm", "a GPU's rates and source")],
    "catalog validate": [("gpuadvisor catalog validate my-offers.toml",
                          "check a catalog file before using it")],
    "catalog update": [("gpuadvisor catalog update --from prices.toml",
                        "install newer prices from a file (nothing is downloaded unless asked)")],
    "check-log": [("gpuadvisor check-log vllm.log --gpu rtx-3090",
                   "vLLM's start-up log against the estimate of its plan"),
                  ("gpuadvisor check-log server.log --json",
                   "Ollama's or llama-server's log (model and GPU read from it), for "
                   "scripts")],
    "detect": [("gpuadvisor detect", "the GPUs and host of this machine"),
               ("gpuadvisor detect --simulate '2x rtx-3090' --json", "a simulated rig")],
    "probe": [("gpuadvisor probe", "a quick probe of the first GPU (or the CPU)"),
              ("gpuadvisor probe --full --python ~/venvs/train/bin/python",
               "larger sizes, in your training environment")],
    "gui": [("gpuadvisor gui", "open the app"),
            ("gpuadvisor gui --simulate '2x rtx-3090'", "present with a demo rig")],
    "completion": [("gpuadvisor completion bash > ~/.local/share/bash-completion/completions/"
                    "gpuadvisor", "bash; zsh and fish likewise")],
    "man": [("gpuadvisor man | man -l -", "read the manual page")],
}


def epilog(verb: str) -> str:
    """The Examples text for ``verb`` ("" for a verb without examples)."""
    rows = EXAMPLES.get(verb)
    if not rows:
        return ""
    lines = ["Examples:"]
    for command, what in rows:
        lines += [f"  # {what}", f"  {command}"]
    return "\n".join(lines)
