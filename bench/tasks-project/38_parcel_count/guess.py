import re


def parcel_count(path, country):
    count = 0
    with open(path, encoding="utf-8") as manifest:
        for line in manifest:
            if "return" in line.lower():
                continue
            fields = [field.strip() for field in re.split(r"[,;|\t]", line)]
            if country in fields:
                count += 1
    return count
