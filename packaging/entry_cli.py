"""Frozen entry point of the command line (``gpuadvisor``): see gpuadvisor.spec."""

import sys

from gpuadvisor.cli import main

if __name__ == "__main__":
    sys.exit(main())
