import re

TOKEN = re.compile(r"\{\{|\}\}|\{([A-Za-z0-9_]+)\}")


def render_template(template: str, values: dict[str, object]) -> str:
    """The template with {name} replaced by its value and doubled braces made single."""

    def replace(match: re.Match[str]) -> str:
        name = match[1]
        if name is None:
            return match[0][0]
        return str(values[name]) if name in values else match[0]

    return TOKEN.sub(replace, template)
