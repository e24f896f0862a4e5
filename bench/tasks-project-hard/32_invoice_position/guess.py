def invoice_position(pos, sku, qty, unit_cents):
    unit = unit_cents / 100
    total = qty * unit_cents / 100
    return f"{pos},{sku},{qty},{unit:.2f},{total:.2f}"
