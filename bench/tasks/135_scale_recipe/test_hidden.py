from collections.abc import Callable

from solution import scale_recipe


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_whole_numbers() -> None:
    assert scale_recipe(["2 eggs", "10 g butter"], 2) == ["4 eggs", "20 g butter"]


def test_decimals_are_trimmed() -> None:
    assert scale_recipe(["1.5 kg potatoes"], 2) == ["3 kg potatoes"]
    assert scale_recipe(["1.1 cups sugar"], 0.5) == ["0.55 cups sugar"]
    assert scale_recipe(["3 l stock"], 0.1) == ["0.3 l stock"]


def test_fractions() -> None:
    assert scale_recipe(["3/4 cup cream"], 2) == ["1.5 cup cream"]
    assert scale_recipe(["2/3 tsp cumin"], 1) == ["0.67 tsp cumin"]


def test_rest_of_line_is_kept() -> None:
    assert scale_recipe(["2  large  onions, diced"], 3) == ["6  large  onions, diced"]


def test_lines_without_a_quantity() -> None:
    lines = ["salt to taste", "a pinch of salt", "2x olives", "1/0 odd", "3", ""]
    assert scale_recipe(lines, 2) == lines


def test_order_is_kept() -> None:
    assert scale_recipe(["1 a", "b c", "4 d"], 0.25) == ["0.25 a", "b c", "1 d"]


def test_factor_must_be_positive() -> None:
    assert raises(ValueError, scale_recipe, ["1 egg"], 0)
    assert raises(ValueError, scale_recipe, ["1 egg"], -2)
