"""Sensor access of the greenhouse gateway."""
