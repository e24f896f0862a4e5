from solution import order_total_label


def test_single_item_rounds_down_to_five_rappen() -> None:
    # 10.00 net + VAT = 10.81 -> 10.80
    assert order_total_label([(10.0, 1)]) == "CHF 10.80"


def test_rounds_up_to_five_rappen() -> None:
    # 1.081 -> 1.10
    assert order_total_label([(1.0, 1)]) == "CHF 1.10"


def test_several_items_with_thousands_separator() -> None:
    # net 2134.50, gross 2307.3945 -> 2307.40
    assert order_total_label([(999.0, 2), (45.5, 3)]) == "CHF 2'307.40"


def test_quantities_multiply() -> None:
    # net 22.40, gross 24.2144 -> 24.20
    assert order_total_label([(3.2, 7)]) == "CHF 24.20"


def test_millions() -> None:
    assert order_total_label([(12500.0, 100)]) == "CHF 1'351'250.00"


def test_empty_order() -> None:
    assert order_total_label([]) == "CHF 0.00"
