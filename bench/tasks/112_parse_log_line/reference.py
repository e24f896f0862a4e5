import re

LINE = re.compile(
    r"(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}) \[(DEBUG|INFO|WARN|ERROR)\] ([A-Za-z0-9_.]+):(.*)",
    re.ASCII,
)


def parse_log_line(line: str) -> dict[str, str] | None:
    """The fields of one log line, or None when the line has another form."""
    match = LINE.fullmatch(line.strip())
    if match is None:
        return None
    date, time, level, component, message = match.groups()
    return {
        "date": date,
        "time": time,
        "level": level,
        "component": component,
        "message": message.strip(),
    }
