"""Front desk helpers of the practice."""
