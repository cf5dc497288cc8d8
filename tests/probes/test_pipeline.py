"""probes/pipeline.py: the PCIe link a pinned copy rate implies, and whether the disk keeps
the GPU fed. Expected values are worked out by hand in the comments (per-lane rates from
core.gpu.PCIE_GB_S_PER_LANE: 3.0 = 0.985, 4.0 = 1.969, 5.0 = 3.938, 6.0 = 7.563 GB/s)."""

from __future__ import annotations

import math

import pytest

from gpuadvisor.probes.pipeline import (
    BYTES_PER_TOKEN,
    PCIE_MAX_EFFICIENCY,
    PCIE_TYPICAL_EFFICIENCY,
    PcieLink,
    data_read_verdict,
    implied_pcie_link,
    needed_read_rate,
)


def labels(reading) -> list[str]:
    return [link.label for link in reading.links]


# --------------------------------------------------------------------------- PCIe links
def test_a_link_rate_is_lanes_times_the_per_lane_rate_of_its_generation():
    assert PcieLink(4, 16).raw_gb_s == pytest.approx(16 * 1.969)  # 31.504
    assert PcieLink(3, 16).raw_gb_s == pytest.approx(15.76)
    assert PcieLink(5, 4).raw_gb_s == pytest.approx(15.752)
    assert PcieLink(1, 1).raw_gb_s == pytest.approx(0.25)  # 2.5 GT/s, 8b/10b
    assert PcieLink(2, 16).raw_gb_s == pytest.approx(8.0)  # 5 GT/s, 8b/10b
    assert PcieLink(4, 16).typical_gb_s == pytest.approx(31.504 * 0.83)  # 26.148
    assert PcieLink(4, 16).label == "PCIe 4.0 x16"


def test_the_efficiencies_stay_within_what_tlp_overhead_allows():
    # 256-byte payloads with ~20 bytes of framing, header and LCRC: 256 / 276 = 0.928
    assert 0.76 <= PCIE_TYPICAL_EFFICIENCY <= 256 / 276 <= PCIE_MAX_EFFICIENCY < 1


def test_a_rate_that_fits_a_gen4_x16_card_is_as_expected():
    reading = implied_pcie_link(25.0, card_generation=4, card_lanes=16)
    assert labels(reading) == ["PCIe 4.0 x16"]
    assert reading.card_link == PcieLink(4, 16)
    assert reading.fraction_of_card == pytest.approx(25.0 / 26.148, rel=1e-4)  # 0.956
    assert not reading.far_below_card
    assert reading.message == ("25 GB/s is 96 % of the 26.1 GB/s this card's PCIe 4.0 x16 "
                               "link typically carries: the link runs as it should")


def test_without_the_card_the_rate_names_every_link_of_its_tier_widest_first():
    # 25 / 0.95 = 26.3 GB/s raw needed: 4.0 x16 and 5.0 x8 (both 31.5), not 3.0 x16 (15.76).
    reading = implied_pcie_link(25.0)
    assert labels(reading) == ["PCIe 4.0 x16", "PCIe 5.0 x8"]
    assert reading.implied == PcieLink(4, 16)
    assert reading.card_link is None and reading.fraction_of_card is None
    assert not reading.far_below_card
    assert reading.message == ("25 GB/s from pinned memory needs at least a PCIe 4.0 x16 or "
                               "PCIe 5.0 x8 link")


def test_the_max_efficiency_sets_where_one_tier_ends():
    # 3.0 x16 carries at most 15.76 x 0.95 = 14.972 GB/s.
    assert labels(implied_pcie_link(14.9))[0] == "PCIe 3.0 x16"
    assert labels(implied_pcie_link(15.0))[0] == "PCIe 4.0 x16"


def test_a_gen4_card_running_at_gen3_or_in_an_x8_slot_is_far_below_its_link():
    # 12.5 GB/s / 26.148 = 0.478 < 0.6; needs 12.5 / 0.95 = 13.2 raw: 3.0 x16 or 4.0 x8.
    reading = implied_pcie_link(12.5, card_generation=4, card_lanes=16)
    assert labels(reading) == ["PCIe 3.0 x16", "PCIe 4.0 x8"]
    assert reading.fraction_of_card == pytest.approx(0.478, abs=5e-4)
    assert reading.far_below_card
    assert reading.message.startswith("12.5 GB/s is 48 % of the 26.1 GB/s this card's PCIe 4.0 "
                                      "x16 link typically carries, as if it ran at PCIe 3.0 "
                                      "x16 or PCIe 4.0 x8: ")
    assert "slot" in reading.message and "BIOS" in reading.message


def test_an_x16_card_in_an_x4_slot_is_far_below_and_the_card_limits_the_candidates():
    # 6.2 / 0.95 = 6.53 raw: 2.0 x16 (8.0), 3.0 x8 (7.88), 4.0 x4 (7.876); 5.0 x2 (7.876)
    # is beyond this Gen4 card. 6.2 / 26.148 = 0.237.
    reading = implied_pcie_link(6.2, card_generation=4, card_lanes=16)
    assert labels(reading) == ["PCIe 2.0 x16", "PCIe 3.0 x8", "PCIe 4.0 x4"]
    assert reading.far_below_card
    assert reading.fraction_of_card == pytest.approx(0.237, abs=5e-4)


def test_a_modest_shortfall_is_not_blamed_on_the_slot():
    # 17 / 26.148 = 0.65: a busy host, not half the link.
    reading = implied_pcie_link(17.0, card_generation=4, card_lanes=16)
    assert not reading.far_below_card
    assert labels(reading) == ["PCIe 4.0 x16"]


def test_a_gen6_card_is_compared_with_its_own_link():
    # 6.0 x16 = 121.0 raw, typical 100.44; 100 GB/s needs 105.3 raw: only 6.0 x16.
    reading = implied_pcie_link(100.0, card_generation=6, card_lanes=16)
    assert labels(reading) == ["PCIe 6.0 x16"]
    assert reading.fraction_of_card == pytest.approx(100 / (16 * 7.563 * 0.83), rel=1e-6)


def test_a_rate_no_pcie_link_carries_says_the_copy_did_not_cross_pcie():
    # 5.0 x16 carries at most 63.0 x 0.95 = 59.9 GB/s.
    reading = implied_pcie_link(60.0)
    assert reading.links == () and reading.implied is None and reading.label == ""
    assert "did not cross PCIe" in reading.message
    # 3.0 x16 carries at most 14.97 GB/s
    reading = implied_pcie_link(30.0, card_generation=3, card_lanes=16)
    assert reading.links == ()
    assert reading.message == ("30 GB/s is more than this card's PCIe 3.0 x16 link can carry "
                               "(at most 15 GB/s): the copy did not cross PCIe, or the card's "
                               "link details are wrong")


def test_only_the_card_width_known_still_limits_the_lanes():
    # 6 GB/s on an x8 card: 6 / 0.95 = 6.3 raw; widths <= 8: 3.0 x8, 4.0 x4, 5.0 x2 (7.88).
    reading = implied_pcie_link(6.0, card_lanes=8)
    assert labels(reading) == ["PCIe 3.0 x8", "PCIe 4.0 x4", "PCIe 5.0 x2"]
    assert reading.card_link is None


@pytest.mark.parametrize(("args", "field"), [
    ((0.0,), "gb_s"), ((-3.0,), "gb_s"), ((math.nan,), "gb_s"), ((math.inf,), "gb_s"),
    ((True,), "gb_s"), ((10.0, 7, 16), "card_generation"), ((10.0, 4, 3), "card_lanes"),
])
def test_bad_link_arguments_raise_naming_the_argument(args, field):
    with pytest.raises(ValueError, match=f"^{field}:"):
        implied_pcie_link(*args)


def test_a_link_validates_its_fields():
    with pytest.raises(ValueError, match=r"^generation:"):
        PcieLink(0, 16)
    with pytest.raises(ValueError, match=r"^lanes:"):
        PcieLink(4, 12)


# --------------------------------------------------------------------------- data reading
def test_bytes_per_token_assumptions():
    assert BYTES_PER_TOKEN == {"uint16": 2.0, "uint32": 4.0, "text": 4.0}


def test_the_needed_read_rate_is_tokens_per_second_times_bytes_per_token():
    assert needed_read_rate(450_000, 2) == 900_000.0  # bytes per second
    assert needed_read_rate(1.5e6, BYTES_PER_TOKEN["text"]) == 6e6
    assert needed_read_rate(0, 4) == 0.0


def test_a_fast_disk_is_not_a_bottleneck():
    # 450,000 tokens/s x 2 B = 0.9 MB/s; 480 / 0.9 = 533.3
    verdict = data_read_verdict(480.0, 450_000, 2)
    assert verdict.needed_mb_s == pytest.approx(0.9)
    assert verdict.headroom == pytest.approx(533.333, rel=1e-5)
    assert not verdict.bottleneck and not verdict.tight
    assert verdict.message == ("the disk reads 480 MB/s; the plan needs 0.9 MB/s of tokens: "
                               "not a bottleneck")


def test_a_slow_disk_under_raw_text_makes_the_gpu_wait():
    # 3,000,000 tokens/s x 4 B = 12 MB/s; 5 / 12 = 0.4167
    verdict = data_read_verdict(5.0, 3_000_000, BYTES_PER_TOKEN["text"])
    assert verdict.needed_mb_s == pytest.approx(12.0)
    assert verdict.headroom == pytest.approx(5 / 12)
    assert verdict.bottleneck and not verdict.tight
    assert verdict.message == ("the disk reads 5 MB/s; the plan needs 12 MB/s of tokens: the "
                               "GPU will wait on the disk; pre-tokenize to 2-byte ids, cache in "
                               "RAM, or use a faster disk")


def test_already_compact_tokens_are_not_told_to_pre_tokenize():
    verdict = data_read_verdict(5.0, 3_000_000, BYTES_PER_TOKEN["uint16"])  # needs 6 MB/s
    assert verdict.bottleneck
    assert verdict.message.endswith("the GPU will wait on the disk; cache the data in RAM or "
                                    "use a faster disk")


def test_headroom_under_two_is_tight():
    # 3,000,000 x 2 B = 6 MB/s; 10 / 6 = 1.67
    verdict = data_read_verdict(10.0, 3_000_000, 2)
    assert verdict.tight and not verdict.bottleneck
    assert "shuffled reads" in verdict.message
    assert not data_read_verdict(12.0, 3_000_000, 2).tight  # exactly 2x: comfortable


def test_a_read_from_the_page_cache_is_flagged():
    verdict = data_read_verdict(9000.0, 450_000, 2, likely_cached=True)
    assert verdict.message.startswith("the disk reads 9,000 MB/s; the plan needs 0.9 MB/s")
    assert "page cache" in verdict.message


def test_no_tokens_needs_nothing():
    verdict = data_read_verdict(100.0, 0, 2)
    assert verdict.headroom == math.inf and not verdict.bottleneck


@pytest.mark.parametrize(("args", "field"), [
    ((-1.0, 1000, 2), "read_mb_s"), ((math.nan, 1000, 2), "read_mb_s"),
    ((100.0, -5, 2), "tokens_per_s"), ((100.0, math.inf, 2), "tokens_per_s"),
    ((100.0, 1000, 0), "bytes_per_token"), ((100.0, 1000, -2), "bytes_per_token"),
])
def test_bad_rates_raise_naming_the_argument(args, field):
    with pytest.raises(ValueError, match=f"^{field}:"):
        data_read_verdict(*args)
