def parcel_count(path, country):
    count = 0
    with open(path, encoding="utf-8") as manifest:
        for line in manifest:
            fields = line.strip().split("^")
            if fields[0] == "SHP" and fields[2] == country:
                count += 1
    return count
