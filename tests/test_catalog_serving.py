"""catalog/serving.toml: what engines load for each preset, checked at the door."""

from __future__ import annotations

import tomllib

import pytest

from gpuadvisor import catalog
from gpuadvisor.catalog import serving
from gpuadvisor.core.plan import GGUF_QUANTS
from gpuadvisor.core.serving import ServingIds

IDS = catalog.load_serving()
MODELS = catalog.load_models()


def test_the_llm_presets_people_serve_have_identifiers():
    for preset in ("llama-3.1-8b", "llama-3.1-70b", "qwen3-8b", "qwen3-30b-a3b", "mistral-7b",
                   "gemma-2-9b", "gpt-oss-20b", "phi-4"):
        assert preset in IDS, preset
        assert "/" in IDS[preset].hf_repo


@pytest.mark.parametrize("preset", sorted(IDS))
def test_every_entry_names_real_things_in_the_right_shape(preset):
    ids = IDS[preset]
    assert preset in MODELS
    assert ids.source.strip()
    owner, _, name = ids.hf_repo.partition("/")
    assert owner and name
    for quant, file in ids.gguf_files.items():
        assert quant in GGUF_QUANTS and file.endswith(".gguf") and ids.gguf_repo
    if ids.ollama:
        assert ":" in ids.ollama
    for quant, tag in ids.ollama_tags.items():
        assert quant in GGUF_QUANTS and ":" in tag


def test_a_tag_and_a_file_are_found_by_gguf_type():
    ids = ServingIds(hf_repo="o/m", source="s", ollama="m:7b", ollama_quant="q4_k_m",
                     ollama_tags={"q8_0": "m:7b-q8_0"}, gguf_repo="o/m-GGUF",
                     gguf_files={"q4_k_m": "m-Q4_K_M.gguf"})
    assert ids.ollama_tag(None) == ids.ollama_tag("q4_k_m") == "m:7b"
    assert ids.ollama_tag("q8_0") == "m:7b-q8_0"
    assert ids.ollama_tag("q6_k") is None
    assert ids.gguf_file("q4_k_m") == ("o/m-GGUF", "m-Q4_K_M.gguf")
    assert ids.gguf_file("q8_0") is None
    with pytest.raises(ValueError, match="gguf_files"):
        ServingIds(hf_repo="o/m", source="s", gguf_files={"q9_z": "x.gguf"})


def test_a_bad_entry_is_refused_naming_the_entry_and_field():
    models = set(MODELS)
    _, problems = serving._check("llama-3.1-8b", {"hf_repo": "not a repo", "source": "s",
                                                  "gguf_files": {"q4_k_m": "x.bin"}}, models)
    assert any("[llama-3.1-8b].hf_repo" in p for p in problems)
    assert any("gguf_files.q4_k_m" in p for p in problems)
    assert any("without gguf_repo" in p for p in problems)
    _, problems = serving._check("no-such-model", {"hf_repo": "a/b", "source": "s"}, models)
    assert problems == ["serving.toml: [no-such-model]: not a model preset id"]


def test_the_file_parses_and_every_key_is_a_preset():
    data = tomllib.loads((catalog.catalog_dir() / "serving.toml").read_text(encoding="utf-8"))
    assert data.pop("schema_version") == 1
    assert set(data.pop("engines")) == set(serving.ENGINES)
    assert set(data) == set(IDS) and set(data) <= set(MODELS)


def test_engine_releases_are_checked():
    found, problems = serving._releases_of({"vllm": {"release": "1", "commit": "zz",
                                                     "source": "s"}, "tgi": {}})
    assert found == {}
    assert "serving.toml: [engines.vllm].commit: 'zz' is not a commit hash" in problems
    assert "serving.toml: [engines.tgi]: unknown engine (known: vllm, llama_cpp, ollama)" \
        in problems
    assert "serving.toml: [engines.ollama]: missing" in problems
