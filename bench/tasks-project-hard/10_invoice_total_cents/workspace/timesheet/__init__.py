"""Time tracking and invoicing of the firm."""
