"""The input pipeline: what the ``transfer`` and ``dataread`` probes mean for a plan.

Qt-free and torch-free, numbers in, records out:

- :func:`implied_pcie_link` names the PCIe link a measured pinned host-to-device rate points
  to (``"PCIe 4.0 x16"``) and, given the card's own best link (NVML's ``pcie_gen_max`` and
  ``pcie_width_max``), says when the rate is far below what that link carries: an x16 card
  in an x4 slot, a Gen4 card running at Gen3.
- :func:`needed_read_rate` and :func:`data_read_verdict` compare the disk's measured read
  rate with the bytes per second a plan's tokens per second need.

Rates are GB/s and MB/s of 10⁹ and 10⁶ bytes per second, as the probes report them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gpuadvisor.core.gpu import PCIE_GB_S_PER_LANE

#: One direction's rate per lane after line coding, GB/s, by PCIe generation: the PCI-SIG
#: signalling rates, 1.0 = 2.5 GT/s and 2.0 = 5 GT/s with 8b/10b coding (0.25 and 0.5),
#: 3.0 = 8 GT/s, 4.0 = 16 and 5.0 = 32 GT/s with 128b/130b (0.985, 1.969, 3.938), 6.0 after
#: FLIT overhead (7.563): :data:`gpuadvisor.core.gpu.PCIE_GB_S_PER_LANE` plus the two oldest,
#: which old boards and x1 mining risers still negotiate.
PCIE_LANE_GB_S = {1: 2.5 * 8 / 10 / 8, 2: 5.0 * 8 / 10 / 8, **PCIE_GB_S_PER_LANE}
#: Lane counts a PCIe link can train to (the PCIe base specification's x1 .. x16 widths a
#: GPU slot uses; x32 exists on paper only).
PCIE_WIDTHS = (1, 2, 4, 8, 16)
#: The newest generation assumed when the card's is unknown (GPUs sold today: up to 5.0).
DEFAULT_MAX_GENERATION = 5

# How much of a link's raw rate (PCIE_LANE_GB_S) a large pinned copy achieves. Every
# transaction-layer packet carries about 20 bytes besides its payload (framing, sequence
# number, 12-byte header, LCRC: Intel AN 456 "PCI Express High Performance Reference
# Design", Throughput for Posted Writes), so 256-byte payloads reach at most 256 / 276 =
# 92.8 % and the 128-byte maximum payload many desktop chipsets use 128 / 148 = 86.5 %; ACK
# and flow-control DLLPs, and read completions split at the 64- or 128-byte read completion
# boundary (host-to-device copies are the GPU's DMA reads), take a few percent more. Pinned
# copies in CUDA's bandwidthTest are commonly reported at 12-13 GB/s on PCIe 3.0 x16 (15.75
# raw) and 24-26 GB/s on 4.0 x16 (31.5 raw): 76-83 %.
#: Typical share of the raw rate a large pinned copy achieves (see the comment above).
PCIE_TYPICAL_EFFICIENCY = 0.83
#: The most any copy can achieve: 92.8 % with 256-byte payloads, rounded up for servers
#: with 512-byte payloads and for timing noise. A faster rate needs a faster link.
PCIE_MAX_EFFICIENCY = 0.95
#: Below this share of the card's typical rate, a measurement is "far below" its link. One
#: step down (half the lanes, or the previous generation) gives 0.5; a busy or NUMA-remote
#: host loses 10-30 %, which must not be blamed on the slot.
FAR_BELOW_FRACTION = 0.6
#: Links whose raw rates lie within this factor of each other are one "tier" (3.0 x16 and
#: 4.0 x8 carry the same; 2.0 x16 at 8.0 GB/s and 3.0 x8 at 7.88 nearly so).
_SAME_TIER = 1.05


@dataclass(frozen=True)
class PcieLink:
    """One PCIe link: ``generation`` (1-6) and ``lanes`` (1, 2, 4, 8 or 16)."""

    generation: int
    lanes: int

    def __post_init__(self) -> None:
        if self.generation not in PCIE_LANE_GB_S:
            raise ValueError(f"generation: expected one of {sorted(PCIE_LANE_GB_S)}, "
                             f"got {self.generation!r}")
        if self.lanes not in PCIE_WIDTHS:
            raise ValueError(f"lanes: expected one of {PCIE_WIDTHS}, got {self.lanes!r}")

    @property
    def raw_gb_s(self) -> float:
        """One direction's rate after line coding, GB/s: lanes x per-lane rate."""
        return PCIE_LANE_GB_S[self.generation] * self.lanes

    @property
    def typical_gb_s(self) -> float:
        """What a large pinned copy typically achieves: raw x PCIE_TYPICAL_EFFICIENCY."""
        return self.raw_gb_s * PCIE_TYPICAL_EFFICIENCY

    @property
    def label(self) -> str:
        """``"PCIe 4.0 x16"``."""
        return f"PCIe {self.generation}.0 x{self.lanes}"


@dataclass(frozen=True)
class LinkReading:
    """What a measured pinned host-to-device rate says about the PCIe link.

    Attributes:
        measured_gb_s: the rate given, GB/s.
        links: the slowest links that can carry it (raw x PCIE_MAX_EFFICIENCY >= measured),
            widest first: several when they carry the same (``PCIe 3.0 x16`` and
            ``PCIe 4.0 x8``); empty when no link within the card's (or, unknown, up to
            PCIe 5.0 x16) can, i.e. the copy did not cross PCIe or the link fields are wrong.
        card_link: the card's best link, when both its generation and width were given.
        fraction_of_card: measured / the card link's typical rate, or ``None``.
        far_below_card: ``fraction_of_card < FAR_BELOW_FRACTION``.
        message: one sentence for people.
    """

    measured_gb_s: float
    links: tuple[PcieLink, ...]
    card_link: PcieLink | None
    fraction_of_card: float | None
    far_below_card: bool
    message: str

    @property
    def implied(self) -> PcieLink | None:
        """The first of :attr:`links` (the widest), or ``None``."""
        return self.links[0] if self.links else None

    @property
    def label(self) -> str:
        """``"PCIe 3.0 x16 or PCIe 4.0 x8"``, or ``""`` when no link fits."""
        return " or ".join(link.label for link in self.links)


def implied_pcie_link(gb_s: float, card_generation: int | None = None,
                      card_lanes: int | None = None) -> LinkReading:
    """The PCIe link a measured pinned host-to-device rate implies, against the card's own.

    The implied link is the slowest one whose raw rate x :data:`PCIE_MAX_EFFICIENCY` covers
    ``gb_s`` (links of one tier all named, widest first), among generations up to the card's
    (else up to :data:`DEFAULT_MAX_GENERATION`) and widths up to the card's (else 16). With
    both card fields the rate is compared with the card link's typical rate (raw x
    :data:`PCIE_TYPICAL_EFFICIENCY`); under :data:`FAR_BELOW_FRACTION` of it, the message says
    where to look (slot wiring, shared lanes, a riser, the BIOS's PCIe generation).

    Example: 12.5 GB/s on a PCIe 4.0 x16 card (typical 31.51 x 0.83 = 26.2 GB/s) is 48 % of
    it and implies ``PCIe 3.0 x16 or PCIe 4.0 x8``.

    Args:
        gb_s: the measured rate, GB/s (10⁹ B/s); use the pinned median (``h2d_pinned_gb_s``).
        card_generation: the best generation the card supports (NVML ``pcie_gen_max``).
        card_lanes: the most lanes the card supports (NVML ``pcie_width_max``).

    Raises:
        ValueError: a rate that is not a positive number, or an unknown generation or width,
            naming the argument.
    """
    if not _positive(gb_s):
        raise ValueError(f"gb_s: must be a positive number, got {gb_s!r}")
    if card_generation is not None and card_generation not in PCIE_LANE_GB_S:
        raise ValueError(f"card_generation: expected one of {sorted(PCIE_LANE_GB_S)}, "
                         f"got {card_generation!r}")
    if card_lanes is not None and card_lanes not in PCIE_WIDTHS:
        raise ValueError(f"card_lanes: expected one of {PCIE_WIDTHS}, got {card_lanes!r}")
    top_generation = card_generation or DEFAULT_MAX_GENERATION
    top_lanes = card_lanes or PCIE_WIDTHS[-1]
    carrying = [PcieLink(g, w) for g in sorted(PCIE_LANE_GB_S) if g <= top_generation
                for w in PCIE_WIDTHS if w <= top_lanes
                if PCIE_LANE_GB_S[g] * w * PCIE_MAX_EFFICIENCY >= gb_s]
    links: tuple[PcieLink, ...] = ()
    if carrying:
        slowest = min(link.raw_gb_s for link in carrying)
        links = tuple(sorted((link for link in carrying
                              if link.raw_gb_s <= slowest * _SAME_TIER),
                             key=lambda link: (-link.lanes, link.generation)))
    card = None
    if card_generation is not None and card_lanes is not None:
        card = PcieLink(card_generation, card_lanes)
    fraction = gb_s / card.typical_gb_s if card is not None else None
    far_below = fraction is not None and fraction < FAR_BELOW_FRACTION
    reading = LinkReading(gb_s, links, card, fraction, far_below, "")
    return LinkReading(gb_s, links, card, fraction, far_below, _link_message(reading))


def _link_message(r: LinkReading) -> str:
    rate = f"{_num(r.measured_gb_s)} GB/s"
    if not r.links:
        if r.card_link is not None:
            return (f"{rate} is more than this card's {r.card_link.label} link can carry "
                    f"(at most {_num(r.card_link.raw_gb_s * PCIE_MAX_EFFICIENCY)} GB/s): the "
                    "copy did not cross PCIe, or the card's link details are wrong")
        return (f"{rate} is more than any PCIe link up to {DEFAULT_MAX_GENERATION}.0 x16 "
                "carries: the copy did not cross PCIe (unified memory, or a chip-to-chip "
                "link)")
    if r.card_link is None:
        return f"{rate} from pinned memory needs at least a {r.label} link"
    percent = f"{100 * r.fraction_of_card:.0f} %"
    typical = f"{_num(r.card_link.typical_gb_s)} GB/s"
    if r.far_below_card:
        return (f"{rate} is {percent} of the {typical} this card's {r.card_link.label} link "
                f"typically carries, as if it ran at {r.label}: check that it sits in a full "
                "x16 slot (not one wired x8 or x4, or sharing lanes with an M.2 drive), its "
                "riser, and the BIOS's PCIe generation setting")
    return (f"{rate} is {percent} of the {typical} this card's {r.card_link.label} link "
            "typically carries: the link runs as it should")


# --------------------------------------------------------------------------- data reading
#: Bytes each token takes as stored, by storage format:
#: ``uint16``: pre-tokenized ids for vocabularies up to 65,536 (GPT-2's 50,257; nanoGPT's
#: OpenWebText ``train.bin`` holds ~9 B tokens in ~17 GB, 2 bytes each);
#: ``uint32``: pre-tokenized ids for larger vocabularies (LLaMA 3's 128,256);
#: ``text``: raw UTF-8 text for English and an English BPE tokenizer. OpenAI's guidance is
#: about 4 characters of common English text per token, and English UTF-8 is about 1 byte
#: per character; OpenWebText's ~38 GB of text in ~9 B GPT-2 tokens gives ~4.2. Other
#: languages and code differ: pass the measured bytes per token when you know it.
BYTES_PER_TOKEN = {"uint16": 2.0, "uint32": 4.0, "text": 4.0}
#: Below this ratio of read rate to need the disk "only just" keeps up: the probe reads
#: sequentially, while a loader that shuffles reads at random offsets, decompresses, or
#: shares the disk with other readers gets less.
HEADROOM_COMFORTABLE = 2.0


def needed_read_rate(tokens_per_s: float, bytes_per_token: float) -> float:
    """Bytes per second the data loader reads to feed the plan: tokens/s x bytes/token.

    Args:
        tokens_per_s: the whole job's training tokens per second (``time.tokens_per_s``).
        bytes_per_token: bytes each token takes on disk (see :data:`BYTES_PER_TOKEN`).

    Returns:
        The rate in bytes per second (divide by 10⁶ for MB/s).

    Raises:
        ValueError: a negative or non-finite ``tokens_per_s``, or a ``bytes_per_token``
            that is not positive, naming the argument.
    """
    if not _number(tokens_per_s) or tokens_per_s < 0:
        raise ValueError(f"tokens_per_s: must be a number >= 0, got {tokens_per_s!r}")
    if not _positive(bytes_per_token):
        raise ValueError(f"bytes_per_token: must be a positive number, got {bytes_per_token!r}")
    return float(tokens_per_s) * float(bytes_per_token)


@dataclass(frozen=True)
class DataReadVerdict:
    """The disk's read rate against what the plan needs.

    Attributes:
        read_mb_s: the measured sequential read rate, MB/s (``dataread``'s ``read_mb_s``).
        needed_mb_s: what the plan's tokens need, MB/s.
        headroom: ``read_mb_s / needed_mb_s`` (``inf`` when nothing is needed).
        bottleneck: the disk is slower than the need (headroom < 1): the GPU will wait.
        tight: it keeps up, but with less than :data:`HEADROOM_COMFORTABLE` to spare.
        message: one sentence for people.
    """

    read_mb_s: float
    needed_mb_s: float
    headroom: float
    bottleneck: bool
    tight: bool
    message: str


def data_read_verdict(read_mb_s: float, tokens_per_s: float, bytes_per_token: float, *,
                      likely_cached: bool = False) -> DataReadVerdict:
    """Whether the disk keeps the GPU fed: measured read MB/s against the plan's need.

    Example: 480 MB/s read; 450,000 tokens/s of 2-byte ids = 900,000 B/s = 0.9 MB/s
    needed; headroom 533: "the disk reads 480 MB/s; the plan needs 0.9 MB/s of tokens: not a
    bottleneck".

    Args:
        read_mb_s: measured read rate, MB/s (10⁶ B/s).
        tokens_per_s: the whole job's training tokens per second.
        bytes_per_token: bytes per token as stored (see :data:`BYTES_PER_TOKEN`).
        likely_cached: the probe's ``conditions.cache.likely_cached``: the message then says
            the rate may be the page cache's rather than the disk's.

    Raises:
        ValueError: a negative or non-finite rate, naming the argument (and see
            :func:`needed_read_rate`).
    """
    if not _number(read_mb_s) or read_mb_s < 0:
        raise ValueError(f"read_mb_s: must be a number >= 0, got {read_mb_s!r}")
    needed_mb_s = needed_read_rate(tokens_per_s, bytes_per_token) / 1e6
    headroom = read_mb_s / needed_mb_s if needed_mb_s > 0 else math.inf
    bottleneck = headroom < 1.0
    tight = not bottleneck and headroom < HEADROOM_COMFORTABLE
    head = (f"the disk reads {_num(read_mb_s)} MB/s; the plan needs {_num(needed_mb_s)} MB/s "
            "of tokens")
    if bottleneck:
        fixes = ("pre-tokenize to 2-byte ids, cache in RAM, or use a faster disk"
                 if bytes_per_token > BYTES_PER_TOKEN["uint16"]
                 else "cache the data in RAM or use a faster disk")
        message = f"{head}: the GPU will wait on the disk; {fixes}"
    elif tight:
        message = (f"{head}: enough for sequential reads, but shuffled reads or other "
                   "readers may make the GPU wait")
    else:
        message = f"{head}: not a bottleneck"
    if likely_cached and not bottleneck:
        message += (" (the read was likely served from RAM, the page cache: the disk "
                    "itself may be slower)")
    return DataReadVerdict(float(read_mb_s), needed_mb_s, headroom, bottleneck, tight, message)


def _number(value) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


def _positive(value) -> bool:
    return _number(value) and value > 0


def _num(value: float) -> str:
    """A rate for people: whole numbers from 100, else 3 significant digits."""
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


__all__ = ["BYTES_PER_TOKEN", "DataReadVerdict", "LinkReading", "PcieLink",
           "data_read_verdict", "implied_pcie_link", "needed_read_rate"]
