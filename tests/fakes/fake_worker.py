"""A stand-in for gpuadvisor/probes/worker.py that misbehaves on purpose.

The mode comes from ``--mode MODE`` or the ``FAKE_WORKER_MODE`` environment variable
(default ``ok``); it accepts the real worker's ``--probes``/``--device``/``--quick``/
``--options`` flags (options are ignored), and ``--hello-only`` (the well-behaved modes then
say hello and done; the faulty modes misbehave as usual).

Modes:
    ok              hello, progress, a result per probe, done; exit 0
    no-torch        hello with ``torch: null``, a ``torch-missing`` error per probe, done
    bad-device      hello, a ``bad-device`` error per probe, done
    garbage         hello, then a line that is not JSON (then would carry on)
    crash           hello, then killed by a signal (SIGKILL; abort on Windows)
    hang            hello, then sleeps forever
    hang-ignore-term  like hang, but ignores SIGTERM (the runner must kill it)
    nonzero-exit    hello, one result, a message on stderr, exit 3 without done
    silent          says nothing at all and sleeps
    slow-progress   hello, then a progress line every 50 ms for a long time
    close-and-hang  hello, closes stdout, sleeps
    no-done         hello, results, exit 0 without done
    wrong-version   hello speaking protocol 999
    result-first    a result before hello
    slow            hello, then per probe 20 progress lines 0.1 s apart, a result, done
    stop-aware      hello, progress every 50 ms until a ``stop`` line arrives on stdin
                    (at most an hour), then a result per probe and done
    chunked         hello, then a result line written in three pieces 50 ms apart, done
    long-line       hello, then over a megabyte without a newline, then sleeps
    rtx4090         hello with a CUDA "NVIDIA GeForce RTX 4090" (and the CPU), then
                    realistic matmul/bandwidth figures measured on cuda:0 (see FIGURES), done

``--hello-only`` in slow, stop-aware, chunked and rtx4090 says hello and done too.
``--gpu`` makes any mode's hello and results those of the ``rtx4090`` mode (``--mode slow
--gpu``: a slow run on the fake RTX 4090).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time

FOREVER_S = 3600

#: What the ``rtx4090`` mode reports, per probe (tests compare the page against these).
FIGURES = {
    "matmul": {"fp32_median_tflops": 71.5, "bf16_median_tflops": 148.25,
               "fp16_median_tflops": 150.5, "bf16_max_tflops": 152.0},
    "bandwidth": {"copy_gb_s": 905.5, "triad_gb_s": 921.0},
    "plancheck": {"peak_allocated_bytes_full": 9.5e9, "peak_reserved_bytes_full": 10.5e9,
                  "forward_backward_s_full": 1.25, "optimizer_s_full": 0.05,
                  "step_s_full": 1.3},
    "dataread": {"read_mb_s": 480.0},
}
#: Unit of a figure by the end of its name.
UNITS = (("tflops", "TFLOPS"), ("gb_s", "GB/s"), ("bytes_full", "bytes"), ("s_full", "s"),
         ("mb_s", "MB/s"))
RTX4090 = {"id": "cuda:0", "type": "cuda", "name": "NVIDIA GeForce RTX 4090",
           "memory_total_bytes": 24 * 1024**3, "uuid": "GPU-fake-4090"}
WELL_BEHAVED = ("ok", "no-torch", "bad-device", "slow", "stop-aware", "chunked", "rtx4090")


def send(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def hello(torch: str | None = "0.0-fake", protocol: int = 1, gpu: bool = False) -> None:
    devices = [{"id": "cpu", "type": "cpu", "name": "Fake CPU"}]
    send({"type": "hello", "protocol": protocol,
          "versions": {"python": "3.x", "torch": torch, "cuda": "12.8" if gpu else None,
                       "hip": None},
          "accelerators": {"cuda": gpu, "rocm": False, "mps": False, "xpu": False,
                           "cpu": True},
          "devices": [RTX4090, *devices] if gpu else devices,
          "torch_error": None if torch else "ModuleNotFoundError: No module named 'torch'"})


def result(probe: str) -> None:
    send({"type": "result", "probe": probe, "figures": {"fake_tflops": 1.5},
          "units": {"fake_tflops": "TFLOPS"},
          "conditions": {"device": "cpu", "device_name": "Fake CPU", "dtype": "fp32"}})


def gpu_result(probe: str) -> None:
    figures = FIGURES.get(probe, {"fake_tflops": 1.5})
    units = {name: next(unit for end, unit in UNITS if name.endswith(end)) for name in figures}
    conditions = {"device": "cuda:0", "device_name": RTX4090["name"]}
    if probe == "plancheck":
        conditions.update(memory_measured=True, depths=[1, 2])
    send({"type": "result", "probe": probe, "figures": figures, "units": units,
          "conditions": conditions})


def wait_for_stop(probe: str) -> None:
    """Progress every 50 ms until stdin says ``stop`` (or closes)."""
    stop = threading.Event()

    def listen() -> None:
        for line in sys.stdin:
            if line.strip() == "stop":
                break
        stop.set()

    threading.Thread(target=listen, daemon=True).start()
    tick = 0
    while not stop.wait(0.05) and tick < FOREVER_S * 20:
        send({"type": "progress", "probe": probe, "fraction": 0.0, "message": f"tick {tick}"})
        tick += 1


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default=os.environ.get("FAKE_WORKER_MODE", "ok"))
    parser.add_argument("--probes", default="matmul")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--full", action="store_true")
    parser.add_argument("--hello-only", action="store_true")
    parser.add_argument("--gpu", action="store_true")
    parser.add_argument("--options", default=None)
    args = parser.parse_args()
    probes = [p for p in args.probes.split(",") if p] or ["matmul"]
    mode = args.mode
    gpu = args.gpu or mode == "rtx4090"
    if gpu:
        global result
        result = gpu_result
    if args.hello_only and mode in WELL_BEHAVED:
        hello(torch=None if mode == "no-torch" else "0.0-fake", gpu=gpu)
        send({"type": "done"})
        return 0

    if mode == "silent":
        time.sleep(FOREVER_S)
        return 0
    if mode == "wrong-version":
        hello(protocol=999)
        send({"type": "done"})
        return 0
    if mode == "result-first":
        result(probes[0])
        return 0
    if mode == "no-torch":
        hello(torch=None)
        for probe in probes:
            send({"type": "error", "probe": probe, "kind": "torch-missing",
                  "message": f"torch is not installed in {sys.executable}"})
        send({"type": "done"})
        return 0
    if mode == "bad-device":
        hello()
        for probe in probes:
            send({"type": "error", "probe": probe, "kind": "bad-device",
                  "message": f"--device {args.device}: torch sees 1 GPU(s): cuda:0"})
        send({"type": "done"})
        return 0

    hello(gpu=gpu)
    if mode == "ok":
        for probe in probes:
            send({"type": "progress", "probe": probe, "fraction": 0.5, "message": "half way"})
            result(probe)
        send({"type": "done"})
    elif mode == "slow":
        for probe in probes:
            for step in range(20):
                send({"type": "progress", "probe": probe, "fraction": step / 20,
                      "message": f"step {step + 1} of 20"})
                time.sleep(0.1)
            result(probe)
        send({"type": "done"})
    elif mode == "stop-aware":
        wait_for_stop(probes[0])
        for probe in probes:
            result(probe)
        send({"type": "done"})
    elif mode == "chunked":
        line = json.dumps({"type": "result", "probe": probes[0], "figures": {"fake_tflops": 2.5},
                           "units": {"fake_tflops": "TFLOPS"},
                           "conditions": {"device": "cpu"}}) + "\n"
        third = len(line) // 3
        for piece in (line[:third], line[third:2 * third], line[2 * third:]):
            sys.stdout.write(piece)
            sys.stdout.flush()
            time.sleep(0.05)
        for probe in probes[1:]:
            result(probe)
        send({"type": "done"})
    elif mode == "long-line":
        sys.stdout.write("x" * 1_100_000)
        sys.stdout.flush()
        time.sleep(FOREVER_S)
    elif mode == "rtx4090":
        for probe in probes:
            send({"type": "progress", "probe": probe, "fraction": 0.5, "message": "half way"})
            gpu_result(probe)
        send({"type": "done"})
    elif mode == "garbage":
        sys.stdout.write("Warning: something printed on stdout\n")
        sys.stdout.flush()
        time.sleep(FOREVER_S)
    elif mode == "crash":
        if sys.platform == "win32":
            os.abort()
        os.kill(os.getpid(), signal.SIGKILL)
    elif mode in ("hang", "hang-ignore-term"):
        if mode == "hang-ignore-term":
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
        time.sleep(FOREVER_S)
    elif mode == "nonzero-exit":
        result(probes[0])
        print("fake worker: something went badly wrong", file=sys.stderr)
        return 3
    elif mode == "slow-progress":
        for i in range(FOREVER_S * 20):
            send({"type": "progress", "probe": probes[0], "fraction": 0.0,
                  "message": f"tick {i}"})
            time.sleep(0.05)
    elif mode == "close-and-hang":
        sys.stdout.close()
        os.close(1)
        time.sleep(FOREVER_S)
    elif mode == "no-done":
        for probe in probes:
            result(probe)
    else:
        print(f"fake worker: unknown mode {mode!r}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
