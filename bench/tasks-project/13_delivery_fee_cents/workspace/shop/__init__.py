"""The shop's basket helpers."""
