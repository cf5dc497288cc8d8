"""Exports: turn a plan (and a chosen option) into what the user's own tools run.

* :func:`skypilot_task` — a SkyPilot task YAML for a cloud/rent option.
* :func:`accelerate_yaml` / :func:`accelerate_config` — a Hugging Face accelerate config.
* :func:`deepspeed_json` / :func:`deepspeed_config` — a DeepSpeed ZeRO config.
* :func:`launch_line` / :func:`launch_script` — the ``torchrun`` or ``accelerate launch`` line.
* :func:`megatron_script` — Megatron-LM's ``pretrain_gpt.py`` with the estimate's layout
  (tensor, pipeline, context and expert parallelism as priced).
* :func:`markdown_report` / :func:`html_report` — a report with the charts embedded.
* :func:`ollama_modelfile`, :func:`llama_server_line`, :func:`vllm_serve_line` — serving an
  inference plan with the settings its estimate used.

Pure text generation from core records: no Qt, no torch, no files (the caller writes). Every
export is checked by parsing it back (JSON, YAML) in ``tests/export``. Combinations the
target tool cannot run as planned raise ``ValueError`` with the field's name first.
"""

from .accelerate import accelerate_config, accelerate_yaml
from .deepspeed import deepspeed_config, deepspeed_json
from .launch import NodeLayout, launch_line, launch_script, node_layout
from .megatron import megatron_script
from .report import SuggestionRow, html_report, markdown_report, suggestion_row
from .serve import SERVE_EXPORTS, llama_server_line, ollama_modelfile, vllm_serve_line
from .skypilot import (
    DEFAULT_GPUS_PER_NODE,
    SKYPILOT_ACCELERATORS,
    skypilot_accelerator,
    skypilot_cloud,
    skypilot_task,
)

__all__ = ["DEFAULT_GPUS_PER_NODE", "SERVE_EXPORTS", "SKYPILOT_ACCELERATORS", "NodeLayout",
           "SuggestionRow", "accelerate_config", "accelerate_yaml", "deepspeed_config",
           "deepspeed_json", "html_report", "launch_line", "launch_script",
           "llama_server_line", "markdown_report", "megatron_script", "node_layout",
           "ollama_modelfile",
           "skypilot_accelerator", "skypilot_cloud", "skypilot_task", "suggestion_row",
           "vllm_serve_line"]
