def cancelled_count(path):
    with open(path, encoding="utf-8") as agenda:
        return sum(1 for line in agenda if line.strip().split("|")[-1] == "STO")
