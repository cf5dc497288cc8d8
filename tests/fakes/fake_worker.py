"""A stand-in for gpuadvisor/probes/worker.py that misbehaves on purpose.

The mode comes from ``--mode MODE`` or the ``FAKE_WORKER_MODE`` environment variable
(default ``ok``); it accepts the real worker's ``--probes``/``--device``/``--quick`` flags,
and ``--hello-only`` (ok, no-torch and bad-device then say hello and done; the faulty modes
misbehave as usual).

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
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time

FOREVER_S = 3600


def send(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def hello(torch: str | None = "0.0-fake", protocol: int = 1) -> None:
    send({"type": "hello", "protocol": protocol,
          "versions": {"python": "3.x", "torch": torch, "cuda": None, "hip": None},
          "accelerators": {"cuda": False, "rocm": False, "mps": False, "xpu": False,
                           "cpu": True},
          "devices": [{"id": "cpu", "type": "cpu", "name": "Fake CPU"}],
          "torch_error": None if torch else "ModuleNotFoundError: No module named 'torch'"})


def result(probe: str) -> None:
    send({"type": "result", "probe": probe, "figures": {"fake_tflops": 1.5},
          "units": {"fake_tflops": "TFLOPS"},
          "conditions": {"device": "cpu", "device_name": "Fake CPU", "dtype": "fp32"}})


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default=os.environ.get("FAKE_WORKER_MODE", "ok"))
    parser.add_argument("--probes", default="matmul")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--full", action="store_true")
    parser.add_argument("--hello-only", action="store_true")
    args = parser.parse_args()
    probes = [p for p in args.probes.split(",") if p] or ["matmul"]
    mode = args.mode
    if args.hello_only and mode in ("ok", "no-torch", "bad-device"):
        hello(torch=None if mode == "no-torch" else "0.0-fake")
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

    hello()
    if mode == "ok":
        for probe in probes:
            send({"type": "progress", "probe": probe, "fraction": 0.5, "message": "half way"})
            result(probe)
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
