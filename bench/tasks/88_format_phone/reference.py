def format_phone(text: str) -> str:
    """Format the 10 digits found in text as (AAA) BBB-CCCC."""
    digits = [char for char in text if char in "0123456789"]
    if len(digits) != 10:
        raise ValueError(f"expected 10 digits, found {len(digits)}")
    number = "".join(digits)
    return f"({number[:3]}) {number[3:6]}-{number[6:]}"
