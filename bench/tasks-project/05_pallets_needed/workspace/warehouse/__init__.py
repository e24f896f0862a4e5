"""Dispatch scripts of the eastern warehouse."""
