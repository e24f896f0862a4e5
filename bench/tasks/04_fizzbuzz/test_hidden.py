from solution import fizzbuzz


def test_first_five() -> None:
    assert fizzbuzz(5) == ["1", "2", "Fizz", "4", "Buzz"]


def test_first_fifteen() -> None:
    assert fizzbuzz(15) == [
        "1",
        "2",
        "Fizz",
        "4",
        "Buzz",
        "Fizz",
        "7",
        "8",
        "Fizz",
        "Buzz",
        "11",
        "Fizz",
        "13",
        "14",
        "FizzBuzz",
    ]


def test_one() -> None:
    assert fizzbuzz(1) == ["1"]


def test_length_and_last_item() -> None:
    result = fizzbuzz(30)
    assert len(result) == 30
    assert result[-1] == "FizzBuzz"


def test_less_than_one() -> None:
    assert fizzbuzz(0) == []
    assert fizzbuzz(-3) == []
