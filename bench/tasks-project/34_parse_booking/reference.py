def parse_booking(line):
    fields = dict(part.split("=", 1) for part in line.strip().split(";")[1:])
    return {"room": fields["rm"], "nights": int(fields["nts"])}
