def discount_price(price: int, percent: int) -> int:
    """``price`` less ``price * percent // 100``."""
    if not 0 <= percent <= 100:
        raise ValueError("percent must be between 0 and 100")
    return price - price * percent // 100
