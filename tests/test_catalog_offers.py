"""The shipped offers catalog (buy, rent, cloud prices), its schema errors, and user overrides."""

from __future__ import annotations

import dataclasses
import json
import os
import textwrap
from datetime import date
from pathlib import Path

import pytest

from gpuadvisor.catalog import (
    CatalogError,
    catalog_dir,
    catalog_warnings,
    load_gpus,
    load_offers,
    override_path,
    updated_path,
    validate_file,
)
from gpuadvisor.cli import main
from gpuadvisor.core.offers import BUY_KINDS, INTERCONNECTS, RENT_KINDS, Offer, age_days, is_stale

SHIPPED_FILE = catalog_dir() / "offers.toml"
SHIPPED = load_offers(SHIPPED_FILE)
RENTALS = [o for o in SHIPPED.values() if o.kind in RENT_KINDS]
# The day this catalog was last reviewed; stale checks use it, not the clock.
REVIEWED = date(2026, 12, 2)

VALID_ENTRY = """\
[my-offer]
kind = "rent"
gpu_id = "rtx-4090"
provider = "Example Cloud"
price_usd = 0.5
gpus_per_instance = 1
instance = "1x RTX 4090"
region = "eu-west"
interconnect = "none"
as_of = "2026-11-30"
source = "Example price list (https://example.invalid/prices), read 2026-11-30"
"""


def write(folder: Path, text: str, name: str = "offers.toml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def with_line(entry: str, old: str, new: str) -> str:
    assert old in entry, old
    return entry.replace(old, new)


def problems_of(tmp_path: Path, text: str) -> list[str]:
    return validate_file(write(tmp_path, text))


# -- the shipped catalog ----------------------------------------------------------------------


def test_shipped_offers_file_is_valid_and_loads_every_entry():
    assert validate_file(SHIPPED_FILE) == []
    raw = SHIPPED_FILE.read_text(encoding="utf-8")
    tables = [line for line in raw.splitlines() if line.startswith("[")]
    assert len(SHIPPED) == len(tables) >= 80


def test_at_least_40_rent_or_cloud_offers_from_at_least_8_providers():
    assert len(RENTALS) >= 40
    assert len({o.provider for o in RENTALS}) >= 8


def test_every_offer_names_a_gpu_of_the_gpu_catalog():
    gpus = load_gpus()
    assert sorted(o.id for o in SHIPPED.values() if o.gpu_id not in gpus) == []


@pytest.mark.parametrize(
    "provider", ["RunPod", "Vast.ai", "Lambda", "AWS", "Google Cloud", "Azure", "CoreWeave"])
def test_required_provider_has_offers(provider):
    assert any(o.provider == provider for o in RENTALS)


def test_hyperscalers_are_cloud_and_gpu_clouds_are_rent():
    for offer in RENTALS:
        expected = "cloud" if offer.provider in ("AWS", "Google Cloud", "Azure") else "rent"
        assert offer.kind == expected, offer.id


def test_runpod_has_community_and_secure_prices_for_the_same_gpu():
    community = SHIPPED["runpod-community-h100-sxm"]
    secure = SHIPPED["runpod-secure-h100-sxm"]
    assert community.gpu_id == secure.gpu_id == "h100-sxm"
    assert community.price_usd < secure.price_usd


def test_marketplace_offers_carry_a_price_range():
    vast = [o for o in RENTALS if o.provider == "Vast.ai" and not o.spot]
    ranged = [o for o in vast if o.price_low_usd is not None]
    assert len(ranged) >= 4
    for offer in ranged:
        assert offer.price_low_usd <= offer.price_usd <= offer.price_high_usd


def test_spot_or_interruptible_prices_are_below_the_on_demand_price_of_the_same_instance():
    pairs = [("coreweave-hgx-h100", "coreweave-hgx-h100-spot"),
             ("gcp-a2-highgpu-1g", "gcp-a2-highgpu-1g-spot"),
             ("gcp-a3-ultragpu-8g", "gcp-a3-ultragpu-8g-spot"),
             ("verda-rtx-a6000", "verda-rtx-a6000-spot")]
    for on_demand, spot in pairs:
        assert SHIPPED[spot].spot and not SHIPPED[on_demand].spot
        assert SHIPPED[spot].price_usd < SHIPPED[on_demand].price_usd


@pytest.mark.parametrize("offer", RENTALS, ids=[o.id for o in RENTALS])
def test_every_rental_names_instance_region_and_interconnect(offer):
    assert offer.instance and offer.region
    assert offer.interconnect in INTERCONNECTS
    assert offer.gpus_per_instance >= 1
    if offer.gpus_per_instance == 1:
        assert offer.interconnect == "none"


@pytest.mark.parametrize("offer", SHIPPED.values(), ids=list(SHIPPED))
def test_every_offer_has_a_dated_source_and_estimates_say_why(offer):
    assert "http" in offer.source or "github.com/" in offer.source
    assert age_days(offer, REVIEWED) >= 0, "as_of after the review day"
    if offer.estimate:
        assert offer.notes.startswith("estimate: ") and len(offer.notes) > 40


@pytest.mark.parametrize(
    "gpu_id",
    ["rtx-3060-12gb", "rtx-3090", "rtx-4060-ti-16gb", "rtx-4070-ti-super", "rtx-4080-super",
     "rtx-4090", "rtx-5090", "rtx-a6000", "rtx-6000-ada"])
def test_card_people_buy_has_a_new_price_with_msrp_and_a_used_price(gpu_id):
    new = [o for o in SHIPPED.values() if o.gpu_id == gpu_id and o.kind == "buy-new"]
    used = [o for o in SHIPPED.values() if o.gpu_id == gpu_id and o.kind == "buy-used"]
    assert len(new) == 1 and len(used) == 1
    assert new[0].msrp_usd is not None and new[0].msrp_usd > 0
    assert used[0].price_usd < new[0].price_usd
    assert all(o.gpus_per_instance == 1 and not o.spot for o in (*new, *used))


def test_buy_offers_are_per_card_and_rentals_per_gpu_hour_at_plausible_magnitudes():
    for offer in SHIPPED.values():
        if offer.kind in BUY_KINDS:
            assert 100 <= offer.price_usd <= 20_000, offer.id
        else:
            assert 0.05 <= offer.price_usd <= 20, offer.id


def test_spot_checks_against_the_sources():
    # AWS p5.48xlarge $55.04/h for 8x H100 (us-east-1, datareceipts hyperscalers.json 2026-11-09).
    p5 = SHIPPED["aws-p5-48xlarge"]
    assert p5.instance_price_usd == pytest.approx(55.04)
    assert p5.gpus_per_instance == 8 and p5.interconnect == "sxm"
    # Lambda 8x H100 SXM $3.99 per GPU-hour (lambda.ai/instances, 2026-09-20).
    assert SHIPPED["lambda-8x-h100-sxm"].price_usd == 3.99
    # CoreWeave HGX H100 $49.24 per node-hour, spot $19.71 (coreweave.com/pricing, 2026-09-20).
    assert SHIPPED["coreweave-hgx-h100"].instance_price_usd == pytest.approx(49.24)
    assert SHIPPED["coreweave-hgx-h100-spot"].instance_price_usd == pytest.approx(19.71)
    # Azure ND96isr_H100_v5 $12.29 per GPU-hour (eastus, 2026-11-09).
    assert SHIPPED["azure-nd96isr-h100-v5"].price_usd == 12.29
    # RTX 4090 launch price $1,599 (NVIDIA, 2022-09-20).
    assert SHIPPED["new-rtx-4090"].msrp_usd == 1599


def test_prices_are_floats_whatever_the_toml_wrote():
    assert isinstance(SHIPPED["new-rtx-4090"].price_usd, float)
    assert isinstance(SHIPPED["new-rtx-4090"].msrp_usd, float)


# -- stale prices --------------------------------------------------------------------------------


def test_stale_detection_with_a_fixed_today():
    today = date(2026, 12, 2)
    assert not is_stale(SHIPPED["aws-p5-48xlarge"], today)  # 2026-11-09: 23 days old
    assert is_stale(SHIPPED["gcp-g2-standard-4"], today)  # 2026-07-30: 125 days old
    offer = dataclasses.replace(SHIPPED["aws-p5-48xlarge"], as_of="2026-09-03")
    assert age_days(offer, today) == 90 and not is_stale(offer, today)
    offer = dataclasses.replace(offer, as_of="2026-09-02")
    assert age_days(offer, today) == 91 and is_stale(offer, today)


def test_some_shipped_prices_are_stale_on_the_review_day_and_most_rentals_are_not():
    stale = [o.id for o in RENTALS if is_stale(o, REVIEWED)]
    assert "gcp-g2-standard-4" in stale
    assert len(stale) < len(RENTALS) / 2


# -- schema errors name file, entry and field -----------------------------------------------------


def test_valid_entry_loads(tmp_path):
    offers = load_offers(write(tmp_path, VALID_ENTRY))
    assert list(offers) == ["my-offer"]
    offer = offers["my-offer"]
    assert offer == Offer(id="my-offer", kind="rent", gpu_id="rtx-4090", provider="Example Cloud",
                          price_usd=0.5, as_of="2026-11-30", source=offer.source,
                          gpus_per_instance=1, instance="1x RTX 4090", region="eu-west",
                          interconnect="none")
    assert offer.user is False


def test_unknown_key_names_file_entry_field_and_suggests_the_right_key(tmp_path):
    problems = problems_of(tmp_path, with_line(VALID_ENTRY, "price_usd =", "price_usd_h ="))
    assert "offers.toml: [my-offer] field 'price_usd_h': unknown key (did you mean " \
           "'price_usd'?)" in problems
    assert any("field 'price_usd': missing" in p for p in problems)


def test_negative_price_is_rejected(tmp_path):
    problems = problems_of(tmp_path, with_line(VALID_ENTRY, "price_usd = 0.5", "price_usd = -0.5"))
    assert problems == ["offers.toml: [my-offer] field 'price_usd': must be > 0 USD, got -0.5"]


def test_price_with_a_currency_sign_is_rejected_with_the_fix(tmp_path):
    problems = problems_of(tmp_path, with_line(VALID_ENTRY, "price_usd = 0.5",
                                               'price_usd = "0.5 USD"'))
    assert len(problems) == 1
    assert "field 'price_usd': takes a number in USD" in problems[0]
    assert "write price_usd = 0.5" in problems[0]


@pytest.mark.parametrize("day", ["2026-11", "30.11.2026", "yesterday"])
def test_malformed_day_is_rejected(tmp_path, day):
    problems = problems_of(tmp_path, with_line(VALID_ENTRY, '"2026-11-30"', f'"{day}"'))
    assert len(problems) == 1
    assert problems[0].startswith("offers.toml: [my-offer] field 'as_of': ")
    assert "2026-11-30" in problems[0]


def test_impossible_day_is_rejected(tmp_path):
    problems = problems_of(tmp_path, with_line(VALID_ENTRY, '"2026-11-30"', '"2026-02-30"'))
    assert problems == ["offers.toml: [my-offer] field 'as_of': '2026-02-30' is not a real day; "
                        "write a day like '2026-11-30'"]


def test_unknown_kind_is_rejected_listing_the_kinds(tmp_path):
    problems = problems_of(tmp_path, with_line(VALID_ENTRY, 'kind = "rent"', 'kind = "lease"'))
    assert len(problems) == 1
    assert problems[0].startswith("offers.toml: [my-offer] field 'kind': 'lease' is not allowed")
    assert "'buy-used'" in problems[0] and "'cloud'" in problems[0]


def test_unknown_gpu_id_is_rejected_with_a_suggestion(tmp_path):
    problems = problems_of(tmp_path, with_line(VALID_ENTRY, '"rtx-4090"', '"rtx-4091"'))
    assert problems == ["offers.toml: [my-offer] field 'gpu_id': unknown GPU 'rtx-4091' "
                        "(did you mean 'rtx-4090'?)"]
    with pytest.raises(CatalogError, match="unknown GPU 'rtx-4091'"):
        load_offers(tmp_path / "offers.toml")


def test_rental_without_an_instance_name_is_rejected(tmp_path):
    entry = with_line(VALID_ENTRY, 'instance = "1x RTX 4090"\n', "")
    problems = problems_of(tmp_path, entry)
    assert len(problems) == 1
    assert problems[0].startswith("offers.toml: [my-offer] field 'instance': missing")


def test_unknown_interconnect_is_rejected(tmp_path):
    problems = problems_of(tmp_path, with_line(VALID_ENTRY, '"none"', '"infiniband"'))
    assert len(problems) == 1 and "field 'interconnect': 'infiniband' is not allowed" in problems[0]


def test_price_outside_its_range_and_half_a_range_are_rejected(tmp_path):
    ranged = VALID_ENTRY + "price_low_usd = 0.6\nprice_high_usd = 0.9\n"
    assert problems_of(tmp_path, ranged) == [
        "offers.toml: [my-offer] field 'price_usd': 0.5 USD is outside the range "
        "price_low_usd..price_high_usd = 0.6..0.9"]
    half = VALID_ENTRY + "price_low_usd = 0.4\n"
    assert problems_of(tmp_path, half) == [
        "offers.toml: [my-offer] field 'price_high_usd': missing; price_low_usd and "
        "price_high_usd go together"]


def test_buy_offer_with_rental_fields_is_rejected(tmp_path):
    entry = with_line(VALID_ENTRY, 'kind = "rent"', 'kind = "buy-used"')
    problems = problems_of(tmp_path, entry)
    assert problems == ["offers.toml: [my-offer] field 'instance': not used for a card to buy "
                        "(kind 'buy-used')"]
    spot = textwrap.dedent("""\
        [used-card]
        kind = "buy-used"
        gpu_id = "rtx-3090"
        provider = "eBay"
        price_usd = 700
        spot = true
        as_of = "2026-11-30"
        source = "my own eBay search, 2026-11-30"
        """)
    assert problems_of(tmp_path, spot) == [
        "offers.toml: [used-card] field 'spot': not used for a card to buy (kind 'buy-used')"]


def test_msrp_on_a_rental_is_rejected(tmp_path):
    problems = problems_of(tmp_path, VALID_ENTRY + "msrp_usd = 1599\n")
    assert problems == ["offers.toml: [my-offer] field 'msrp_usd': only for cards to buy "
                        "(kind 'buy-new' or 'buy-used')"]


def test_user_flag_cannot_be_set_in_a_file(tmp_path):
    problems = problems_of(tmp_path, VALID_ENTRY + "user = true\n")
    assert problems == ["offers.toml: [my-offer] field 'user': unknown key"]


def test_every_problem_of_two_bad_entries_is_listed(tmp_path):
    second = with_line(VALID_ENTRY, "[my-offer]", "[other-offer]")
    second = with_line(second, 'kind = "rent"', 'kind = "lease"')
    first = with_line(VALID_ENTRY, "price_usd = 0.5", "price_usd = 0")
    problems = problems_of(tmp_path, first + "\n" + second)
    assert [p.split(" field ")[0] for p in problems] == ["offers.toml: [my-offer]",
                                                         "offers.toml: [other-offer]"]


# -- user overrides -------------------------------------------------------------------------------

OVERRIDE = """\
[runpod-community-rtx-4090]
kind = "rent"
gpu_id = "rtx-4090"
provider = "RunPod"
price_usd = 0.29
instance = "1x RTX 4090 pod (Community Cloud)"
as_of = "2026-12-01"
source = "my RunPod console, 2026-12-01"

[my-used-3090]
kind = "buy-used"
gpu_id = "rtx-3090"
provider = "a colleague"
price_usd = 600
as_of = "2026-11-28"
source = "offer by e-mail"
"""


def test_overrides_live_in_the_user_data_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUADVISOR_DATA_DIR", str(tmp_path))
    assert override_path("offers") == tmp_path / "catalog" / "offers.toml"
    assert updated_path("offers") == tmp_path / "catalog" / "updates" / "offers.toml"
    with pytest.raises(ValueError, match="unknown catalog kind"):
        override_path("prices")


def test_without_user_files_the_offers_in_effect_are_the_shipped_ones():
    warnings: list[str] = []
    assert load_offers(warnings=warnings) == SHIPPED
    assert warnings == []


def test_override_replaces_an_offer_adds_one_and_marks_both_as_the_users():
    write(override_path("offers").parent, OVERRIDE)
    offers = load_offers()
    assert len(offers) == len(SHIPPED) + 1
    replaced = offers["runpod-community-rtx-4090"]
    assert replaced.price_usd == 0.29 and replaced.user
    added = offers["my-used-3090"]
    assert added.kind == "buy-used" and added.price_usd == 600 and added.user
    assert offers["aws-p5-48xlarge"] == SHIPPED["aws-p5-48xlarge"]
    assert not offers["aws-p5-48xlarge"].user
    assert list(offers)[-1] == "my-used-3090"


def test_an_edited_override_file_is_read_again():
    path = write(override_path("offers").parent, OVERRIDE)
    assert load_offers()["my-used-3090"].price_usd == 600
    path.write_text(OVERRIDE.replace("price_usd = 600", "price_usd = 650"), encoding="utf-8")
    assert load_offers()["my-used-3090"].price_usd == 650
    path.unlink()
    assert "my-used-3090" not in load_offers()


def test_broken_override_is_reported_set_aside_and_the_shipped_offers_still_load():
    # Every user file that fails to load is set aside as <name>.bad-<date>-<time>, kept
    # byte for byte; the message says why and where it went, for the rest of the run.
    path = write(override_path("offers").parent,
                 OVERRIDE.replace("price_usd = 600", "price_usd = -600"))
    before = path.read_bytes()
    warnings: list[str] = []
    offers = load_offers(warnings=warnings)
    assert offers == SHIPPED
    assert len(warnings) == 1
    assert str(path) in warnings[0] and "was not used" in warnings[0]
    assert "offers.toml: [my-used-3090] field 'price_usd': must be > 0 USD, got -600" in (
        warnings[0])
    assert not path.exists()
    (backup,) = path.parent.glob("offers.toml.bad-*")
    assert backup.read_bytes() == before and backup.name in warnings[0]
    assert catalog_warnings() == warnings


def test_override_naming_an_unknown_gpu_is_not_used():
    write(override_path("offers").parent, OVERRIDE.replace('"rtx-3090"', '"rtx-3099"'))
    warnings: list[str] = []
    assert load_offers(warnings=warnings) == SHIPPED
    assert "field 'gpu_id': unknown GPU 'rtx-3099' (did you mean 'rtx-3090'?)" in warnings[0]


def test_override_may_refer_to_a_gpu_the_user_added():
    gpu = (catalog_dir() / "gpus.toml").read_text(encoding="utf-8")
    start = gpu.index("\n[rtx-4090]\n") + 1
    table = gpu[start:gpu.index("\n[", start + 1)].replace("[rtx-4090]", "[rtx-4090-48gb]")
    table = table.replace("memory_gib = 24", "memory_gib = 48")
    write(override_path("gpus").parent, table, "gpus.toml")
    write(override_path("offers").parent, OVERRIDE.replace('"rtx-3090"', '"rtx-4090-48gb"'))
    warnings: list[str] = []
    offers = load_offers(warnings=warnings)
    assert warnings == []
    assert offers["my-used-3090"].gpu_id == "rtx-4090-48gb"
    assert load_gpus()["rtx-4090-48gb"].memory_gib == 48


def test_an_installed_update_replaces_the_shipped_offers_and_overrides_still_apply():
    write(updated_path("offers").parent, VALID_ENTRY)
    write(override_path("offers").parent, OVERRIDE)
    offers = load_offers()
    assert set(offers) == {"my-offer", "runpod-community-rtx-4090", "my-used-3090"}
    assert not offers["my-offer"].user and offers["my-used-3090"].user


def test_a_broken_installed_update_falls_back_to_the_shipped_offers():
    path = write(updated_path("offers").parent, "[broken\n")
    warnings: list[str] = []
    assert load_offers(warnings=warnings) == SHIPPED
    assert str(path) in warnings[0] and "TOML syntax error" in warnings[0]
    (backup,) = path.parent.glob("offers.toml.bad-*")
    assert backup.read_text() == "[broken\n" and not path.exists()


# -- command line ---------------------------------------------------------------------------------


def test_cli_lists_offers_as_json_with_id_and_name(capsys):
    assert main(["catalog", "list", "--kind", "offers", "--json"]) == 0
    items = json.loads(capsys.readouterr().out)["items"]
    assert len(items) == len(SHIPPED)
    p5 = next(i for i in items if i["id"] == "aws-p5-48xlarge")
    assert p5["name"] == "AWS: p5.48xlarge" and p5["gpus_per_instance"] == 8


def test_cli_table_marks_estimates_and_the_users_entries_and_warns_about_broken_files(capsys):
    write(override_path("offers").parent, OVERRIDE)
    assert main(["catalog", "list", "--kind", "offers"]) == 0
    out = capsys.readouterr().out
    line = next(r for r in out.splitlines() if r.startswith("my-used-3090"))
    assert "$600.00" in line and "(yours)" in line
    rows = {r.split()[0]: r for r in out.splitlines()[1:-1]}
    assert "$0.29/h" in rows["runpod-community-rtx-4090"]
    assert rows["runpod-community-rtx-4090"].endswith("(yours)")
    assert rows["runpod-community-rtx-3090"].rstrip().endswith("*")
    write(override_path("offers").parent, "[oops\n")
    assert main(["catalog", "list", "--kind", "offers"]) == 0
    assert "was not used" in capsys.readouterr().err


def test_cli_shows_one_offer(capsys):
    assert main(["catalog", "show", "lambda-8x-h100-sxm", "--json"]) == 0
    item = json.loads(capsys.readouterr().out)
    assert item["price_usd"] == 3.99 and item["provider"] == "Lambda"


def test_cli_validate_reports_a_bad_offers_file_and_exits_2(tmp_path, capsys):
    path = write(tmp_path, with_line(VALID_ENTRY, "price_usd = 0.5", "price_usd = -1"))
    assert main(["catalog", "validate", str(path)]) == 2
    assert "[my-offer] field 'price_usd': must be > 0 USD" in capsys.readouterr().err
    assert os.path.exists(path)


def test_validate_flags_prices_older_than_90_days(tmp_path, capsys):
    """``catalog validate`` on an offers file: OK, then one warning listing each price older
    than 90 days (a price's age is shown, never refused), the fresh ones left out."""
    from datetime import date, timedelta

    from gpuadvisor.cli import main

    fresh = (date.today() - timedelta(days=10)).isoformat()
    old = (date.today() - timedelta(days=200)).isoformat()
    entry = ('[{id}]\nkind = "rent"\ngpu_id = "h100-sxm"\nprovider = "RunPod"\n'
             'price_usd = 2.0\ngpus_per_instance = 1\ninstance = "1x H100"\n'
             'as_of = "{day}"\nsource = "s"\n')
    path = tmp_path / "offers.toml"
    path.write_text("schema_version = 1\n" + entry.format(id="fresh", day=fresh)
                    + entry.format(id="old", day=old))
    assert main(["catalog", "validate", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"{path}: OK" in out
    assert "1 price(s) older than 90 days" in out
    assert f"old: as of {old} (200 days)" in out and "fresh:" not in out
