PAIRS = {")": "(", "]": "[", "}": "{"}


def is_valid_parentheses(text: str) -> bool:
    """Return True if the brackets in text are balanced and properly nested."""
    stack: list[str] = []
    for char in text:
        if char in "([{":
            stack.append(char)
        elif char in PAIRS and (not stack or stack.pop() != PAIRS[char]):
            return False
    return not stack
