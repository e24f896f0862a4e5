"""Reference solution: VAT of a net amount from the tax settings."""

import configparser


def vat_cents(net_cents: int, category: str) -> int:
    """Return the VAT in cents for a net amount of a category."""
    config = configparser.ConfigParser()
    config.read("settings/tax.ini")
    rate = float(config["vat"][category])
    return round(net_cents * rate / 100)
