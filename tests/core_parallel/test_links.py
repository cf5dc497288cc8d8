"""The link a card's GPUs talk over inside a node, from published nccl-tests runs
(benchmarks/calibration/links.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuadvisor import catalog
from gpuadvisor.core.parallel.cluster import group_bandwidth
from gpuadvisor.core.parallel.links import INTRA_LINKS, intra_link
from gpuadvisor.core.parallel.plan_time import cluster_for

ROWS = {r["id"]: r for r in json.loads(
    (Path(__file__).parents[2] / "benchmarks/calibration/links.json").read_text())}
GPUS = catalog.load_gpus()


def test_datacenter_pcie_cards_talk_peer_to_peer_and_geforce_through_the_host():
    l40s, rtx4090 = GPUS["l40s"], GPUS["rtx-4090"]
    peer = intra_link(l40s.p2p_link, l40s.pcie_gen, l40s.name, segment=l40s.segment,
                      vendor=l40s.vendor)
    host = intra_link(rtx4090.p2p_link, rtx4090.pcie_gen, rtx4090.name,
                      segment=rtx4090.segment, vendor=rtx4090.vendor)
    assert peer is INTRA_LINKS["pcie4-p2p"] and host is INTRA_LINKS["pcie4"]
    # the L40S runs: 2 GPUs 21.48 GB/s, 8 GPUs 14.43 (LNK049, LNK051)
    assert peer.busbw_gb_s == pytest.approx(ROWS["LNK049"]["busbw_gb_s"], abs=0.05)
    assert peer.wide_busbw_gb_s == pytest.approx(ROWS["LNK051"]["busbw_gb_s"], abs=0.05)
    assert host.busbw_gb_s < peer.wide_busbw_gb_s


def test_a_group_wider_than_a_socket_gets_the_wide_figure():
    cluster, *_ = cluster_for(GPUS["l40s"], 8)
    bw, _ = group_bandwidth(cluster, [2, 4, 8], 1.0)
    assert list(bw) == [21.5, 21.5, 14.4]
    consumer, *_ = cluster_for(GPUS["rtx-4090"], 8)
    bw, _ = group_bandwidth(consumer, [2, 8], 1.0)
    assert list(bw) == [11.0, 11.0]  # no peer-to-peer: one figure through the host
