"""gpuadvisor: will this training plan fit my GPU, how long will it take, and what should I use?"""

__version__ = "0.1.0"
