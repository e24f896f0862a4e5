def total_minutes(path, employee):
    total = 0
    with open(path, encoding="utf-8") as export:
        for line in export:
            fields = line.strip().split("|")
            if len(fields) == 5 and fields[2] == employee:
                total += int(fields[4])
    return total
