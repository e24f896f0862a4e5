"""edgeswarm runtime package."""
