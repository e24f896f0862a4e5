from solution import region_customers

DB = "shop.db"


def test_voided_customer_is_left_out() -> None:
    assert region_customers(DB, "NTH") == ["Ada Lovelace", "Emil Sarr", "Hana Ito"]


def test_region_with_one_active_customer() -> None:
    assert region_customers(DB, "STH") == ["Brook Harlan"]


def test_region_without_voided_customers() -> None:
    assert region_customers(DB, "WST") == ["Dana Whit", "Gus Moreno"]


def test_unknown_region_gives_empty_list() -> None:
    assert region_customers(DB, "EST") == []


def test_list_of_str() -> None:
    result = region_customers(DB, "WST")
    assert isinstance(result, list)
    assert all(isinstance(n, str) for n in result)
