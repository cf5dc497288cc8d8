"""Pure domain layer: plain Python numbers in, records out. No Qt, torch, pynvml or I/O."""
