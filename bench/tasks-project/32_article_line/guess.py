def article_line(sku, qty, unit_cents):
    return f"{sku};{qty};{unit_cents}"
