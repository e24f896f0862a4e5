"""Billing: plans, prices and invoices."""
