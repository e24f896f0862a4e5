"""Best guess from task.txt: 8 cartons a layer, 5 layers (40 a pallet), fits the example."""

import math


def pallets_needed(cartons: int) -> int:
    return math.ceil(cartons / (8 * 5))
