from solution import tally_votes


def test_clear_winner() -> None:
    ballots = ["Kim", "Lou", "Kim", "Max", "kim"]
    assert tally_votes(ballots, ["Lou", "Kim", "Max"]) == ("Kim", 0)


def test_case_and_outer_spaces_are_ignored() -> None:
    assert tally_votes(["  MAX ", "max", "Lou"], ["Lou", "Max"]) == ("Max", 0)


def test_inner_spaces_matter() -> None:
    ballots = ["Ada Lovelace", "Ada  Lovelace", "AdaLovelace"]
    assert tally_votes(ballots, ["Ada Lovelace"]) == ("Ada Lovelace", 2)


def test_tie_goes_to_the_first_listed() -> None:
    assert tally_votes(["b", "a", "b", "a"], ["A", "B"]) == ("A", 0)
    assert tally_votes(["a", "b", "c"], ["C", "B", "A"]) == ("C", 0)


def test_spoiled_ballots_are_counted() -> None:
    assert tally_votes(["x", "", "Lou", "  "], ["Lou"]) == ("Lou", 3)


def test_no_valid_votes() -> None:
    assert tally_votes([], ["Lou"]) == (None, 0)
    assert tally_votes(["zed", "?"], ["Lou", "Kim"]) == (None, 2)
    assert tally_votes(["Lou"], []) == (None, 1)
