import re

PLACEHOLDER = re.compile(r"\{\{\s*(\w+)\s*\}\}")


def fill_template(template: str, values: dict[str, object]) -> str:
    """Return template with each {{name}} placeholder replaced by str(values[name])."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        return str(values[name]) if name in values else match.group(0)

    return PLACEHOLDER.sub(replace, template)
