"""The launch line: torchrun / accelerate launch for one node and for several."""

from __future__ import annotations

import shlex

import pytest

from gpuadvisor.core.plan import Plan
from gpuadvisor.export import launch_line, launch_script, node_layout


def test_one_node_torchrun_starts_one_process_per_gpu():
    assert launch_line(Plan(n_gpus=4)) == "torchrun --standalone --nproc_per_node 4 train.py"


def test_deepspeed_plans_pass_the_config_to_the_script_under_torchrun():
    line = launch_line(Plan(n_gpus=4, zero_stage=2))
    assert shlex.split(line)[-3:] == ["train.py", "--deepspeed", "ds_config.json"]
    # FSDP runs through accelerate's config instead: no --deepspeed.
    assert "--deepspeed" not in launch_line(Plan(n_gpus=4, zero_stage=2), backend="fsdp")


def test_two_nodes_take_rank_and_master_address_from_the_environment():
    words = shlex.split(launch_line(Plan(n_gpus=16), node_layout(16, 8)), posix=False)
    assert words[words.index("--nnodes") + 1] == "2"
    assert words[words.index("--nproc_per_node") + 1] == "8"
    assert words[words.index("--node_rank") + 1] == "$NODE_RANK"
    sky = launch_line(Plan(n_gpus=16), node_layout(16, 8), skypilot=True)
    assert "--node_rank $SKYPILOT_NODE_RANK" in sky


def test_accelerate_launch_uses_the_config_file_and_machine_rank_on_several_nodes():
    assert launch_line(Plan(n_gpus=2), launcher="accelerate") == (
        "accelerate launch --config_file accelerate.yaml train.py")
    line = launch_line(Plan(n_gpus=16), node_layout(16, 8), launcher="accelerate")
    assert "--machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR" in line


def test_the_users_script_and_arguments_are_shell_quoted():
    line = launch_line(Plan(), script="my train.py", script_args=["--lr", "1e-4; rm -rf /"])
    assert shlex.split(line)[-3:] == ["my train.py", "--lr", "1e-4; rm -rf /"]


def test_the_snippet_says_train_py_is_the_users_script():
    text = launch_script(Plan(n_gpus=2, zero_stage=2, offload="optimizer"))
    assert text.splitlines()[0].startswith("# train.py stands for your own training script")
    assert "DeepSpeedCPUAdam" in text
    assert text.rstrip().splitlines()[-1].startswith("torchrun ")


def test_node_layout_fills_whole_machines_or_says_which_counts_do():
    assert node_layout(4, 8) == node_layout(4, 4)
    assert (node_layout(16, 8).nodes, node_layout(16, 8).gpus_per_node) == (2, 8)
    with pytest.raises(ValueError, match="use 8 or 16"):
        node_layout(12, 8)
    with pytest.raises(ValueError, match="launcher"):
        launch_line(Plan(), launcher="mpirun")
