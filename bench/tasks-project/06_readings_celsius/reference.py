from gateway.probes import decode_temp


def readings_celsius(raw_values: list[int]) -> list[float]:
    return [decode_temp(raw) for raw in raw_values]
