def pack_shipments(items: list[tuple[str, int]], max_weight: int) -> list[list[str]]:
    """The boxes, first fit: each item in the first open box with room, else a new box."""
    boxes: list[list[str]] = []
    loads: list[int] = []
    for name, weight in items:
        if weight < 1 or weight > max_weight:
            raise ValueError(f"{name} weighs {weight}")
        for index, load in enumerate(loads):
            if load + weight <= max_weight:
                boxes[index].append(name)
                loads[index] += weight
                break
        else:
            boxes.append([name])
            loads.append(weight)
    return boxes
