def ticket_id(branch, year, number):
    return f"{branch}/{year}/{number:05d}"
