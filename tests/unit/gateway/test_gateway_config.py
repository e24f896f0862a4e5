"""The gateway config: validated with errors that name the file and key; example and schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from runtime.gateway.config import (
    ConfigError,
    RemoteModelConfig,
    VLLMModelConfig,
    format_bytes,
    load_config,
    parse_config,
    parse_size,
    schema_text,
)
from runtime.settings import Device
from tests.support import ROOT

EXAMPLE = ROOT / "examples" / "gateway.example.yaml"
SCHEMA = ROOT / "examples" / "gateway.schema.json"


def vllm(name: str = "m", **extra: Any) -> dict[str, Any]:
    return {"name": name, "backend": "vllm", "model": name, "footprint": "2GiB", **extra}


def test_the_example_config_validates() -> None:
    config = load_config(EXAMPLE)
    names = [m.name for m in config.models]
    assert "smollm2-135m-instruct" in names and config.budget.bytes == 7 * 2**30
    assert any(isinstance(m, RemoteModelConfig) for m in config.models)


def test_the_schema_file_is_up_to_date() -> None:
    assert SCHEMA.read_text("utf-8") == schema_text(), (
        "examples/gateway.schema.json is stale: run "
        "`python -m runtime.gateway.cli --print-schema > examples/gateway.schema.json`"
    )


def test_the_example_validates_against_the_json_schema() -> None:
    import jsonschema

    schema = json.loads(SCHEMA.read_text("utf-8"))
    jsonschema.Draft202012Validator(schema).validate(yaml.safe_load(EXAMPLE.read_text("utf-8")))


def test_sizes_read_units() -> None:
    assert parse_size("4GiB") == 4 * 2**30
    assert parse_size("512 MiB") == 512 * 2**20
    assert parse_size("1.5GB") == 1_500_000_000
    assert parse_size(1024) == 1024
    for bad in ("lots", -1, True, "4 parsecs"):
        with pytest.raises(ValueError):
            parse_size(bad)
    assert format_bytes(3 * 2**30 // 2) == "1.50 GiB"


def test_errors_name_the_file_and_the_key(tmp_path: Path) -> None:
    path = tmp_path / "gw.yaml"
    path.write_text(yaml.safe_dump({"models": [vllm("a"), vllm("coder", footprint="lots")]}))
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert str(path) in str(err.value) and "models[1] (coder).footprint" in str(err.value)


def test_unknown_keys_are_rejected() -> None:
    with pytest.raises(ConfigError, match=r"scheduling\.max_wiat_s"):
        parse_config({"scheduling": {"max_wiat_s": 1}, "models": [vllm()]}, origin="x.yaml")


def test_a_footprint_over_the_budget_is_rejected_at_load() -> None:
    raw = {"budget": {"bytes": "3GiB"}, "models": [vllm("a"), vllm("huge", footprint="4GiB")]}
    with pytest.raises(ConfigError, match=r"x\.yaml: models\[1\] \(huge\)\.footprint: .*budget"):
        parse_config(raw, origin="x.yaml")


def test_sleep_is_rejected_on_cpu() -> None:
    raw = {"device": "cpu", "models": [vllm("a", swap="sleep")]}
    with pytest.raises(ConfigError, match=r"models\[0\] \(a\)\.swap: .*CPU"):
        parse_config(raw, origin="x.yaml")
    # The resolved device counts too, when the file says auto.
    with pytest.raises(ConfigError, match="CPU"):
        parse_config({"models": [vllm("a", swap="sleep")]}, origin="x", device=Device.CPU)
    config = parse_config({"models": [vllm("a", swap="sleep")]}, origin="x", device=Device.CUDA)
    model = config.models[0]
    assert isinstance(model, VLLMModelConfig) and model.swap == "sleep"


def test_duplicate_names_and_an_empty_model_list_are_rejected() -> None:
    with pytest.raises(ConfigError, match="duplicate"):
        parse_config({"models": [vllm("a"), vllm("a")]}, origin="x")
    with pytest.raises(ConfigError, match="models"):
        parse_config({"models": []}, origin="x")
    with pytest.raises(ConfigError, match="mapping"):
        parse_config(["not", "a", "mapping"], origin="x")


def test_remote_models_need_no_footprint_and_are_not_counted() -> None:
    raw = {
        "budget": {"bytes": "1GiB"},
        "models": [{"name": "far", "backend": "remote", "url": "http://gpu-box:8000/v1"}],
    }
    config = parse_config(raw, origin="x")
    assert isinstance(config.models[0], RemoteModelConfig)


def test_an_unreadable_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("models: [unclosed")
    with pytest.raises(ConfigError, match="bad.yaml"):
        load_config(bad)
