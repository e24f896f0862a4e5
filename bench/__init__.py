"""Benchmarks: ``python -m bench.suite`` (``make bench``), tasks for ``edgeswarm eval``."""
