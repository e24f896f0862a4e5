"""Messages shown on the pay machine screen."""

LANGUAGES = ("de", "fr", "en")
MESSAGES = {
    "de": "Bitte Ticket einstecken",
    "fr": "Veuillez insérer le ticket",
    "en": "Please insert your ticket",
}


def welcome(language: str) -> str:
    """Return the welcome message in a language (German when unknown)."""
    return MESSAGES.get(language, MESSAGES["de"])
