"""edgeswarm graphs package."""
