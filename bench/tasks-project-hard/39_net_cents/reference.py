def net_cents(path):
    total = 0
    with open(path, encoding="utf-8") as export:
        for line in export:
            fields = line.rstrip("\r\n").split(";")
            if fields[0] != "BUCH":
                continue
            amount = fields[-1].strip()
            sign = -1 if amount.endswith("-") else 1
            euros, cents = amount.rstrip("-").replace(".", "").split(",")
            total += sign * (int(euros) * 100 + int(cents))
    return total
