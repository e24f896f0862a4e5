"""Report card helpers."""
