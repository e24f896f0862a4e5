REQUIRED = ("name", "port", "workers", "mode")
OPTIONAL = ("debug",)


def is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def valid(key: str, value: object, config: dict) -> bool:
    """Whether value is a valid value for key in config."""
    if key == "name":
        return isinstance(value, str) and value != ""
    if key == "port":
        return is_int(value) and 1 <= value <= 65535
    if key == "workers":
        return is_int(value) and value >= 1
    if key == "mode":
        return value in ("dev", "staging", "prod")
    return isinstance(value, bool) and not (value and config.get("mode") == "prod")


def check_config(config: dict) -> list[str]:
    """The problems of a config record, missing keys first, then bad values, then unknown."""
    problems = [f"missing: {key}" for key in REQUIRED if key not in config]
    problems += [
        f"invalid: {key}"
        for key in REQUIRED + OPTIONAL
        if key in config and not valid(key, config[key], config)
    ]
    known = set(REQUIRED + OPTIONAL)
    problems += [f"unknown: {key}" for key in sorted(config) if key not in known]
    return problems
