def confirmed_nights(path, room):
    total = 0
    with open(path, encoding="utf-8") as export:
        for line in export:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = dict(part.split("=", 1) for part in line.split())
            if fields.get("room") == room and fields.get("st") == "CNF":
                total += int(fields["nts"])
    return total
