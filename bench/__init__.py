"""Benchmarks: ``python -m bench.gateway_bench`` (``make bench``) and ``bench/role_models.py``."""
