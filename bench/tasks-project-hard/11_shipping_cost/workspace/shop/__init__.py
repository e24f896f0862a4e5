"""The web shop's checkout helpers."""
