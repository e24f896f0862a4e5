def merge_contacts(contacts: list[dict[str, str]]) -> list[dict[str, str]]:
    """One contact per normalised e-mail: the first name, the first phone that is not empty."""
    merged: dict[str, dict[str, str]] = {}
    for contact in contacts:
        email = contact["email"].strip().lower()
        if email not in merged:
            merged[email] = {"name": contact["name"], "email": email, "phone": contact["phone"]}
        elif not merged[email]["phone"]:
            merged[email]["phone"] = contact["phone"]
    return list(merged.values())
