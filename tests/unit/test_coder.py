"""The coder's answer as a user keeps it: the code block's definitions, its text as written."""

from __future__ import annotations

from langchain_core.messages import HumanMessage

from agents.coder import PLAIN_ASK, code_of, definitions, plain_messages
from agents.examples import EntryPoint

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
