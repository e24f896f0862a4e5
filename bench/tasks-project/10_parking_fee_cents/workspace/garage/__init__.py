"""Pay machine code of the station car park."""
