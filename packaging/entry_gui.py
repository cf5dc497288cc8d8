"""Frozen entry point of the desktop app (``gpuadvisor-gui``): see gpuadvisor.spec."""

import sys

from gpuadvisor.gui.app import main

if __name__ == "__main__":
    sys.exit(main())
