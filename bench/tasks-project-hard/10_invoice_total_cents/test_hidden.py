from solution import invoice_total_cents


def test_one_full_hour() -> None:
    assert invoice_total_cents([("associate", 60)]) == 27500


def test_rounded_up_to_tenth_of_an_hour() -> None:
    # 61 minutes -> 66 billable -> 1.1 h of a partner
    assert invoice_total_cents([("partner", 61)]) == 46200


def test_short_entries_bill_half_an_hour() -> None:
    # 5 and 25 minutes -> 30 minutes each
    assert invoice_total_cents([("trainee", 5), ("paralegal", 25)]) == 7000 + 5750


def test_mixed_entries() -> None:
    entries = [("partner", 45), ("associate", 130), ("paralegal", 31)]
    # 48 min partner = 33600; 132 min associate = 60500; 36 min paralegal = 6900
    assert invoice_total_cents(entries) == 33600 + 60500 + 6900


def test_exact_units_are_not_raised() -> None:
    assert invoice_total_cents([("trainee", 42), ("trainee", 90)]) == 9800 + 21000


def test_no_entries() -> None:
    assert invoice_total_cents([]) == 0
