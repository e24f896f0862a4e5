from solution import redact_secrets


def test_plain_secret_keys() -> None:
    assert redact_secrets("password=a passwd=b token=c secret=d") == (
        "password=*** passwd=*** token=*** secret=***"
    )


def test_keys_ignore_case() -> None:
    assert redact_secrets("PassWord=x TOKEN=y") == "PassWord=*** TOKEN=***"


def test_suffixes() -> None:
    assert redact_secrets("aws_secret_key=A1 session_token=t-9") == (
        "aws_secret_key=*** session_token=***"
    )
    assert redact_secrets("key=1 monkey=2 tokens=3 token_id=4") == (
        "key=1 monkey=2 tokens=3 token_id=4"
    )


def test_values_run_to_the_next_whitespace() -> None:
    assert redact_secrets("token=a:b,c=d next") == "token=*** next"
    assert redact_secrets("x=password user=password") == "x=password user=password"


def test_spacing_is_kept() -> None:
    assert redact_secrets("  a=1\tsecret=s3  \n") == "  a=1\tsecret=***  \n"


def test_empty_values_and_no_settings() -> None:
    assert redact_secrets("token= done") == "token=*** done"
    assert redact_secrets("nothing to hide here") == "nothing to hide here"
    assert redact_secrets("") == ""


def test_key_must_start_the_word() -> None:
    assert redact_secrets("=password=x") == "=password=x"
    assert redact_secrets("my-password=x") == "my-password=x"
