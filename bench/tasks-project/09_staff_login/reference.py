from staff.accounts import make_login


def staff_login(first: str, last: str) -> str:
    return make_login(first, last)
