def parse_reading(line):
    fields = [part.strip() for part in line.strip().split(",")]
    sensor, value = fields[-2], fields[-1]
    return (sensor, float(value))
