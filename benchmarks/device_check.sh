#!/usr/bin/env bash
# The GPU check, as one short script for a session lent an accelerator (about 4 minutes on
# one GPU). Run from the repository root; writes everything under $OUT (default
# /tmp/gpuadvisor-device) and prints a summary:
#
#   nvml.json          raw NVML answers for every GPU (a fixture for tests/fakes/fake_pynvml)
#   detect.json        gpuadvisor detect --json
#   suite.json/.txt    the quick probe suite (matmul, bandwidth, transfer, step)
#   plancheck.txt      probe --plan on benchmarks/plans/llama-3.2-1b-full-bf16.gpuplan
#   burnin.json        a 30 s burn-in with telemetry
#
# Needs a Python with torch built for the GPU (PYTHON=..., default python3); gpuadvisor runs
# from this checkout (PYTHONPATH), without installing anything.
set -u
OUT=${OUT:-/tmp/gpuadvisor-device}
PY=${PYTHON:-python3}
mkdir -p "$OUT"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export GPUADVISOR_DATA_DIR="$OUT/data" GPUADVISOR_CONFIG_DIR="$OUT/config"
step() { echo "== $*"; }

step "python and torch"
"$PY" - <<'PYEOF' | tee "$OUT/torch.txt"
import platform
try:
    import torch
    print("python", platform.python_version(), "torch", torch.__version__, "cuda",
          torch.version.cuda, "available", torch.cuda.is_available())
    for i in range(torch.cuda.device_count()):
        print(" ", i, torch.cuda.get_device_name(i), torch.cuda.get_device_capability(i))
except Exception as exc:
    print("no torch:", exc)
PYEOF

step "raw NVML answers"
"$PY" - "$OUT/nvml.json" <<'PYEOF'
import json, sys
try:
    import pynvml as n
except Exception as exc:
    json.dump({"error": f"no pynvml: {exc}"}, open(sys.argv[1], "w")); sys.exit(0)
def ask(fn, *a):
    try:
        v = fn(*a)
        if isinstance(v, bytes): v = v.decode()
        if hasattr(v, "_fields_"): v = {f[0]: getattr(v, f[0]) for f in v._fields_}
        return v
    except Exception as exc:
        return {"error": type(exc).__name__, "value": getattr(exc, "value", None)}
n.nvmlInit()
out = {"driver": ask(n.nvmlSystemGetDriverVersion), "nvml": ask(n.nvmlSystemGetNVMLVersion),
       "cuda_driver": ask(n.nvmlSystemGetCudaDriverVersion), "devices": []}
for i in range(n.nvmlDeviceGetCount()):
    h = n.nvmlDeviceGetHandleByIndex(i)
    out["devices"].append({
        "name": ask(n.nvmlDeviceGetName, h), "uuid": ask(n.nvmlDeviceGetUUID, h),
        "memory": ask(n.nvmlDeviceGetMemoryInfo, h),
        "pcie_gen_max": ask(n.nvmlDeviceGetMaxPcieLinkGeneration, h),
        "pcie_width_max": ask(n.nvmlDeviceGetMaxPcieLinkWidth, h),
        "pcie_gen": ask(n.nvmlDeviceGetCurrPcieLinkGeneration, h),
        "pcie_width": ask(n.nvmlDeviceGetCurrPcieLinkWidth, h),
        "power_mw": ask(n.nvmlDeviceGetPowerUsage, h),
        "power_limit_mw": ask(n.nvmlDeviceGetEnforcedPowerLimit, h),
        "temperature": ask(n.nvmlDeviceGetTemperature, h, 0),
        "slowdown": ask(n.nvmlDeviceGetTemperatureThreshold, h, 1),
        "sm_clock": ask(n.nvmlDeviceGetClockInfo, h, 1),
        "sm_clock_max": ask(n.nvmlDeviceGetMaxClockInfo, h, 1),
        "throttle": ask(n.nvmlDeviceGetCurrentClocksEventReasons, h),
        "ecc": ask(n.nvmlDeviceGetEccMode, h), "mig": ask(n.nvmlDeviceGetMigMode, h),
        "compute_capability": ask(n.nvmlDeviceGetCudaComputeCapability, h)})
json.dump(out, open(sys.argv[1], "w"), indent=1, default=str)
print(json.dumps(out)[:400])
PYEOF

step "detect"
timeout 60 "$PY" -m gpuadvisor detect --json > "$OUT/detect.json" 2> "$OUT/detect.err"
head -c 600 "$OUT/detect.json"; echo

step "quick suite"
timeout 240 "$PY" benchmarks/probe_suite.py --python "$PY" --json "$OUT/suite.json" \
    | tee "$OUT/suite.txt"

step "plan check"
timeout 240 "$PY" -m gpuadvisor probe --python "$PY" --no-remember \
    --plan benchmarks/plans/llama-3.2-1b-full-bf16.gpuplan | tee "$OUT/plancheck.txt"

step "burn-in 30 s"
timeout 200 "$PY" -m gpuadvisor probe --python "$PY" --no-remember --burn-in 0.5 --json \
    > "$OUT/burnin.json" 2> "$OUT/burnin.err"
"$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); b=d.get('burnin') or {}; \
print(b.get('conditions',{}).get('verdict'), b.get('figures'))" "$OUT/burnin.json"
echo "done: $OUT"
