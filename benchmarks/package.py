"""Size and start of the Linux installer: .deb download, installed size, cold start.

    python benchmarks/package.py [--deb dist/gpuadvisor_0.1.0_amd64.deb] [--runs 5] [--build]

``--build`` runs ``packaging/build.sh --deb-only`` first; otherwise the newest ``dist/*.deb``
is measured. The .deb is unpacked into a temporary folder with ``dpkg-deb -x`` (no root, no
apt: the same files apt would install), and from there:

- download size: the .deb file;
- installed size: disk usage (``du``) of everything it unpacks (``/opt/gpuadvisor``, the
  launchers, menu entry, icons), and the ``Installed-Size`` it declares;
- start: a fresh process of the unpacked ``gpuadvisor gui --startup-probe`` on Qt's offscreen
  platform with an empty settings folder, from process start to the main window's first
  paint (and to the charts' first paint, which follows it); the first run after unpacking is
  shown apart, then the median of ``--runs`` more (the operating system's file cache is
  warm then, as on any later start). With ``--drop-caches`` (root, Linux) the first run
  starts with the file cache emptied: the first start after booting.

Goals: .deb <= 60 MB, installed <= 220 MB, window painted <= 1.5 s (median).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(Path(__file__).resolve().parent))
from startup import paint_times  # noqa: E402  (benchmarks/startup.py)

GOAL_DEB_MB = 60
GOAL_INSTALLED_MB = 220
GOAL_START_S = 1.5
MB = 1_000_000


def newest_deb() -> Path:
    found = sorted((ROOT / "dist").glob("gpuadvisor_*.deb"), key=lambda p: p.stat().st_mtime)
    if not found:
        raise SystemExit("package.py: no dist/gpuadvisor_*.deb; run packaging/build.sh "
                         "or pass --build")
    return found[-1]


def disk_usage_bytes(folder: Path) -> int:
    """``du -sk`` of ``folder``, in bytes (blocks actually used, as after installing)."""
    out = subprocess.run(["du", "-sk", str(folder)], capture_output=True, text=True,
                         check=True).stdout
    return int(out.split()[0]) * 1024


def start_once(program: Path, config_dir: str) -> tuple[float, float]:
    """Seconds from starting the frozen app to its first painted window, and charts."""
    return paint_times([str(program)], config_dir)


def verdict(ok: bool) -> str:
    return "ok" if ok else "OVER"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deb", type=Path, help="the .deb to measure (default: newest in dist/)")
    parser.add_argument("--runs", type=int, default=5, help="timed starts after the first")
    parser.add_argument("--drop-caches", action="store_true",
                        help="empty the OS file cache before the first run (root only)")
    parser.add_argument("--build", action="store_true",
                        help="build it first with packaging/build.sh --deb-only")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs: at least 1")
    if args.build:
        subprocess.run([str(ROOT / "packaging" / "build.sh"), "--deb-only"], check=True)
    deb = args.deb or newest_deb()
    if not deb.is_file():
        raise SystemExit(f"package.py: {deb}: no such file")
    deb_bytes = deb.stat().st_size
    declared_kib = int(subprocess.run(["dpkg-deb", "-f", str(deb), "Installed-Size"],
                                      capture_output=True, text=True, check=True).stdout)

    with tempfile.TemporaryDirectory(prefix="gpuadvisor-package-") as tmp:
        tree = Path(tmp) / "root"
        subprocess.run(["dpkg-deb", "-x", str(deb), str(tree)], check=True)
        installed = disk_usage_bytes(tree)
        program = tree / "opt" / "gpuadvisor" / "gpuadvisor"
        config = Path(tmp) / "config"
        first_label = "first run after unpacking"
        if args.drop_caches:
            os.sync()
            try:
                Path("/proc/sys/vm/drop_caches").write_text("3\n")
                first_label = "first run, file cache emptied"
            except OSError as exc:
                print(f"package.py: --drop-caches: {exc} (needs root); measuring anyway")
        first = start_once(program, str(config))
        runs = [start_once(program, str(config)) for _ in range(args.runs)]
    window = statistics.median(r[0] for r in runs)
    charts = statistics.median(r[1] for r in runs)

    print(f"installer: {deb.name}")
    print(f"  .deb download size: {deb_bytes / MB:.1f} MB (goal <= {GOAL_DEB_MB} MB) "
          f"{verdict(deb_bytes <= GOAL_DEB_MB * MB)}")
    print(f"  installed size:     {installed / MB:.1f} MB on disk, "
          f"{declared_kib * 1024 / MB:.1f} MB declared (goal <= {GOAL_INSTALLED_MB} MB) "
          f"{verdict(installed <= GOAL_INSTALLED_MB * MB)}")
    print("  start of the frozen app, offscreen, to the painted window (seconds):")
    print(f"    {first_label}: window {first[0]:.2f}, charts {first[1]:.2f}")
    print("    then: " + ", ".join(f"{r[0]:.2f}" for r in runs)
          + f" -> median {window:.2f} (goal <= {GOAL_START_S} s) "
          f"{verdict(window <= GOAL_START_S)}; charts median {charts:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
