from clinic.ids import make_patient_id


def patient_id(number: int) -> str:
    return make_patient_id(number)
