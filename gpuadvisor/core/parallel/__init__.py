"""Multi-GPU training: layouts (DP/ZeRO/FSDP/TP/PP/CP/EP), collectives, and step time.

* :mod:`.layout` — the degrees of parallelism, pipeline bubble and in-flight activations;
* :mod:`.collectives` — all-reduce, all-gather, reduce-scatter, all-to-all, send/receive
  times from NCCL bus bandwidth and latency;
* :mod:`.gemm` — one matmul's time: roofline with tile quantization;
* :mod:`.step` — one optimizer step of a transformer under a layout, part by part.
"""
