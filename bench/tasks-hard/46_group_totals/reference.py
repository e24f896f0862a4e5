from typing import Any


def group_totals(records: list[dict[str, Any]], key: str, field: str) -> dict[Any, Any]:
    """Return the sum of field per value of key, in first-seen order."""
    totals: dict[Any, Any] = {}
    for record in records:
        if key not in record:
            continue
        group = record[key]
        totals[group] = totals.get(group, 0) + record.get(field, 0)
    return totals
