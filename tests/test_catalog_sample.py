"""The sample catalog update file (catalog/samples/sample-offers.toml) is a valid offers
catalog, and `catalog update` installs it as the README says: whole, with the previous file
kept and the change listed."""

from __future__ import annotations

import tomllib

from gpuadvisor.catalog import catalog_dir, load_offers, update_catalog, validate_file
from gpuadvisor.catalog.overrides import updated_path

SAMPLE = catalog_dir() / "samples" / "sample-offers.toml"


def test_the_sample_update_file_is_a_valid_offers_catalog():
    assert validate_file(SAMPLE) == []


def test_its_entries_are_copies_of_shipped_offers():
    shipped = load_offers()
    sample = tomllib.loads(SAMPLE.read_text(encoding="utf-8"))
    ids = [k for k, v in sample.items() if isinstance(v, dict)]
    assert ids and all(i in shipped for i in ids)
    for i in ids:
        assert sample[i]["price_usd"] == shipped[i].price_usd
        assert sample[i]["as_of"] == shipped[i].as_of


def test_catalog_update_installs_the_sample_in_place_of_the_shipped_offers():
    result = update_catalog(str(SAMPLE))
    assert result.kind == "offers"
    assert result.path == updated_path("offers")
    assert set(result.changes.added) == set()
    assert "used-p40" not in result.changes.removed
    assert len(result.changes.removed) > 50  # the shipped offers the sample does not repeat
    assert set(load_offers()) == {"used-p40", "runpod-community-h100-sxm", "aws-p5-48xlarge"}
