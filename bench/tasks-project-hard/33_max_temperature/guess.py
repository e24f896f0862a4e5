import re


def max_temperature(path, device):
    best = None
    with open(path, encoding="utf-8") as log:
        for line in log:
            if device not in line or "error" in line.lower():
                continue
            match = re.search(r"temp(?:erature)?[=:]\s*(-?\d+(?:\.\d+)?)", line)
            if match:
                value = float(match.group(1))
                if best is None or value > best:
                    best = value
    return best
