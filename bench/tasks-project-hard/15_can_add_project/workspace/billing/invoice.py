"""Invoice lines for a monthly subscription."""

VAT_RATE = 0.21


def invoice_lines(plan_name: str, price_cents: int, months: int = 1) -> list[tuple[str, int]]:
    """Return (description, amount_cents) lines for a subscription invoice."""
    net = price_cents * months
    vat = round(net * VAT_RATE)
    return [
        (f"Subscription {plan_name} x{months}", net),
        ("VAT", vat),
        ("Total", net + vat),
    ]
