"""The hosted-API catalog (``catalog/apis.toml``): every row dated and sourced, bad rows named
with their entry and field, user overrides on top like every other catalog, and which offers
apply to which model."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from gpuadvisor import catalog
from gpuadvisor.catalog import load_apis, override_path, validate_file
from gpuadvisor.core.apis import ApiOffer, apis_for, match_key

SHIPPED = load_apis()
MODELS = catalog.load_models()

VALID_ENTRY = """\
[my-api]
provider = "Example"
model = "llama-3.1-8b"
model_name = "meta-llama/Meta-Llama-3.1-8B-Instruct"
input_usd_per_mtok = 0.05
output_usd_per_mtok = 0.08
as_of = "2026-11-30"
source = "https://example.com/pricing"
"""


def write(folder: Path, text: str, name: str = "apis.toml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def problems_of(tmp_path: Path, text: str) -> list[str]:
    return validate_file(write(tmp_path, text))


def with_line(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


# -- the shipped file -----------------------------------------------------------------------


def test_shipped_apis_file_is_valid_and_loads():
    assert validate_file(catalog.catalog_dir() / "apis.toml") == []
    assert len(SHIPPED) >= 25


@pytest.mark.parametrize("model_id", [
    "llama-3.1-8b", "llama-3.1-70b", "llama-3.3-70b", "qwen3-32b", "qwen3-30b-a3b",
    "qwen3-235b-a22b", "gpt-oss-20b", "gpt-oss-120b", "deepseek-v3", "deepseek-r1",
    "gemma-3-27b", "mistral-7b"])
def test_the_common_open_models_have_an_api_price(model_id):
    assert apis_for(model_id, SHIPPED.values(), MODELS[model_id].name, list(MODELS))


def test_every_api_row_is_dated_sourced_and_names_a_model_preset():
    for api in SHIPPED.values():
        assert date.fromisoformat(api.as_of) <= date(2026, 12, 3), api.id
        assert api.source.startswith("https://"), api.id
        assert api.model in MODELS and all(m in MODELS for m in api.also_for), api.id
        assert api.output_usd_per_mtok < 5 and api.input_usd_per_mtok < 5, api.id


def test_spot_checks_against_the_sources():
    # https://deepinfra.com/meta-llama/Meta-Llama-3.1-8B-Instruct/api: "$0.055 / Mtoken".
    api = SHIPPED["deepinfra-llama-3.1-8b"]
    assert (api.input_usd_per_mtok, api.output_usd_per_mtok) == (0.055, 0.055)
    # https://fireworks.ai/models/fireworks/gpt-oss-120b: "$0.15 / $0.60 Per 1M Tokens".
    api = SHIPPED["fireworks-gpt-oss-120b"]
    assert (api.input_usd_per_mtok, api.output_usd_per_mtok) == (0.15, 0.60)


# -- bad rows, named ------------------------------------------------------------------------


def test_valid_entry_loads(tmp_path):
    apis = load_apis(write(tmp_path, VALID_ENTRY))
    api = apis["my-api"]
    assert isinstance(api, ApiOffer) and api.kind == "api" and not api.user
    assert api.output_usd_per_mtok == 0.08 and api.also_for == ()


def test_missing_output_price_is_named(tmp_path):
    text = VALID_ENTRY.replace("output_usd_per_mtok = 0.08\n", "")
    assert problems_of(tmp_path, text) == [
        "apis.toml: [my-api] field 'output_usd_per_mtok': missing; it takes a number in USD "
        "per million tokens"]


def test_negative_price_is_rejected(tmp_path):
    text = with_line(VALID_ENTRY, "input_usd_per_mtok = 0.05", "input_usd_per_mtok = -1")
    assert problems_of(tmp_path, text) == [
        "apis.toml: [my-api] field 'input_usd_per_mtok': must be >= 0 USD per million "
        "tokens, got -1"]


def test_price_with_a_currency_sign_is_rejected_with_the_fix(tmp_path):
    text = with_line(VALID_ENTRY, "output_usd_per_mtok = 0.08", 'output_usd_per_mtok = "$0.08"')
    (problem,) = problems_of(tmp_path, text)
    assert problem.startswith("apis.toml: [my-api] field 'output_usd_per_mtok': takes a number")


def test_both_prices_zero_is_not_a_price(tmp_path):
    text = with_line(VALID_ENTRY, "input_usd_per_mtok = 0.05", "input_usd_per_mtok = 0")
    text = with_line(text, "output_usd_per_mtok = 0.08", "output_usd_per_mtok = 0")
    (problem,) = problems_of(tmp_path, text)
    assert problem.startswith("apis.toml: [my-api] ") and "free tier is not a price" in problem


def test_unknown_model_preset_is_named_with_a_suggestion(tmp_path):
    text = with_line(VALID_ENTRY, 'model = "llama-3.1-8b"', 'model = "llama-3.1-8"')
    (problem,) = problems_of(tmp_path, text)
    assert problem == ("apis.toml: [my-api] field 'model': unknown model preset "
                       "'llama-3.1-8' (did you mean 'llama-3.1-8b'?)")


def test_unknown_also_for_preset_is_named(tmp_path):
    text = VALID_ENTRY + 'also_for = ["llama-9-8b"]\n'
    (problem,) = problems_of(tmp_path, text)
    assert problem.startswith("apis.toml: [my-api] field 'also_for': unknown model preset "
                              "'llama-9-8b'")


def test_impossible_day_and_unknown_key_are_each_named(tmp_path):
    text = with_line(VALID_ENTRY, 'as_of = "2026-11-30"', 'as_of = "2026-02-30"')
    assert problems_of(tmp_path, text) == [
        "apis.toml: [my-api] field 'as_of': '2026-02-30' is not a real day; write a day like "
        "'2026-11-30'"]
    text = VALID_ENTRY + "price_usd = 1\n"
    (problem,) = problems_of(tmp_path, text)
    assert problem.startswith("apis.toml: [my-api] field 'price_usd': unknown key")


def test_every_bad_row_is_listed(tmp_path):
    second = with_line(VALID_ENTRY, "[my-api]", "[other-api]")
    second = with_line(second, 'provider = "Example"', 'provider = ""')
    first = with_line(VALID_ENTRY, 'source = "https://example.com/pricing"\n', "")
    problems = problems_of(tmp_path, first + "\n" + second)
    assert [p.split(" field ")[0] for p in problems] == ["apis.toml: [my-api]",
                                                         "apis.toml: [other-api]"]


# -- the user's own prices ------------------------------------------------------------------


def test_user_file_replaces_and_adds_and_marks_them_as_the_users():
    override = VALID_ENTRY + """
["deepinfra-llama-3.1-8b"]
provider = "DeepInfra"
model = "llama-3.1-8b"
model_name = "meta-llama/Meta-Llama-3.1-8B-Instruct"
input_usd_per_mtok = 0.01
output_usd_per_mtok = 0.02
as_of = "2026-12-01"
source = "my invoice"
"""
    write(override_path("apis").parent, override)
    warnings: list[str] = []
    apis = load_apis(warnings=warnings)
    assert warnings == []
    assert len(apis) == len(SHIPPED) + 1
    assert apis["my-api"].user and apis["deepinfra-llama-3.1-8b"].output_usd_per_mtok == 0.02
    assert apis["deepinfra-llama-3.1-8b"].user
    assert not apis["fireworks-gpt-oss-120b"].user


def test_broken_user_file_is_set_aside_and_the_shipped_apis_load():
    path = write(override_path("apis").parent,
                 VALID_ENTRY.replace("output_usd_per_mtok = 0.08", "output_usd_per_mtok = -2"))
    warnings: list[str] = []
    assert load_apis(warnings=warnings) == SHIPPED
    assert len(warnings) == 1 and "was not used" in warnings[0]
    assert "apis.toml: [my-api] field 'output_usd_per_mtok'" in warnings[0]
    assert not path.exists()


# -- which offers apply -----------------------------------------------------------------------


def test_match_key_drops_organisation_and_serving_words():
    assert match_key("meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo") == "llama-3.1-8b"
    assert match_key("google/gemma-3-27b-it") == "gemma-3-27b"
    assert match_key("Qwen/Qwen3-32B-FP8") == "qwen3-32b"


def test_a_preset_matches_its_own_and_its_same_architecture_offers_only():
    ids = list(MODELS)
    for_31 = {a.id for a in apis_for("llama-3.1-70b", SHIPPED.values(), "Llama 3.1 70B", ids)}
    # The Llama 3.3 70B endpoints list llama-3.1-70b in also_for: the same shapes.
    assert "deepinfra-llama-3.3-70b-turbo" in for_31 and "deepinfra-llama-3.1-70b-turbo" in for_31
    for_8b = apis_for("llama-3.1-8b", SHIPPED.values(), "Llama 3.1 8B", ids)
    assert all(a.model == "llama-3.1-8b" for a in for_8b)
    # Cheapest output price first.
    assert [a.output_usd_per_mtok for a in for_8b] == sorted(a.output_usd_per_mtok
                                                             for a in for_8b)


def test_a_model_outside_the_presets_matches_by_name():
    found = apis_for("my-llama", SHIPPED.values(), "Meta-Llama-3.1-8B-Instruct", list(MODELS))
    assert found and {a.model for a in found} == {"llama-3.1-8b"}
    assert apis_for("my-model", SHIPPED.values(), "Llama-3.1-7B", list(MODELS)) == []


def test_no_api_lists_qwen3_8b():
    assert apis_for("qwen3-8b", SHIPPED.values(), MODELS["qwen3-8b"].name, list(MODELS)) == []
