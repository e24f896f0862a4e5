def manifest_line(order_id, country, weight_g):
    zones = {}
    with open("config/zones.csv", encoding="utf-8") as table:
        next(table)
        for row in table:
            if row.strip():
                code, zone = row.strip().split(";")
                zones[code] = zone
    if country not in zones:
        raise ValueError(f"no carrier zone for {country!r}")
    kg = f"{weight_g // 1000:02d}.{weight_g % 1000:03d}"
    return f"SHP^{order_id:07d}^Z{zones[country]}^{country}^{kg}"
