"""Best guess from task.txt: a 40-hour week, written as +H:MM."""


def overtime_label(worked_minutes: int) -> str:
    diff = worked_minutes - 40 * 60
    sign = "-" if diff < 0 else "+"
    hours, minutes = divmod(abs(diff), 60)
    return f"{sign}{hours}:{minutes:02d}"
