"""Preallocated memory for clip audio.

Synthesis produces many short float32 clips (1-10 s at 48 kHz). Allocating
each one separately fragments the heap on the host and, on a GPU, makes every
inference pay for an allocator call (or a caching-allocator round trip). This
package keeps one buffer per pool, preallocated once, and hands out views of
it:

- :mod:`engine.memory.arena`     block allocator over a pluggable storage
- :mod:`engine.memory.clipstore` LRU clip store inside an arena (pinning,
  reserve-then-commit for in-place inference output)
- :mod:`engine.memory.predictor` output-length predictor that sizes the
  reservation taken before inference
- :mod:`engine.memory.device`    torch (CPU/CUDA) storage and ONNX Runtime IO
  binding; torch is imported lazily, CPU users never need it
"""
