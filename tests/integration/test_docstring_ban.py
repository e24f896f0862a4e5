"""The candidates' docstring ban (agents.coder.DOCSTRING_WORDS) on the real tokenizers and server.

vLLM turns each bad word into token sequences with the served model's own tokenizer; these
tests check, on the catalogue models `make models` pulled, that every token that can open a
triple-quoted string is banned, that the list stays within vLLM's limit, and that the real
server takes the request and writes the function without a docstring.
"""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from vllm import SamplingParams, envs
from vllm.tokenizers.registry import get_tokenizer

from agents.coder import (
    DOCSTRING_WORDS,
    CodeDraft,
    ainvoke_plain_code,
    module_end,
    stub_messages,
)
from agents.examples import entry_point_of
from agents.structured import chat_model
from graphs.roles import CODER_DEFAULT, SMALL_DEFAULT
from runtime.vllm import VLLMServer

OPENS = re.compile(r"""^\s*[(=]?(\"\"\"|''')\s*$""")
"""A token that opens a triple-quoted string: after a space, a newline, ``(`` or ``=``."""


@pytest.mark.parametrize("model", [CODER_DEFAULT, SMALL_DEFAULT])
def test_every_token_that_opens_a_triple_quote_is_banned(models_dir: Path, model: str) -> None:
    tokenizer = get_tokenizer(str(models_dir / model))
    params = SamplingParams(bad_words=list(DOCSTRING_WORDS))
    params.update_from_tokenizer(tokenizer)  # raises past vLLM's limit on bad words
    sequences = params._bad_words_token_ids or []
    assert 0 < len(sequences) <= envs.VLLM_MAX_NUM_BAD_WORDS
    banned = {ids[0] for ids in sequences if len(ids) == 1}
    opening = {
        token for token in tokenizer.get_vocab().values() if OPENS.match(tokenizer.decode([token]))
    }
    assert opening, "the tokenizer has no triple-quote token at all?"
    assert {tokenizer.decode([t]) for t in opening - banned} == set()


TASK = '''Write the function below.

def shout(text):
    """Return text in capitals, with one "!" after it."""
'''


async def test_the_real_server_takes_the_ban_and_the_stub_writes_no_docstring(
    coder_server: VLLMServer,
) -> None:
    messages = stub_messages(TASK, entry_point_of(TASK))
    assert messages is not None
    async with httpx.AsyncClient(timeout=300) as http:
        llm = chat_model(
            base_url=coder_server.base_url,
            model=coder_server.spec.served_name,
            max_tokens=256,
            http_client=http,
        )
        answer = await ainvoke_plain_code(
            llm,
            CodeDraft,
            messages,
            coder_server.spec.served_name,
            ends_at=module_end,
            bad_words=DOCSTRING_WORDS,
        )
    code = answer.value.code
    assert code.startswith("def shout(text):") and '"""' not in code and "'''" not in code
    namespace: dict[str, object] = {}
    exec(compile(code, "solution.py", "exec"), namespace)
    assert callable(namespace["shout"])
