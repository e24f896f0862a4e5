from till.receipt import fmt_money, receipt_row


def receipt_line(name: str, cents: int) -> str:
    return receipt_row(name, fmt_money(cents))
