"""HR tools of Holzbau Brunner AG."""
