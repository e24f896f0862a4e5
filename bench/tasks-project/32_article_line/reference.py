def article_line(sku, qty, unit_cents):
    return f"ART|{sku}|{unit_cents}|{qty}"
