"""GGUF to safetensors conversion and the greedy smoke check, with transformers.

torch and transformers are imported lazily: they come with the ``cpu`` or ``gpu`` extra, and
the rest of edgeswarm must import without them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from runtime.catalog import ModelEntry


class ConversionError(RuntimeError):
    """A GGUF file could not be converted, or the result failed its check."""


def _import_stack() -> tuple[Any, Any]:
    # Hub access is never wanted here; make a stray lookup fail fast instead of hanging.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    try:
        import torch
        import transformers
    except ImportError as err:
        raise ConversionError(
            f"converting models needs torch, transformers and gguf ({err}); install edgeswarm "
            "with the cpu or gpu extra: pip install -e '.[cpu]'"
        ) from None
    return torch, transformers


def gguf_to_safetensors(gguf_path: Path, out_dir: Path, entry: ModelEntry) -> None:
    """De-quantize ``gguf_path`` and save weights, tokenizer and chat template to ``out_dir``."""
    torch, transformers = _import_stack()
    dtype = getattr(torch, entry.dtype)
    folder, name = str(gguf_path.parent), gguf_path.name
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(folder, gguf_file=name)
        model = transformers.AutoModelForCausalLM.from_pretrained(
            folder, gguf_file=name, dtype=dtype
        )
    except Exception as err:  # transformers raises many types for a bad file
        raise ConversionError(f"cannot load {gguf_path.name} as a GGUF model: {err}") from err
    # save_pretrained refuses GGUF-quantized models; the weights are already de-quantized.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(out_dir)
    tokenizer.save_pretrained(out_dir)
    if not (out_dir / "config.json").is_file():
        raise ConversionError(f"conversion of {entry.name} wrote no config.json")


def greedy_answer(model_dir: Path, prompt: str, max_new_tokens: int = 24) -> str:
    """Greedy chat answer from the converted model: the one-line smoke check."""
    torch, transformers = _import_stack()
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(model_dir))
    model = transformers.AutoModelForCausalLM.from_pretrained(str(model_dir))
    messages = [{"role": "user", "content": prompt}]
    encoded = tokenizer.apply_chat_template(
        messages, add_generation_prompt=True, return_tensors="pt", return_dict=True
    )
    input_ids = encoded["input_ids"]
    with torch.no_grad():
        output = model.generate(
            input_ids,
            attention_mask=encoded.get("attention_mask"),
            max_new_tokens=max_new_tokens,
            do_sample=False,
            pad_token_id=tokenizer.pad_token_id or tokenizer.eos_token_id,
        )
    answer: str = tokenizer.decode(output[0][input_ids.shape[1] :], skip_special_tokens=True)
    return answer.strip()


def verify(model_dir: Path, entry: ModelEntry) -> str:
    """Run the catalogue's check prompt; raise unless the answer contains the expected text."""
    answer = greedy_answer(model_dir, entry.check_prompt)
    if entry.check_expect.lower() not in answer.lower():
        raise ConversionError(
            f"{entry.name} failed its check: asked {entry.check_prompt!r}, expected an answer "
            f"containing {entry.check_expect!r}, got {answer!r}"
        )
    return answer
