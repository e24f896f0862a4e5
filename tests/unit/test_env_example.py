from pathlib import Path

import pytest

from runtime.settings import Settings, load_settings

EXAMPLE = Path(__file__).resolve().parents[2] / "edgeswarm.env.example"


def test_example_file_names_every_setting_and_validates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    lines = [line.strip() for line in EXAMPLE.read_text().splitlines()]
    settings_lines = [line.removeprefix("# ") for line in lines if line.startswith("# EDGESWARM_")]
    keys = {line.split("=", 1)[0].removeprefix("EDGESWARM_").lower() for line in settings_lines}
    assert keys == set(Settings.model_fields)
    active = tmp_path / "edgeswarm.env"
    active.write_text("\n".join(settings_lines) + "\n")
    settings = load_settings(env_file=active)
    assert settings.vllm_extra_args == ["--seed", "0"]
    assert settings.models_dir == Path("~/.cache/edgeswarm/models").expanduser()
