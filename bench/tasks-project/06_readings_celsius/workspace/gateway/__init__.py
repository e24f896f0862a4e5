"""Greenhouse gateway."""
