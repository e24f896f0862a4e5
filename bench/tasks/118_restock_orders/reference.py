def restock_orders(stock: dict[str, int], minimum: dict[str, int], batch: int) -> dict[str, int]:
    """Units to order per product below its minimum, in whole batches, by product name."""
    if batch < 1:
        raise ValueError("batch must be at least 1")
    orders = {}
    for product in sorted(minimum):
        shortfall = minimum[product] - stock.get(product, 0)
        if shortfall > 0:
            batches = -(-shortfall // batch)
            orders[product] = batches * batch
    return orders
