"""Time sheet helpers."""
