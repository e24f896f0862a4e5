import re


def parse_booking(line):
    fields = {}
    for part in re.split(r"[,;|\t]", line.strip()):
        if "=" in part:
            key, value = part.split("=", 1)
            fields[key.strip().lower()] = value.strip()
    return {"room": fields["room"], "nights": int(fields["nights"])}
