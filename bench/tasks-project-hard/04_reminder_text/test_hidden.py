from datetime import datetime

from solution import reminder_text


def test_afternoon_appointment() -> None:
    assert reminder_text("P-1031", datetime(2025, 3, 4, 14, 30)) == (
        "Praxis Dr. Haller: Ihr Termin ist am Di 04.03.2025, 14.30 Uhr. "
        "Absagen bitte bis 24 h vorher unter 052 555 12 12. Ref. P-1031"
    )


def test_morning_keeps_leading_zero() -> None:
    text = reminder_text("P-1044", datetime(2025, 1, 6, 8, 5))
    assert "am Mo 06.01.2025, 08.05 Uhr." in text
    assert text.endswith("Ref. P-1044")


def test_weekday_names() -> None:
    assert "am Do 12.06.2025, 16.00 Uhr." in reminder_text("X", datetime(2025, 6, 12, 16, 0))
    assert "am Sa 14.06.2025, 09.15 Uhr." in reminder_text("X", datetime(2025, 6, 14, 9, 15))


def test_whole_message_fits_one_sms() -> None:
    text = reminder_text("P-1102", datetime(2024, 12, 31, 10, 45))
    assert text.startswith("Praxis Dr. Haller: Ihr Termin ist am Di 31.12.2024, 10.45 Uhr.")
    assert len(text) <= 160


def test_exact_text_for_sunday() -> None:
    assert reminder_text("A7", datetime(2025, 6, 15, 11, 0)) == (
        "Praxis Dr. Haller: Ihr Termin ist am So 15.06.2025, 11.00 Uhr. "
        "Absagen bitte bis 24 h vorher unter 052 555 12 12. Ref. A7"
    )
