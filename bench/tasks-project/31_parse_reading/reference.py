def parse_reading(line):
    _, _, value, sensor = line.strip().split(";")
    return (sensor, float(value))
