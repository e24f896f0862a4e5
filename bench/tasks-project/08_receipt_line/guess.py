"""Best guess from task.txt: a 40-column line, name left, price right."""


def receipt_line(name: str, cents: int) -> str:
    price = f"{cents / 100:.2f}"
    return f"{name:<{40 - len(price)}}{price}"
