ZONES = {"DE": 1, "AT": 2, "NL": 2, "BE": 2, "LU": 2, "FR": 2, "DK": 2, "PL": 2, "CZ": 2}


def manifest_line(order_id, country, weight_g):
    if country not in ZONES:
        raise ValueError(f"no carrier zone for {country!r}")
    return f"{order_id};{country};{ZONES[country]};{weight_g / 1000:.3f}"
