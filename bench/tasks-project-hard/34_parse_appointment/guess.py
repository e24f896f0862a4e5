def parse_appointment(record):
    fields = record.split()
    if len(fields) < 5:
        raise ValueError(f"bad record {record!r}")
    day, start, patient, doctor, minutes = fields[:5]
    day = day.replace("-", "")
    start = start.replace(":", "")
    return {
        "date": f"{day[:4]}-{day[4:6]}-{day[6:8]}",
        "time": f"{start[:2]}:{start[2:4]}",
        "patient": patient,
        "doctor": doctor,
        "minutes": int(minutes),
    }
