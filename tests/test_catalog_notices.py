"""A user catalog file that cannot be used is set aside and every door says so: each CLI
command (its error included) and the app's window, never a card or preset dropped unsaid."""

from __future__ import annotations

from pathlib import Path

from gpuadvisor import cli
from gpuadvisor.catalog import catalog_dir, override_path, set_aside_notices


def _user_gpu_file(extra: str = "foo = 1\n") -> tuple[Path, bytes]:
    """The user's gpus.toml: the shipped RTX 4090 entry copied as ``my-rtx-4090-96gb`` with 96
    GiB, plus ``extra`` (an unknown key by default, which makes the file unusable)."""
    shipped = (catalog_dir() / "gpus.toml").read_text(encoding="utf-8")
    start = shipped.index("\n[rtx-4090]\n") + 1
    table = shipped[start:shipped.index("\n[", start + 1)].replace("[rtx-4090]",
                                                                 "[my-rtx-4090-96gb]")
    table = table.replace("memory_gib = 24", "memory_gib = 96")
    table = "\n".join(line for line in table.splitlines()
                      if not line.startswith("reported_memory_mib")) + "\n" + extra
    path = override_path("gpus")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(table, encoding="utf-8")
    return path, path.read_bytes()


def _backup(path: Path) -> Path:
    (backup,) = path.parent.glob("gpus.toml.bad-*")
    return backup


def test_a_good_user_gpu_file_is_used_and_nothing_is_said(capsys):
    path, _ = _user_gpu_file(extra="")
    code = cli.main(["estimate", "--model", "llama-3.1-8b", "--task", "lora",
                     "--gpu", "my-rtx-4090-96gb"])
    out, err = capsys.readouterr()
    # 96 GiB less the driver's 621 MiB (the estimate's reserve): 96 - 621/1024 = 95.39 GiB
    assert code == 0 and "Memory per GPU on NVIDIA GeForce RTX 4090 (95.4 GiB)" in out
    assert err == "" and path.exists() and set_aside_notices() == []


def test_an_unknown_key_sets_the_file_aside_and_the_error_says_why_the_card_is_missing(capsys):
    path, before = _user_gpu_file()
    code = cli.main(["estimate", "--model", "llama-3.1-8b", "--task", "lora",
                     "--gpu", "my-rtx-4090-96gb"])
    _, err = capsys.readouterr()
    lines = err.splitlines()
    assert code == 2
    # The error stays the first line (one line naming the bad input) ...
    assert lines[0].startswith("--gpu: unknown GPU 'my-rtx-4090-96gb'")
    # ... and what happened to the user's file follows: which file, that it was not used,
    # where it went (kept byte for byte), and the key at fault.
    backup = _backup(path)
    assert lines[1] == (f"gpuadvisor catalog: {path} (your own entries) was not used: it has 1 "
                        f"problem; the gpus catalog without them is used. It was set aside as "
                        f"{backup.name} (kept); fix it and rename it back to gpus.toml to use "
                        f"it.")
    assert "'foo'" in err and "my-rtx-4090-96gb" in err
    assert not path.exists() and backup.read_bytes() == before


def test_a_command_that_succeeds_still_tells_once(capsys):
    path, _ = _user_gpu_file()
    code = cli.main(["estimate", "--model", "llama-3.1-8b", "--task", "lora",
                     "--gpu", "rtx-4090"])
    _, err = capsys.readouterr()
    assert code == 0
    assert err.count(f"{path} (your own entries) was not used") == 1


def test_catalog_list_tells_it_once_not_twice(capsys):
    path, _ = _user_gpu_file()
    assert cli.main(["catalog", "list", "--kind", "gpus"]) == 0
    out, err = capsys.readouterr()
    assert "my-rtx-4090-96gb" not in out and "rtx-4090" in out
    assert err.count(f"{path} (your own entries) was not used") == 1


def test_the_notice_is_for_this_data_folder_only(tmp_path, monkeypatch):
    _user_gpu_file()
    from gpuadvisor import catalog

    catalog.load_gpus()
    assert len(set_aside_notices()) == 1
    monkeypatch.setenv("GPUADVISOR_DATA_DIR", str(tmp_path / "other"))
    assert set_aside_notices() == []
