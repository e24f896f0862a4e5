"""Catalogue scripts of the village library."""
