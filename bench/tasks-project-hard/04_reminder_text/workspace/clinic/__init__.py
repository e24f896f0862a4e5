"""Front desk tools of the practice."""
