"""GGUF to safetensors and the greedy smoke check (:mod:`runtime.convert`), without torch.

torch and transformers come with the ``cpu`` or ``gpu`` extra and take seconds to import, so
they are faked here at the one place the module gets them (``_import_stack``): what is checked
is the module's own logic, i.e. what it asks of them and what it makes of their answers. Without
them, converting is a clear :class:`ConversionError` naming the extra; a file they cannot read,
or a conversion that writes no ``config.json``, is one too; the check passes only when the
greedy answer holds the catalogue's expected text. ``test_provision.py`` pulls through these.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from runtime import convert
from runtime.catalog import ModelEntry, load_catalog
from runtime.convert import ConversionError, gguf_to_safetensors, greedy_answer, verify


@pytest.fixture
def entry() -> ModelEntry:
    return (
        load_catalog()
        .model[0]
        .model_copy(update={"name": "tiny", "dtype": "float16", "check_expect": "Paris"})
    )


class FakeModel:
    """What transformers' model gives: a config, a quantizer, save and generate."""

    def __init__(self, writes_config: bool = True) -> None:
        self.config = SimpleNamespace(quantization_config={"quant_method": "gguf"})
        self.hf_quantizer: object = "gguf quantizer"
        self.writes_config = writes_config
        self.saved_to: Path | None = None
        self.generated: dict[str, Any] = {}

    def save_pretrained(self, out_dir: Path) -> None:
        # the real one refuses a GGUF-quantized model: the module must have cleared it
        assert self.hf_quantizer is None and not hasattr(self.config, "quantization_config")
        self.saved_to = out_dir
        if self.writes_config:
            (out_dir / "config.json").write_text("{}")

    def generate(self, input_ids: Any, **options: Any) -> list[list[int]]:
        self.generated = options
        return [[*input_ids.tokens, 7, 8]]


class FakeTokenizer:
    pad_token_id: int | None = None
    eos_token_id = 2

    def __init__(self, answer: str = " The capital is Paris. ") -> None:
        self.answer = answer
        self.saved_to: Path | None = None
        self.decoded: list[int] = []

    def save_pretrained(self, out_dir: Path) -> None:
        self.saved_to = out_dir

    def apply_chat_template(self, messages: list[dict[str, str]], **options: Any) -> Any:
        assert options["add_generation_prompt"] and options["return_dict"]
        tokens = [1] * len(messages[0]["content"].split())
        ids = SimpleNamespace(tokens=tokens, shape=(1, len(tokens)))
        return {"input_ids": ids, "attention_mask": "mask"}

    def decode(self, ids: list[int], *, skip_special_tokens: bool) -> str:
        assert skip_special_tokens
        self.decoded = list(ids)
        return self.answer


class FakeStack:
    """torch and transformers as the module uses them, noting what they were asked."""

    def __init__(self, model: FakeModel, tokenizer: FakeTokenizer, fails: bool = False) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.fails = fails
        self.loads: list[tuple[str, dict[str, Any]]] = []
        self.torch = SimpleNamespace(
            float16="torch.float16", bfloat16="torch.bfloat16", no_grad=contextlib.nullcontext
        )
        self.transformers = SimpleNamespace(
            AutoTokenizer=SimpleNamespace(from_pretrained=self._tokenizer),
            AutoModelForCausalLM=SimpleNamespace(from_pretrained=self._model),
        )

    def _tokenizer(self, folder: str, **options: Any) -> FakeTokenizer:
        self.loads.append((f"tokenizer {folder}", options))
        return self.tokenizer

    def _model(self, folder: str, **options: Any) -> FakeModel:
        self.loads.append((f"model {folder}", options))
        if self.fails:
            raise OSError("not a GGUF file: bad magic")
        return self.model

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(convert, "_import_stack", lambda: (self.torch, self.transformers))


def test_without_torch_converting_names_the_extra_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch raises ImportError
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        monkeypatch.setenv(name, "unset by the test")  # restored (absent or not) after it
        monkeypatch.delenv(name)
    with pytest.raises(ConversionError, match=r"install edgeswarm with the cpu or gpu extra"):
        convert._import_stack()
    # the hub is never asked, not even by a stray lookup
    assert os.environ["HF_HUB_OFFLINE"] == "1" and os.environ["TRANSFORMERS_OFFLINE"] == "1"


def test_a_gguf_file_is_converted_dequantized_in_the_entry_s_dtype(
    tmp_path: Path, entry: ModelEntry, monkeypatch: pytest.MonkeyPatch
) -> None:
    stack = FakeStack(FakeModel(), FakeTokenizer())
    stack.install(monkeypatch)
    out = tmp_path / "out"
    out.mkdir()
    gguf_to_safetensors(tmp_path / "in" / "tiny.Q8_0.gguf", out, entry)
    folder = str(tmp_path / "in")
    assert stack.loads == [
        (f"tokenizer {folder}", {"gguf_file": "tiny.Q8_0.gguf"}),
        (f"model {folder}", {"gguf_file": "tiny.Q8_0.gguf", "dtype": "torch.float16"}),
    ]
    assert stack.model.saved_to == out and stack.tokenizer.saved_to == out


def test_a_file_transformers_cannot_read_or_a_conversion_without_config_fails_clearly(
    tmp_path: Path, entry: ModelEntry, monkeypatch: pytest.MonkeyPatch
) -> None:
    FakeStack(FakeModel(), FakeTokenizer(), fails=True).install(monkeypatch)
    with pytest.raises(
        ConversionError, match="cannot load tiny.gguf as a GGUF model: not a GGUF file: bad magic"
    ):
        gguf_to_safetensors(tmp_path / "tiny.gguf", tmp_path, entry)
    FakeStack(FakeModel(writes_config=False), FakeTokenizer()).install(monkeypatch)
    with pytest.raises(ConversionError, match="conversion of tiny wrote no config.json"):
        gguf_to_safetensors(tmp_path / "tiny.gguf", tmp_path, entry)


def test_the_smoke_check_is_a_greedy_answer_of_only_the_new_tokens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model, tokenizer = FakeModel(), FakeTokenizer()
    FakeStack(model, tokenizer).install(monkeypatch)
    answer = greedy_answer(tmp_path, "What is the capital of France?")
    assert answer == "The capital is Paris."  # stripped
    assert tokenizer.decoded == [7, 8]  # the prompt's six tokens left out
    assert model.generated == {
        "attention_mask": "mask",
        "max_new_tokens": 24,
        "do_sample": False,
        "pad_token_id": 2,  # no pad token: the end-of-sequence one
    }


@pytest.fixture
def answers(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The greedy answers the check gets, in order."""
    given: list[str] = []

    def answer(model_dir: Path, prompt: str, max_new_tokens: int = 24) -> str:
        return given.pop(0)

    monkeypatch.setattr(convert, "greedy_answer", answer)
    yield given


def test_the_check_passes_only_with_the_expected_text_in_any_case(
    tmp_path: Path, entry: ModelEntry, answers: list[str]
) -> None:
    answers += ["It is PARIS.", "It is London."]
    assert verify(tmp_path, entry) == "It is PARIS."
    with pytest.raises(ConversionError, match="tiny failed its check") as err:
        verify(tmp_path, entry)
    assert "'Paris'" in str(err.value) and "'It is London.'" in str(err.value)
    assert repr(entry.check_prompt) in str(err.value)
