"""Benchmarks and measurements.

``python -m bench.suite`` (``make bench``), the task set of ``edgeswarm eval``,
``bench.cpu_dtype`` (bfloat16 vs float32 on this CPU) and ``bench.gpu_check`` (the gateway's
memory accounting on a real GPU).
"""
