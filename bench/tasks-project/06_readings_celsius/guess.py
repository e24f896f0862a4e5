"""Best guess from task.txt: a 12-bit probe, 0.1 degree per count."""


def readings_celsius(raw_values: list[int]) -> list[float]:
    return [round(raw / 10, 2) for raw in raw_values]
