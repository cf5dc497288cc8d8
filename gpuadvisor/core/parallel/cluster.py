"""Which link each communication group of a layout crosses, and its bus bandwidth.

Ranks are numbered Megatron-style: tensor parallel innermost, then context parallel, data
parallel, and pipeline stages outermost (Megatron-Core ``RankGenerator`` order
``tp-cp-ep-dp-pp``). With ``G`` GPUs per node, a group of ``size`` ranks spaced ``stride``
apart puts ``k = min(size, max(1, G // stride))`` of its ranks in each node and spans
``ceil(size / k)`` nodes.

A group inside one node runs at the node's GPU-to-GPU bus bandwidth (NVLink/NVSwitch, a
bridge, or PCIe). A group across nodes runs NCCL rings through the network; with one NIC per
GPU (rail-optimized clusters: DGX, HGX, the clouds' 8-GPU instances) each of the ``k`` ranks
in a node drives its own NIC, so the ring's node-to-node edges carry ``k`` NICs' worth:
``busbw = min(intra-node busbw, k x network busbw per GPU)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .links import WIDE_GROUP
from .step import GroupLinks


@dataclass(frozen=True)
class Cluster:
    """The machine a job runs on.

    Attributes:
        gpus_per_node: GPUs sharing one node's GPU-to-GPU links.
        intra_busbw_gb_s: achieved NCCL bus bandwidth inside a node (GB/s).
        intra_latency_s: per-hop latency inside a node.
        net_busbw_gb_s: achieved bus bandwidth of the network per GPU (GB/s; ``inf`` when
            the job never leaves a node).
        net_latency_s: per-hop latency across nodes.
        intra_name, net_name: the link classes, for display.
    """

    gpus_per_node: int
    intra_busbw_gb_s: float
    intra_latency_s: float
    net_busbw_gb_s: float
    net_latency_s: float
    intra_name: str = ""
    net_name: str = ""
    intra_wide_busbw_gb_s: float | None = None


def group_bandwidth(cluster: Cluster, size, stride):
    """Bus bandwidth (GB/s) and per-hop latency (s) of groups of ``size`` ranks ``stride``
    apart (arrays broadcast)."""
    size = np.asarray(size, dtype=float)
    stride = np.asarray(stride, dtype=float)
    g = float(cluster.gpus_per_node)
    per_node = np.minimum(size, np.maximum(1.0, np.floor(g / stride)))
    nodes = np.ceil(size / per_node)
    across = nodes > 1
    intra = cluster.intra_busbw_gb_s
    if cluster.intra_wide_busbw_gb_s is not None:
        # more GPUs than one CPU socket holds cross the sockets' link (LinkClass)
        intra = np.where(per_node > WIDE_GROUP, cluster.intra_wide_busbw_gb_s, intra)
    busbw = np.where(across, np.minimum(intra, per_node * cluster.net_busbw_gb_s), intra)
    # A group of ranks that are each alone in their node uses only the network.
    busbw = np.where(across & (per_node <= 1), cluster.net_busbw_gb_s, busbw)
    latency = np.where(across, cluster.net_latency_s, cluster.intra_latency_s)
    return busbw, latency


def layout_links(cluster: Cluster, *, tp, cp, ep, dp, pp, shard) -> GroupLinks:
    """Bus bandwidth and latency of every group of a layout (arrays broadcast).

    ``shard`` is the ZeRO group (``dp``, or the data-parallel ranks of one node with hybrid
    sharding, whose replicas then all-reduce across nodes).
    """
    tp = np.asarray(tp, dtype=float)
    cp = np.asarray(cp, dtype=float)
    dp = np.asarray(dp, dtype=float)
    tp_bw, tp_lat = group_bandwidth(cluster, tp, 1.0)
    cp_bw, cp_lat = group_bandwidth(cluster, cp, tp)
    ep_bw, ep_lat = group_bandwidth(cluster, ep, tp * cp)
    dp_bw, dp_lat = group_bandwidth(cluster, shard, tp * cp)
    replicas = np.maximum(dp / np.asarray(shard, dtype=float), 1.0)
    cross_bw, cross_lat = group_bandwidth(cluster, replicas, tp * cp * shard)
    # Neighbouring pipeline stages are tp x cp x dp ranks apart.
    pp_bw, pp_lat = group_bandwidth(cluster, 2.0, tp * cp * dp)
    pp_bw = np.where(np.asarray(pp) > 1, pp_bw, cluster.intra_busbw_gb_s)
    return GroupLinks(tp_busbw=tp_bw, tp_latency=tp_lat, cp_busbw=cp_bw, cp_latency=cp_lat,
                      ep_busbw=ep_bw, ep_latency=ep_lat, dp_busbw=dp_bw, dp_latency=dp_lat,
                      pp_busbw=pp_bw, pp_latency=pp_lat, cross_busbw=cross_bw,
                      cross_latency=cross_lat)
