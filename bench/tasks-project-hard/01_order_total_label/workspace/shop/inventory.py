"""Stock reservations for open carts."""

from dataclasses import dataclass, field

RESERVATION_MINUTES = 20


@dataclass
class Stock:
    """Units on hand and units held by open carts, per article number."""

    on_hand: dict[str, int] = field(default_factory=dict)
    reserved: dict[str, int] = field(default_factory=dict)

    def available(self, article: str) -> int:
        """Return how many units of an article can still be put in a cart."""
        return self.on_hand.get(article, 0) - self.reserved.get(article, 0)

    def reserve(self, article: str, quantity: int) -> bool:
        """Hold units for a cart; return False if not enough are available."""
        if quantity <= 0 or self.available(article) < quantity:
            return False
        self.reserved[article] = self.reserved.get(article, 0) + quantity
        return True

    def release(self, article: str, quantity: int) -> None:
        """Give held units back, e.g. when a cart expires."""
        held = self.reserved.get(article, 0)
        self.reserved[article] = max(0, held - quantity)
