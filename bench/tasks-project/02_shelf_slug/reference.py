from library.text import catalogue_slug


def shelf_slug(title: str) -> str:
    return catalogue_slug(title)
