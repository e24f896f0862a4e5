"""How standard cartons are stacked on pallets."""

CARTONS_PER_LAYER = 9
LAYERS_PER_PALLET = 5
CARTON_KG = 14.5
PALLET_TARE_KG = 25.0
MAX_PALLET_KG = 800.0


def pallet_weight_kg(cartons: int) -> float:
    """Return the gross weight of a pallet loaded with the given cartons."""
    return PALLET_TARE_KG + cartons * CARTON_KG


def is_too_heavy(cartons: int) -> bool:
    """Whether a pallet with the given cartons is over the racking limit."""
    return pallet_weight_kg(cartons) > MAX_PALLET_KG
