"""Member desk helpers of the Stadtbibliothek."""
