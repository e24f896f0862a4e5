import csv


def parse_appointment(record):
    record = record.rstrip("\r\n")
    with open("staff/doctors.csv", encoding="utf-8", newline="") as staff:
        names = {row["code"]: row["name"] for row in csv.DictReader(staff)}
    code = record[22:25]
    if code not in names:
        raise ValueError(f"unknown doctor code {code!r}")
    day, start = record[0:8], record[8:12]
    return {
        "date": f"{day[:4]}-{day[4:6]}-{day[6:8]}",
        "time": f"{start[:2]}:{start[2:]}",
        "patient": record[12:22].strip(),
        "doctor": names[code],
        "minutes": int(record[25:28]),
    }
