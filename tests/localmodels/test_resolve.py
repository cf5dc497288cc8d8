"""``--model`` on disk: model folders, the Hugging Face cache, Ollama and LM Studio folders,
standard input; found models listed; every problem one line naming the file, exit 2."""

from __future__ import annotations

import io
import json
import os
import shutil
import time
from pathlib import Path

import pytest

from gpuadvisor.cli import main
from gpuadvisor.localmodels import (
    ModelFileError,
    find_local_models,
    hf_hub_cache,
    resolve_model_ref,
    spec_from_local,
)

from .gguf_bytes import TINY_PARAMS, TINY_WEIGHT_BYTES, write_tiny_llama

DATA = Path(__file__).resolve().parents[1] / "data" / "hf_configs"
LLAMA_CONFIG = json.loads((DATA / "llama-3.1-8b.json").read_text())
LLAMA_31_8B_PARAMS = 8_030_261_248


@pytest.fixture
def home(tmp_path, monkeypatch):
    """An empty home folder; no cache variables from the real environment."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.setenv("USERPROFILE", str(folder))
    for name in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME",
                 "OLLAMA_MODELS"):
        monkeypatch.delenv(name, raising=False)
    return folder


def make_hf_repo(cache: Path, repo_id: str, files: dict[str, bytes | str],
                 commit: str = "0123abcd", ref: bool = True) -> Path:
    """A repo in the hub cache layout: blobs, snapshots/<commit>/<file> links, refs/main."""
    repo = cache / ("models--" + repo_id.replace("/", "--"))
    snapshot = repo / "snapshots" / commit
    snapshot.mkdir(parents=True)
    (repo / "blobs").mkdir(exist_ok=True)
    for i, (name, content) in enumerate(files.items()):
        blob = repo / "blobs" / f"{commit}-{i}"
        if isinstance(content, str):
            blob.write_text(content)
        elif isinstance(content, Path):
            shutil.copyfile(content, blob)
        else:
            blob.write_bytes(content)
        link = snapshot / name
        try:
            link.symlink_to(os.path.relpath(blob, snapshot))
        except OSError:  # no symlinks (Windows without developer mode): the cache copies
            shutil.copyfile(blob, link)
    if ref:
        (repo / "refs").mkdir(exist_ok=True)
        (repo / "refs" / "main").write_text(commit)
    return repo


def make_ollama_model(models: Path, name: str, tag: str, gguf: Path,
                      namespace: str = "library") -> Path:
    digest = "sha256:" + "ab" * 32
    blob = models / "blobs" / digest.replace(":", "-")
    blob.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(gguf, blob)
    manifest = models / "manifests" / "registry.ollama.ai" / namespace / name / tag
    manifest.parent.mkdir(parents=True)
    manifest.write_text(json.dumps({"schemaVersion": 2, "layers": [
        {"mediaType": "application/vnd.ollama.image.template", "digest": "sha256:" + "cd" * 32},
        {"mediaType": "application/vnd.ollama.image.model", "digest": digest,
         "size": blob.stat().st_size}]}))
    return blob


# ----------------------------------------------------------------------------- HF cache
def test_hub_cache_follows_huggingface_hubs_order(home, monkeypatch, tmp_path):
    assert hf_hub_cache() == home / ".cache" / "huggingface" / "hub"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert hf_hub_cache() == tmp_path / "xdg" / "huggingface" / "hub"
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    assert hf_hub_cache() == tmp_path / "hf" / "hub"
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    assert hf_hub_cache() == tmp_path / "hub"


def test_repo_id_in_the_cache_reads_the_snapshot_refs_main_names(home):
    cache = home / ".cache" / "huggingface" / "hub"
    old = dict(LLAMA_CONFIG, num_hidden_layers=2)
    repo = make_hf_repo(cache, "meta-llama/Llama-3.1-8B", {"config.json": json.dumps(old)},
                        commit="old")
    shutil.rmtree(repo / "refs")
    make_hf_repo(cache, "meta-llama/Llama-3.1-8B", {"config.json": json.dumps(LLAMA_CONFIG)},
                 commit="new")
    spec = resolve_model_ref("meta-llama/Llama-3.1-8B")
    assert spec.params().total == LLAMA_31_8B_PARAMS
    assert (spec.id, spec.name) == ("Llama-3.1-8B", "meta-llama/Llama-3.1-8B")
    assert spec.extra["hf_repo"] == "meta-llama/Llama-3.1-8B"
    assert resolve_model_ref("meta-llama/Llama-3.1-8B@old").n_layers == 2
    assert resolve_model_ref("META-LLAMA/llama-3.1-8b").n_layers == 32  # the Hub ignores case


def test_a_cached_gguf_repo_names_its_files(home, tmp_path):
    cache = home / ".cache" / "huggingface" / "hub"
    gguf = write_tiny_llama(tmp_path / "tiny.gguf")
    make_hf_repo(cache, "someone/Tiny-GGUF", {"tiny-Q4_K_M.gguf": gguf, "tiny-Q8_0.gguf": gguf})
    with pytest.raises(ModelFileError, match=r"holds 2 GGUF files .*: name one"):
        resolve_model_ref("someone/Tiny-GGUF")
    spec = resolve_model_ref("someone/Tiny-GGUF/tiny-Q8_0.gguf")
    assert spec.extra["weights_file_bytes"] == TINY_WEIGHT_BYTES
    assert spec.extra["hf_repo"] == "someone/Tiny-GGUF"


def test_uncached_repo_id_says_nothing_is_downloaded(home):
    with pytest.raises(ModelFileError) as info:
        resolve_model_ref("Qwen/Qwen3-8B")
    message = str(info.value)
    assert "not in the local Hugging Face cache" in message
    assert "never downloads" in message
    assert str(home / ".cache" / "huggingface" / "hub") in message


# ----------------------------------------------------------------------------- folders
def test_model_folder_reads_its_config_json(home, tmp_path):
    folder = tmp_path / "Llama-3.1-8B"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(LLAMA_CONFIG))
    spec = resolve_model_ref(str(folder))
    assert spec.id == "Llama-3.1-8B"
    assert spec.params().total == LLAMA_31_8B_PARAMS


def test_folder_with_one_gguf_reads_it_and_without_either_says_so(home, tmp_path):
    folder = tmp_path / "lm"
    folder.mkdir()
    with pytest.raises(ModelFileError, match=r"no config\.json and no \.gguf file"):
        resolve_model_ref(str(folder))
    write_tiny_llama(folder / "tiny.gguf")
    (folder / "mmproj-tiny-f16.gguf").write_bytes(b"GGUF")  # a vision projector: not a model
    assert resolve_model_ref(str(folder)).extra["weights_file_bytes"] == TINY_WEIGHT_BYTES


def test_hf_cache_folder_itself_is_a_model_folder(home):
    repo = make_hf_repo(home / "c", "org/M", {"config.json": json.dumps(LLAMA_CONFIG)})
    assert resolve_model_ref(str(repo)).name == "org/M"


def test_ollama_blob_without_suffix_is_told_by_its_magic(home, tmp_path):
    blob = tmp_path / ("sha256-" + "ef" * 32)
    write_tiny_llama(blob)
    assert resolve_model_ref(str(blob)).extra["file_format"] == "gguf"


# ----------------------------------------------------------------------------- stdin
def test_config_json_on_stdin():
    stdin = io.StringIO(json.dumps(dict(LLAMA_CONFIG, _name_or_path="meta-llama/Llama-3.1-8B")))
    spec = resolve_model_ref("-", stdin)
    assert spec.params().total == LLAMA_31_8B_PARAMS
    assert (spec.id, spec.name) == ("Llama-3.1-8B", "meta-llama/Llama-3.1-8B")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("stdin", "words"), [
    (_Terminal(""), "nothing was piped"),  # never waits on a terminal
    (io.StringIO(""), "empty"),
    (io.StringIO("[1, 2]"), "must hold a JSON object"),
    (io.StringIO("{"), "not valid JSON"),
    (io.StringIO(" " * (6 * 1024 * 1024)), "too large"),
    (io.StringIO("[" * 100000 + "]" * 100000), "nested deeper than 32 levels"),
])
def test_bad_stdin_is_one_line(stdin, words):
    with pytest.raises(ModelFileError) as info:
        resolve_model_ref("-", stdin)
    assert words in str(info.value)
    assert "\n" not in str(info.value)


def test_cli_reads_stdin_through_sys_stdin(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(LLAMA_CONFIG)))
    assert main(["estimate", "--model", "-", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["params_total"] == LLAMA_31_8B_PARAMS


# ----------------------------------------------------------------------------- CLI errors
def _cli(capsys, ref):
    code = main(["estimate", "--model", str(ref), "--json"])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_reads_a_gguf_file(capsys, tmp_path):
    path = write_tiny_llama(tmp_path / "tiny-Q4_K_M.gguf")
    code, out, err = _cli(capsys, path)
    assert code == 0, err
    result = json.loads(out)
    assert result["model"] == "tiny-Q4_K_M"
    assert result["params_total"] == TINY_PARAMS


BAD = [
    ("missing.gguf", None, "file not found"),
    ("garbled.gguf", b"GGUF\x03\0\0\0" + b"\xff" * 40, "malformed GGUF header"),
    ("truncated.gguf", "truncated", "truncated"),
    ("weights.bin", b"\x80\x02junk" * 10, "not a config.json (not UTF-8 text) nor a GGUF"),
    ("config.json", b'{"model_type": "llama"', "not valid JSON"),
]


@pytest.mark.parametrize(("name", "content", "words"), BAD, ids=[b[0] for b in BAD])
def test_cli_bad_model_file_exits_2_with_one_line_naming_it(capsys, tmp_path, name, content,
                                                            words):
    path = tmp_path / name
    if content == "truncated":
        write_tiny_llama(path, data=False)
    elif content is not None:
        path.write_bytes(content)
    code, out, err = _cli(capsys, path)
    assert (code, out) == (2, "")
    assert len(err.strip().splitlines()) == 1
    assert str(path) in err and words in err and err.startswith("--model: ")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_cli_fifo_is_refused_without_waiting(capsys, tmp_path):
    fifo = tmp_path / "config.json"
    os.mkfifo(fifo)
    code, _out, err = _cli(capsys, fifo)
    assert code == 2 and "not a regular file" in err


def test_cli_100_mb_junk_is_refused_quickly(capsys, tmp_path):
    junk = tmp_path / "model.json"
    with open(junk, "wb") as handle:
        handle.truncate(100 * 1024 * 1024)
    start = time.perf_counter()
    code, _out, err = _cli(capsys, junk)
    assert code == 2 and "too large for a config.json" in err
    assert time.perf_counter() - start < 5


def test_preset_wins_over_a_folder_of_the_same_name(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "gpt2").mkdir()  # no config.json: reading it would fail
    assert main(["estimate", "--model", "gpt2", "--json"]) == 0
    code, _out, err = _cli(capsys, "./gpt2")
    assert code == 2 and "no config.json" in err


# ----------------------------------------------------------------------------- found
def test_found_models_in_every_place(home, tmp_path, monkeypatch):
    gguf = write_tiny_llama(tmp_path / "tiny.gguf")
    cache = home / ".cache" / "huggingface" / "hub"
    make_hf_repo(cache, "meta-llama/Llama-3.1-8B", {
        "config.json": json.dumps(LLAMA_CONFIG), "model-00001.safetensors": b"\0" * 1000})
    make_hf_repo(cache, "org/Empty", {}, ref=False)  # an empty snapshot: nothing to list
    ollama = home / ".ollama" / "models"
    make_ollama_model(ollama, "tiny", "q4", gguf)
    lms = home / ".lmstudio" / "models" / "lmstudio-community" / "Tiny-GGUF"
    lms.mkdir(parents=True)
    shutil.copyfile(gguf, lms / "Tiny-Q4_K_M.gguf")
    (lms / "mmproj-Tiny-F16.gguf").write_bytes(b"GGUF")
    found = find_local_models()
    assert [(m.place, m.label) for m in found] == [
        ("hf-cache", "meta-llama/Llama-3.1-8B"),
        ("ollama", "tiny:q4"),
        ("lmstudio", "lmstudio-community/Tiny-GGUF/Tiny-Q4_K_M.gguf"),
    ]
    assert found[0].size_bytes == 1000 and not found[0].is_gguf
    assert found[1].size_bytes == gguf.stat().st_size and found[1].is_gguf
    hf, ollama_spec, lms_spec = (spec_from_local(m) for m in found)
    assert hf.params().total == LLAMA_31_8B_PARAMS and hf.name == "meta-llama/Llama-3.1-8B"
    assert ollama_spec.name == "tiny:q4"
    assert ollama_spec.extra["weights_file_bytes"] == TINY_WEIGHT_BYTES
    assert lms_spec.extra["found_in"] == "lmstudio"
    # Every label is also a --model name.
    assert resolve_model_ref("tiny:q4").name == "tiny:q4"
    lms_ref = resolve_model_ref("lmstudio-community/Tiny-GGUF/Tiny-Q4_K_M.gguf")
    assert lms_ref.extra["file_format"] == "gguf"
    monkeypatch.setenv("OLLAMA_MODELS", str(tmp_path / "elsewhere"))
    assert [m.place for m in find_local_models()] == ["hf-cache", "lmstudio"]


def test_ollama_names_for_other_namespaces(home, tmp_path):
    gguf = write_tiny_llama(tmp_path / "tiny.gguf")
    make_ollama_model(home / ".ollama" / "models", "tiny", "latest", gguf, namespace="someone")
    assert [m.label for m in find_local_models()] == ["someone/tiny:latest"]
    assert resolve_model_ref("someone/tiny:latest").name == "someone/tiny:latest"


def test_broken_places_are_skipped(home):
    manifests = home / ".ollama" / "models" / "manifests" / "registry.ollama.ai" / "library"
    (manifests / "gone").mkdir(parents=True)
    (manifests / "gone" / "latest").write_text("{not json")
    (manifests / "gone" / "other").write_text(json.dumps({"layers": [
        {"mediaType": "application/vnd.ollama.image.model", "digest": "sha256:../../etc"}]}))
    (home / ".lmstudio" / "models" / "loose.gguf").parent.mkdir(parents=True)
    (home / ".lmstudio" / "models" / "loose.gguf").write_bytes(b"GGUF")
    assert find_local_models() == []
    with pytest.raises(ModelFileError, match="names no model blob"):
        resolve_model_ref("gone:other")


def test_a_looping_config_link_is_named_as_such_not_as_missing(tmp_path):
    from gpuadvisor.localmodels.resolve import ModelFileError, spec_from_folder

    (tmp_path / "config.json").symlink_to(tmp_path / "config.json")
    with pytest.raises(ModelFileError) as err:
        spec_from_folder(tmp_path)
    assert "config.json: cannot read" in str(err.value)
    assert "no config.json" not in str(err.value)
