from pathlib import Path
from typing import Any

import pytest

from runtime.settings import Device, LogFormat, SettingsError, load_settings


def test_defaults(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    settings = load_settings()
    assert settings.model == "qwen2.5-coder-0.5b-instruct"
    assert settings.device is Device.AUTO
    assert settings.base_url is None
    assert settings.models_dir.name == "models"


def test_precedence_explicit_over_env_over_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    env_file = tmp_path / "edgeswarm.env"
    env_file.write_text("EDGESWARM_MODEL=from-file\nEDGESWARM_MAX_MODEL_LEN=1024\n")
    assert load_settings().model == "from-file"
    assert load_settings().max_model_len == 1024
    monkeypatch.setenv("EDGESWARM_MODEL", "from-env")
    assert load_settings().model == "from-env"
    assert load_settings(model="explicit").model == "explicit"
    # an explicit None (an unset CLI flag) falls through to the environment
    assert load_settings(model=None).model == "from-env"


def test_named_env_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    env_file = tmp_path / "other.env"
    env_file.write_text("EDGESWARM_LOG_FORMAT=json\n")
    assert load_settings(env_file=env_file).log_format is LogFormat.JSON
    monkeypatch.setenv("EDGESWARM_ENV_FILE", str(env_file))
    assert load_settings().log_format is LogFormat.JSON


def test_invalid_value_names_key_and_env_var(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("EDGESWARM_MAX_MODEL_LEN", "lots")
    with pytest.raises(SettingsError, match="max_model_len.*EDGESWARM_MAX_MODEL_LEN"):
        load_settings()


@pytest.mark.parametrize("where", ["file", "env", "explicit"])
def test_an_invalid_value_says_where_it_came_from(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, where: str
) -> None:
    monkeypatch.chdir(tmp_path)
    settings_file = tmp_path / "my.env"
    settings_file.write_text("EDGESWARM_LOG_LEVEL=info\n")
    explicit: dict[str, Any] = {}
    if where == "file":
        settings_file.write_text("EDGESWARM_LOG_LEVEL=info\nedgeswarm_max_model_len=lots\n")
        expected = f"max_model_len (from EDGESWARM_MAX_MODEL_LEN in {settings_file})"
    elif where == "env":
        monkeypatch.setenv("EDGESWARM_MAX_MODEL_LEN", "lots")
        expected = "max_model_len (from the environment variable EDGESWARM_MAX_MODEL_LEN)"
    else:
        explicit["max_model_len"] = "lots"
        expected = "max_model_len (given on the command line)"
    with pytest.raises(SettingsError) as raised:
        load_settings(env_file=settings_file, **explicit)
    assert expected in str(raised.value) and "valid integer" in str(raised.value)


def test_unknown_key_in_file_is_an_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "edgeswarm.env").write_text("EDGESWARM_MODLE=typo\n")
    with pytest.raises(SettingsError, match="EDGESWARM_MODLE in edgeswarm.env: not a setting"):
        load_settings()


def test_missing_env_file(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="does not exist"):
        load_settings(env_file=tmp_path / "nope.env")


def test_bad_log_level(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SettingsError, match="log_level"):
        load_settings(log_level="loud")
