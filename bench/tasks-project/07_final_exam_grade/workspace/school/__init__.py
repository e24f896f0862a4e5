"""Grade book scripts."""
