"""A stand-in probe worker that attacks the runner (tests/hostile): it accepts the real
worker's flags and ``--mode MODE``:

    child-holds-pipe   starts a child that inherits stdout and sleeps, then says hello, a
                       result per probe and done, and exits 0 (the child keeps the pipe open)
    child-then-hang    starts such a child, says hello, then sleeps (the run times out)
    deep-nesting       hello, then a result line nested 100,000 levels deep
    huge-number        hello, then a result whose figure has 400 digits
    huge-float         hello, then a result whose figure is 1e400

The child's pid is written to the file named by ``HOSTILE_CHILD_PID_FILE`` (when set).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time


def send(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def hello() -> None:
    send(json.dumps({"type": "hello", "protocol": 1,
                     "versions": {"python": "3.x", "torch": "0.0-fake", "cuda": None,
                                  "hip": None},
                     "accelerators": {"cpu": True}, "devices": [
                         {"id": "cpu", "type": "cpu", "name": "Fake CPU"}]}))


def result(probe: str) -> None:
    send(json.dumps({"type": "result", "probe": probe, "figures": {"x_s": 1.0},
                     "units": {"x_s": "s"}, "conditions": {"device": "cpu"}}))


def start_child() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"],
                             stdin=subprocess.DEVNULL)  # stdout and stderr inherited
    where = os.environ.get("HOSTILE_CHILD_PID_FILE")
    if where:
        with open(where, "w", encoding="utf-8") as handle:
            handle.write(str(child.pid))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--probes", default="matmul")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--full", action="store_true")
    parser.add_argument("--options", default=None)
    parser.add_argument("--hello-only", action="store_true")
    parser.add_argument("--mode", default="child-holds-pipe")
    args = parser.parse_args()
    probes = [p for p in args.probes.split(",") if p]
    mode = args.mode
    if mode in ("child-holds-pipe", "child-then-hang"):
        start_child()
    hello()
    if mode == "child-then-hang":
        time.sleep(120)
        return 0
    if mode == "deep-nesting":
        send('{"type": "result", "probe": "matmul", "figures": {}, "units": {}, '
             '"conditions": ' + "[" * 100_000 + "]" * 100_000 + "}")
    elif mode == "huge-number":
        send('{"type": "result", "probe": "matmul", "figures": {"x_s": 1' + "0" * 400
             + '}, "units": {"x_s": "s"}}')
    elif mode == "huge-float":
        send('{"type": "result", "probe": "matmul", "figures": {"x_s": 1e400}, '
             '"units": {"x_s": "s"}}')
    for probe in probes:
        result(probe)
    send(json.dumps({"type": "done"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
