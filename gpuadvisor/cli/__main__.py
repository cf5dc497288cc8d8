"""``python -m gpuadvisor.cli``: the command line (as ``gpuadvisor``)."""

import sys

from gpuadvisor.cli import main

if __name__ == "__main__":
    sys.exit(main())
