"""edgeswarm agents package."""
