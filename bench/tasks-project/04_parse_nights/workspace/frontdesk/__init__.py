"""Booking form and front desk helpers."""
