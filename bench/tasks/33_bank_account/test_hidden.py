from collections.abc import Callable

from solution import BankAccount


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_starting_balance() -> None:
    assert BankAccount().get_balance() == 0
    assert BankAccount(100).get_balance() == 100


def test_deposit_returns_new_balance() -> None:
    account = BankAccount(100)
    assert account.deposit(50) == 150
    assert account.get_balance() == 150


def test_withdraw_returns_new_balance() -> None:
    account = BankAccount(100)
    assert account.withdraw(30) == 70
    assert account.withdraw(70) == 0
    assert account.get_balance() == 0


def test_non_positive_amounts_raise() -> None:
    account = BankAccount(10)
    for amount in [0, -5]:
        assert raises(ValueError, account.deposit, amount)
        assert raises(ValueError, account.withdraw, amount)
    assert account.get_balance() == 10


def test_overdraw_raises_and_keeps_balance() -> None:
    account = BankAccount(20)
    assert raises(ValueError, account.withdraw, 21)
    assert account.get_balance() == 20
