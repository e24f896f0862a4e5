"""Best guess from task.txt: copy the format of the example, mod-26 check letter."""


def patient_id(number: int) -> str:
    digits = f"{number:06d}"
    total = sum(weight * int(d) for weight, d in enumerate(reversed(digits), start=2))
    return f"PX-{digits}-{chr(ord('A') + total % 26)}"
