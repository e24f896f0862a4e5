"""Conversion of raw sensor counts to physical units.

The temperature probes are 12-bit ADC channels: 0.0625 degrees per count, starting at
-40 degrees. Two raw values are not measurements: 0 (probe wire broken) and 4095 (probe
shorted). They are logged as they come and must be filtered before any statistic.
"""

ADC_STEP_C = 0.0625
ADC_OFFSET_C = -40.0
FAULT_CODES = frozenset({0, 4095})
HUMIDITY_FULL_SCALE = 1023


def is_fault(raw: int) -> bool:
    """Return True if a raw temperature count is a probe fault, not a measurement."""
    return raw in FAULT_CODES


def adc_to_celsius(raw: int) -> float:
    """Convert a raw temperature count to degrees Celsius.

    Args:
        raw: The 12-bit count read from the probe.

    Returns:
        The temperature in degrees Celsius.
    """
    return raw * ADC_STEP_C + ADC_OFFSET_C


def humidity_percent(raw: int) -> float:
    """Convert a raw humidity count (10 bit) to relative humidity in percent."""
    return 100.0 * raw / HUMIDITY_FULL_SCALE
