"""Achieved NCCL bus bandwidth and latency of each link class (published nccl-tests runs).

Every figure is a large-message ``busbw`` from a published nccl-tests run; the rows, with
their full sources, are in ``benchmarks/calibration/links.json`` (ids ``LNK...`` below).
Where no run is published for a class, the figure is derived from the closest measured
class's fraction of its raw link rate, and the entry says so.

Intra-node classes are keyed by the catalog's ``p2p_link`` (and PCIe generation when the
GPUs talk over PCIe); network classes by the name a user types (``--network``). Network
figures are per GPU (one NIC per GPU, as in DGX/HGX nodes and the clouds' 8-GPU instances);
:mod:`.cluster` turns them into a group's bandwidth.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LinkClass:
    """One kind of link, as NCCL achieves it.

    Attributes:
        name: key (``nvlink4``, ``pcie4``, ``ib-ndr-400g``, ...).
        label: words for a user.
        busbw_gb_s: achieved all-reduce bus bandwidth per GPU, GB/s.
        latency_s: per-hop latency, seconds (small-message time / hops of the run).
        source: where the figure comes from.
        per_node: the figure is one NIC shared by the whole node (plain Ethernet), not
            one per GPU.
        wide_busbw_gb_s: groups of more than :data:`WIDE_GROUP` GPUs of one node, where they
            differ (PCIe servers hang four cards off each CPU socket: eight cross the
            sockets' link); None = the same.
    """

    name: str
    label: str
    busbw_gb_s: float
    latency_s: float
    source: str
    per_node: bool = False
    wide_busbw_gb_s: float | None = None


#: The most GPUs of a PCIe node on one CPU socket (see ``LinkClass.wide_busbw_gb_s``).
WIDE_GROUP = 4


_INTRA = (
    # PCIe through the host. Consumer GeForce cards have peer-to-peer disabled, so traffic
    # bounces through host memory: 2x RTX 2080 Ti (gen3) reach 4.0 GB/s all-reduce busbw,
    # 12.25 us at the smallest size over 2 hops (LNK001).
    LinkClass("pcie3", "PCIe 3.0 through the host", 4.0, 6e-6, "LNK001: 2x RTX 2080 Ti, "
              "nccl-tests all_reduce 1 GiB, no P2P"),
    # No large-message gen4 figure is published; gen3 reaches 4.0 of 15.75 GB/s (25%) and
    # gen5 28 of 63 (44%, 8x RTX 5090, LNK004): the midpoint fraction (35%) of 31.5 GB/s.
    LinkClass("pcie4", "PCIe 4.0 through the host", 11.0, 6e-6,
              "derived: 35% of 31.5 GB/s, between measured gen3 (LNK001) and gen5 (LNK004)"),
    # Datacenter and workstation cards keep peer-to-peer over PCIe (GeForce drivers turn it
    # off): L40S, PCIe only, nccl-tests all_reduce at 256 MiB: 2 GPUs 21.48, 4 GPUs 21.72,
    # 8 GPUs 14.43 GB/s (LNK049-051).
    LinkClass("pcie4-p2p", "PCIe 4.0 with peer-to-peer", 21.5, 6e-6,
              "LNK049-051: L40S, uccl-project/uccl sm_budget_results.md (native NCCL, median "
              "of 3 runs)", wide_busbw_gb_s=14.4),
    # 8x RTX 5090 on PCIe 5.0: 28 GB/s (LNK004); workstation RTX PRO 6000 with P2P: 41 GB/s,
    # 24.6 us at 256 B over 6 tree hops (LNK006).
    LinkClass("pcie5", "PCIe 5.0 through the host", 28.0, 4e-6, "LNK004: 8x RTX 5090, "
              "nvidia/nccl#1639; latency LNK006"),
    LinkClass("pcie5-p2p", "PCIe 5.0 with peer-to-peer", 41.0, 4e-6,
              "LNK006: 8x RTX PRO 6000 Blackwell, rtx6kpro pcie-bandwidth.md"),
    # NVLink bridges join pairs. A100 NV12 pair: 208 GB/s of 300 per direction = 69%
    # (LNK009); the GeForce/RTX A6000 bridge (112.5 GB/s both ways) at that fraction.
    LinkClass("nvlink-bridge", "NVLink bridge (pair)", 39.0, 5e-6,
              "derived: 69% (A100 NV12 pair, LNK009) of the bridge's 56.25 GB/s per direction"),
    LinkClass("nvlink-bridge-a100", "NVLink bridge, A100 PCIe pair", 208.0, 5e-6,
              "LNK009: nccl-tests#178"),
    LinkClass("nvlink-bridge-h100", "NVLink bridge, H100 PCIe pair", 116.0, 5e-6,
              "LNK008: nvidia/nccl#1161"),
    # V100 NVLink2 (150 GB/s per direction): no published busbw; the A100 NVSwitch fraction
    # (231 of 300 = 77%, LNK011) of it.
    LinkClass("nvlink2", "NVLink 2 (V100)", 115.0, 5e-6,
              "derived: 77% (A100 NVSwitch, LNK011) of 150 GB/s per direction"),
    # A100 SXM, 8 GPUs on NVSwitch: 229-235 GB/s (LNK010, LNK011, LNK014, LNK015); 16.96 us
    # at the smallest size over 6 tree hops (LNK011).
    LinkClass("nvlink3", "NVLink 3 / NVSwitch (A100)", 231.0, 3e-6,
              "LNK011: Azure NDmv4 8x A100, mscclpp performance-ndmv4.md"),
    # H100/H200, 8 GPUs: 367 GB/s all-reduce without NVLink SHARP, 480 with it (LNK017,
    # LNK018); all-gather 361 (LNK019). 33.18 us at 8 B over 6 hops (LNK023). The figure
    # without SHARP is used: all-gather and reduce-scatter (FSDP's traffic) get no SHARP.
    LinkClass("nvlink4", "NVLink 4 / NVSwitch (H100, H200)", 365.0, 5.5e-6,
              "LNK018-LNK020: 8x H200 all_reduce/all_gather/reduce_scatter, ml-engineering"),
    # B200, 8 GPUs: 682 GB/s without SHARP, 838-846 with (LNK027-LNK029).
    LinkClass("nvlink5", "NVLink 5 / NVSwitch (B200)", 682.0, 5.5e-6,
              "LNK028: AWS p6-b200 8x B200 all_reduce without SHARP, ml-engineering"),
)

_NETWORK = (
    # Two A100 nodes x 8 GPUs, one 200 Gb/s HDR NIC per GPU: 188 GB/s all-reduce busbw for
    # the 16 GPUs (LNK034) = 23.5 GB/s per GPU's NIC; NCCL's maintainer quotes ~24 GB/s per
    # 200G NIC (LNK037). 35.85 us at the smallest size (LNK034) over 8 tree hops.
    LinkClass("ib-hdr-200g", "InfiniBand HDR 200 Gb/s per GPU", 23.5, 4.5e-6,
              "LNK034: 2x8 A100 Azure NDmv4, 188 GB/s / 8 NICs"),
    # Four H100 nodes, one 400 Gb/s NDR NIC per GPU: 330.9 GB/s for 32 GPUs (LNK040) =
    # 41.4 GB/s per NIC (83% of 50); 38.37 us at the smallest size over 10 hops.
    LinkClass("ib-ndr-400g", "InfiniBand NDR 400 Gb/s per GPU", 41.4, 3.8e-6,
              "LNK040: 4x8 H100 Voltage Park, 330.9 GB/s / 8 NICs"),
    LinkClass("ib-xdr-800g", "InfiniBand XDR 800 Gb/s per GPU", 83.0, 3.8e-6,
              "derived: NDR's 83% (LNK040) of 100 GB/s; no published XDR run"),
    LinkClass("ib-100g", "InfiniBand/RoCE 100 Gb/s per GPU", 10.4, 4.5e-6,
              "derived: NDR's 83% (LNK040) of 12.5 GB/s"),
    # RoCE at 200/400 Gb/s per GPU: published runs are few and low-confidence (LNK046-048);
    # the InfiniBand figures of the same rate are used.
    LinkClass("roce-200g", "RoCE 200 Gb/s per GPU", 23.5, 4.5e-6, "as ib-hdr-200g (LNK034)"),
    LinkClass("roce-400g", "RoCE 400 Gb/s per GPU", 41.4, 3.8e-6, "as ib-ndr-400g (LNK040)"),
    # Plain Ethernet with NCCL's socket transport (no RDMA): TCP reached no more than 60% of
    # wire speed (nvidia/nccl discussion cited in benchmarks/calibration/README.md).
    LinkClass("ethernet-10g", "Ethernet 10 Gb/s (TCP) per node", 0.75, 30e-6,
              "60% of 1.25 GB/s (NCCL socket transport, no RDMA)", per_node=True),
    LinkClass("ethernet-25g", "Ethernet 25 Gb/s (TCP) per node", 1.9, 30e-6,
              "60% of 3.125 GB/s (NCCL socket transport, no RDMA)", per_node=True),
    LinkClass("ethernet-100g", "Ethernet 100 Gb/s (TCP) per node", 7.5, 30e-6,
              "60% of 12.5 GB/s (NCCL socket transport, no RDMA)", per_node=True),
)

INTRA_LINKS: dict[str, LinkClass] = {link.name: link for link in _INTRA}
NETWORKS: dict[str, LinkClass] = {link.name: link for link in _NETWORK}
#: Short names a user may type for ``--network``.
NETWORK_ALIASES = {"100g": "ib-100g", "200g": "ib-hdr-200g", "400g": "ib-ndr-400g",
                   "800g": "ib-xdr-800g"}


def network(name: str) -> LinkClass:
    """The network class called ``name`` (or a short alias such as ``400g``).

    Raises:
        ValueError: unknown name; the message lists the known ones.
    """
    key = NETWORK_ALIASES.get(name, name)
    if key not in NETWORKS:
        known = ", ".join(sorted([*NETWORKS, *NETWORK_ALIASES]))
        raise ValueError(f"network: unknown {name!r}; one of {known}")
    return NETWORKS[key]


def intra_link(p2p_link: str | None, pcie_gen: int | None, name: str = "", *,
               segment: str | None = None, vendor: str | None = None) -> LinkClass:
    """The intra-node class for a GPU from its catalog fields.

    NVLink kinds map directly; an NVLink bridge on A100/H100 PCIe boards uses their own
    measured pairs; otherwise PCIe of the card's generation: peer-to-peer on NVIDIA's
    datacenter and workstation cards, through the host elsewhere (GeForce drivers disable
    peer-to-peer).
    """
    if p2p_link in ("nvlink2", "nvlink3", "nvlink4", "nvlink5"):
        return INTRA_LINKS[p2p_link]
    if p2p_link == "nvlink-bridge":
        if "A100" in name:
            return INTRA_LINKS["nvlink-bridge-a100"]
        if "H100" in name or "H200" in name:
            return INTRA_LINKS["nvlink-bridge-h100"]
        return INTRA_LINKS["nvlink-bridge"]
    gen = pcie_gen or 4
    if gen <= 3:
        return INTRA_LINKS["pcie3"]
    peer = vendor == "nvidia" and segment in ("datacenter", "workstation")
    if gen == 4:
        return INTRA_LINKS["pcie4-p2p" if peer else "pcie4"]
    return INTRA_LINKS["pcie5-p2p" if peer else "pcie5"]


def default_network(p2p_link: str | None, segment: str | None = None) -> LinkClass:
    """The network a cluster of these GPUs usually has (stated in the assumptions).

    NVLink5/4 nodes (B200, H100/H200 SXM): 400 Gb/s NDR per GPU (DGX H100/B200 reference
    designs). NVLink3 (A100 SXM): 200 Gb/s HDR per GPU (DGX A100). Anything else (PCIe
    cards, workstations): 25 Gb/s Ethernet per node.
    """
    if p2p_link in ("nvlink4", "nvlink5"):
        return NETWORKS["ib-ndr-400g"]
    if p2p_link == "nvlink3":
        return NETWORKS["ib-hdr-200g"]
    return NETWORKS["ethernet-25g"]
