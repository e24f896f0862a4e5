class BankAccount:
    """A bank account that never goes below zero."""

    def __init__(self, balance: float = 0) -> None:
        self._balance = balance

    def deposit(self, amount: float) -> float:
        """Add a positive amount and return the new balance."""
        if amount <= 0:
            raise ValueError("amount must be positive")
        self._balance += amount
        return self._balance

    def withdraw(self, amount: float) -> float:
        """Take a positive amount, at most the balance, and return the new balance."""
        if amount <= 0:
            raise ValueError("amount must be positive")
        if amount > self._balance:
            raise ValueError("insufficient funds")
        self._balance -= amount
        return self._balance

    def get_balance(self) -> float:
        """Return the current balance."""
        return self._balance
