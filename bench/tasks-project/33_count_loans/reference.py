def count_loans(path):
    with open(path, encoding="utf-8") as log:
        return sum(1 for line in log if line.startswith("CKO|"))
