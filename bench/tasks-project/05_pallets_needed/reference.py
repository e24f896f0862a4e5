from warehouse.packing import CARTONS_PER_LAYER, LAYERS_PER_PALLET


def pallets_needed(cartons: int) -> int:
    per_pallet = CARTONS_PER_LAYER * LAYERS_PER_PALLET
    return -(-cartons // per_pallet)
