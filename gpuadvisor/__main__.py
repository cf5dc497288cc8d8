"""``python -m gpuadvisor``: the command line; with no arguments, the desktop app."""

import sys

from gpuadvisor.cli import main

if __name__ == "__main__":
    sys.exit(main())
