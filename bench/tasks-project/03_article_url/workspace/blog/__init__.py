"""Bergnotizen blog generator."""
