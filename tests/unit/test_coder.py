"""The coder's answer as a user keeps it: the code block's definitions, its text as written."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGenerationChunk

from agents.coder import (
    PLAIN_ASK,
    CodeDraft,
    ainvoke_plain_code,
    checks_end,
    code_of,
    definitions,
    fenced_block,
    module_end,
    plain_messages,
    statement_end,
    stub_head,
    stub_messages,
)
from agents.structured import InvalidOutputError, TruncatedOutputError
from tools.check_runner import EntryPoint

ANSWER = '''import math

# the area of a circle
def area(r):
    """Area."""
    return math.pi * r * r  # pi r squared


PI2 = 2 * math.pi
assert area(1) == 3  # the model's own, wrong, self-check
print(area(2))
if __name__ == "__main__":
    print(area(3))
# Output: 12.566...
'''


def test_definitions_drop_the_calls_and_keep_the_text() -> None:
    kept = definitions(ANSWER)
    assert "assert" not in kept and "print" not in kept and "__main__" not in kept
    assert "# pi r squared" in kept and '"""Area."""' in kept and "PI2 = 2 * math.pi" in kept
    assert kept.startswith("import math\n\n# the area of a circle\ndef area(r):")
    assert kept.endswith("PI2 = 2 * math.pi\n")  # the tail's comments went with its calls
    namespace: dict[str, object] = {}
    exec(kept, namespace)  # imports cleanly now
    # nothing to drop, nothing to keep, or no parse: as it is
    for code in ("def f():\n    return 1\n", "print(1)\n", "def f(:\n"):
        assert definitions(code) == code
    # one line holding a kept and a dropped statement: written anew without the call
    assert definitions("x = 1; print(x)\ndef f():\n    return x\n") == (
        "x = 1\n\ndef f():\n    return x\n"
    )


def test_the_plain_prompt_is_the_task_as_one_user_turn() -> None:
    assert plain_messages(" Write add(a, b). ") == [HumanMessage("Write add(a, b)." + PLAIN_ASK)]
    named = plain_messages("Add two numbers.", EntryPoint("add", "function", ("a", "b")))
    assert named[0].content == "Add two numbers.\n\nDefine `add`." + PLAIN_ASK
    assert code_of("```python\nx = 1\n```") == "x = 1\n"


class StreamingFake(GenericFakeChatModel):
    """langchain's fake chat model, streamed as a server streams: the finish reason last.

    (The fake itself drops ``response_metadata`` when it streams; the coder's calls stream.)
    """

    finish: str = "stop"

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        yield from super()._stream(messages, stop, run_manager, **kwargs)
        last = AIMessageChunk(content="", response_metadata={"finish_reason": self.finish})
        yield ChatGenerationChunk(message=last)


def _chat(text: str, finish: str) -> GenericFakeChatModel:
    return StreamingFake(messages=iter([AIMessage(text)]), finish=finish)


def test_fenced_block_finds_the_first_block_and_whether_it_closed() -> None:
    assert fenced_block("Here:\n```python\nx = 1\n```\nand\n```\ny = 2\n```") == ("x = 1\n", True)
    assert fenced_block("```py\nx = 1\n") == ("x = 1\n", False)
    assert fenced_block("no code here") is None


async def test_a_plain_answer_keeps_its_first_block_as_a_user_would() -> None:
    text = "Sure! Here it is:\n```python\n" + ANSWER + "```\nThis works because..."
    result = await ainvoke_plain_code(_chat(text, "stop"), CodeDraft, plain_messages("t"), "m")
    assert result.value.code == definitions(ANSWER) and "print(" not in result.value.code
    # the budget ran out in the explanation after the block: the code is whole
    late = await ainvoke_plain_code(_chat(text, "length"), CodeDraft, plain_messages("t"), "m")
    assert late.value.code == result.value.code and late.finish_reason == "length"


@pytest.mark.parametrize(
    ("text", "finish", "error"),
    [
        ("```python\ndef f():\n    return", "length", TruncatedOutputError),
        ("I cannot write that.", "stop", InvalidOutputError),
        ("```python\n\n```", "stop", InvalidOutputError),
    ],
)
async def test_a_plain_answer_without_whole_code_is_refused(
    text: str, finish: str, error: type[Exception]
) -> None:
    with pytest.raises(error):
        await ainvoke_plain_code(_chat(text, finish), CodeDraft, plain_messages("t"), "m")


def test_a_stub_answer_is_begun_on_the_entry_point_s_signature() -> None:
    stub = 'def pad(text: str, width: int = 4) -> str:\n    """Pad.\n\n    >>> pad("a")\n    """'
    entry = EntryPoint("pad", "function", ("text", "width"))
    assert stub_head(stub, entry) == "def pad(text: str, width: int = 4) -> str:\n"
    # prose: the signature as written, defaults kept; a class: its name
    prose = "Write `pad(text, width=4)` that pads."
    assert stub_head(prose, entry) == "def pad(text, width=4):\n"
    assert stub_head("Write a class `Box(size)`.", EntryPoint("Box", "class")) == "class Box:\n"
    assert stub_head("Write something.", None) is None
    messages = stub_messages(prose, entry)
    assert messages is not None and messages[:-1] == plain_messages(prose, entry)
    assert messages[-1] == AIMessage("```python\ndef pad(text, width=4):\n")


async def test_a_stub_answer_goes_on_from_what_was_begun() -> None:
    messages = stub_messages("Write `twice(x)`.", EntryPoint("twice", "function", ("x",)))
    assert messages is not None
    body = "    return 2 * x\n\nprint(twice(2))"
    result = await ainvoke_plain_code(_chat(body, "stop"), CodeDraft, messages, "m")
    assert result.value.code == "def twice(x):\n    return 2 * x\n"
    # a model that opens its own block anyway is read as written
    again = "```python\ndef twice(x):\n    return x + x\n```"
    result = await ainvoke_plain_code(_chat(again, "stop"), CodeDraft, messages, "m")
    assert result.value.code == "def twice(x):\n    return x + x\n"


@pytest.mark.parametrize(
    ("text", "begun", "marker"),
    [
        # the model's self-checks, its example calls, a top-level assert: the module ended
        ("```python\ndef f():\n    return 1\n\n# Check function\ndef check_f():", "", "#"),
        ("```python\nimport re\n\nclass A:\n    x = 1\n# Example usage:\n", "", "#"),
        ("```python\ndef f():\n    return 1\nprint(f())", "", "print"),
        ("```python\ndef f():\n    return 1\nassert f() == 1", "", "assert"),
        ("```python\ndef f():\n    return 1\n# Check", "", "#"),
        ("    return 1\n\n# Test cases\n", "```python\ndef f():\n", "#"),
        # none yet: no block, no definition before it, only indented or in the prose
        ("# Example\nHere is the code:\n```python\ndef f():\n", "", None),
        ("```python\n# Test helpers\nimport re\ndef f():\n    # check the input\n", "", None),
        ("```python\ndef f():\n    print(1)\n    # Test it\n", "", None),
        ("```python\ndef f():\n    return 1\n# Ch", "", None),
    ],
)
def test_a_module_ends_at_the_first_top_level_line_that_follows_a_finished_one(
    text: str, begun: str, marker: str | None
) -> None:
    end = module_end(text, begun)
    if marker is None:
        assert end is None
    else:
        assert end == text.index(f"\n{marker}") + 1


async def test_a_candidate_ends_where_its_module_does_and_the_plain_arm_reads_on() -> None:
    text = "```python\ndef f():\n    return 1\n\n\n# Check function\ndef check_f():\n    pass\n```"
    chat = _chat(text, "stop")
    whole = await ainvoke_plain_code(chat, CodeDraft, plain_messages("t"), "m")
    assert "check_f" in whole.value.code
    chat = _chat(text, "stop")
    ended = await ainvoke_plain_code(chat, CodeDraft, plain_messages("t"), "m", ends_at=module_end)
    assert ended.value.code == "def f():\n    return 1\n" and ended.finish_reason == "stop"


def test_a_first_round_answer_keeps_its_self_checks_and_ends_at_their_call() -> None:
    """Their asserts are the peer tests: the answer ends at the check's call or an example."""
    head = "```python\ndef f():\n    return 1\n\n# Check function\ndef check_f():\n"
    text = head + "    assert f() == 1\n\n# Call the check function\ncheck_f()\n"
    assert checks_end(text) == text.index("# Call")
    called = head + "    assert f() == 1\n\ncheck_f()"
    assert checks_end(called) == called.rindex("check_f()")
    printed = head + "    assert f() == 1\nprint(f())"
    assert checks_end(printed) == printed.index("print")
    assert checks_end(head + "    assert f() == 1\n") is None
    assert module_end(text) == text.index("# Check")


def test_self_checks_nobody_waits_for_end_where_what_was_written_of_them_parses() -> None:
    """Their asserts written so far are kept, never a cut line or an open bracket."""
    head = "```python\ndef f():\n    return 1\n\n# Check function\ndef check_f():\n"
    one = head + "    assert f() == 1\n"
    assert statement_end(one + "    assert f(") == len(one)
    assert statement_end(one + "    cases = [\n        (1, 2),\n") == len(one)
    assert statement_end(one) == len(one)
    # a check function with no body yet is left out; a module not finished: not yet
    assert statement_end(head) == head.index("def check_f")
    assert statement_end("```python\ndef f():\n    return (\n") is None
    # a stub's begun part counts, and the index is in the streamed text
    begun = "```python\ndef f():\n"
    text = "    return 1\n\n# Test\nassert f() == 1\nassert f("
    assert statement_end(text, begun) == text.rindex("assert f(")
