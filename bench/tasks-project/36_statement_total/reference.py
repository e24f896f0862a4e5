def statement_total(path):
    total = 0
    with open(path, encoding="utf-8") as statement:
        for line in statement:
            fields = line.strip().split(";")
            if fields[0] == "BUCH":
                total += int(fields[2])
    return total
