"""``export --offer`` with ``--gpu`` given by the card's name as the driver prints it."""

from __future__ import annotations

from gpuadvisor.cli import main

BASE = ["export", "skypilot", "--model", "llama-3.1-8b", "--task", "qlora",
        "--offer", "runpod-community-rtx-4090"]


def test_the_offers_card_by_its_driver_name_is_accepted(capsys):
    assert main([*BASE, "--gpu", "NVIDIA GeForce RTX 4090"]) == 0
    out = capsys.readouterr().out
    assert "runpod-community-rtx-4090" in out and "RTX 4090" in out


def test_another_card_by_name_is_refused_naming_both_ids(capsys):
    assert main([*BASE, "--gpu", "RTX 3090"]) == 2
    err = capsys.readouterr().err
    assert "rtx-4090" in err and "rtx-3090" in err
