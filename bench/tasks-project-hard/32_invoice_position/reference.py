def _eur(cents):
    return f"EUR {cents // 100}.{cents % 100:02d}"


def invoice_position(pos, sku, qty, unit_cents):
    return f"POS;{pos};{sku};{qty};{_eur(unit_cents)};{_eur(qty * unit_cents)}"
