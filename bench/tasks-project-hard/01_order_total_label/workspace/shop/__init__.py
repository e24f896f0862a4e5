"""Alpenladen shop package: pricing, tax and inventory helpers."""
