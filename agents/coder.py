"""The coder agent: writes solution.py as a plain fenced code block, never inside JSON.

Small models write code best the way they were trained: the task in, a ```python block out.
Wrapping code in a JSON string or a bounded list of lines cut 18 of 51 answers in an earlier
eval, because guided decoding enforces ``maxLength``/``maxItems`` as hard limits. So the
coder's own prompt is still a guided call, but its grammar (vLLM
``structured_outputs.grammar``, xgrammar EBNF) is exactly one fenced block of free text:
the code is never cut by a bound, the answer always parses into a :class:`CodeDraft`, and
``finish_reason`` still says whether it ended. The plain prompt is asked as one plain call of
the model (the baseline the swarm must beat), with no grammar; it only stops where a user
would stop reading (:data:`PLAIN_STOP`): its first fenced block is the code.

Every candidate of a round shares one prompt (the task verbatim, then any feedback), so vLLM's
prefix cache serves the shared part and continuous batching decodes the candidates together.
"""

from __future__ import annotations

import ast
import re
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel, Field

from agents.prompts import PromptLayout, layout, project_part
from agents.stream import stream_answer
from agents.structured import (
    InvalidOutputError,
    RawAnswer,
    StructuredResult,
    TruncatedOutputError,
)
from tools.check_runner import EntryPoint
from tools.pysource import parse

CODE_GRAMMAR = r"""root ::= "```python\n" body "```"
body ::= ( [^`] | "`" [^`] | "``" [^`] )*
"""
"""One fenced Python block of free text (no ``` inside), then the end of the answer."""

STOP_AT = ("\nprint(", "\n# Example", "\nif __name__", "\nassert ")
"""Top-level lines that only follow a finished module (example usage, ad-hoc tests): the
answer stops there. Measured (Qwen2.5-Coder-0.5B, greedy, is_palindrome): without these stops
the answer looped on example ``print`` lines to its 1024-token budget; with them it ends after
the function."""

PLAIN_STOP = ("\n```\n", "\nprint(", "\nif __name__", "\nassert ")
"""Where the plain prompt's answer stops: its first code block closed (what follows is prose a
user does not keep), or a top-level line that only follows a finished module (of
:data:`STOP_AT`, less the comment: vLLM takes 4 stop strings at most). Greedy decoding
is deterministic, so the kept code is the plain call's first block (its definitions) unless a
definition follows such a line. Measured in ``make eval`` (2026-12-03) without them: the
answer went on to its 1024-token budget beside 15 other streams, past the 180 s timeout."""

_QUOTES = ('"""', "'''")
_QUOTE_BEFORE = ("", "(", "=")
_QUOTE_AFTER = ("", "\n", "\n\n", "\n\n\n", "\r\n", "\r\n\r\n")

DOCSTRING_WORDS = tuple(
    f"{before}{quote}{after}"
    for quote in _QUOTES
    for before in _QUOTE_BEFORE
    for after in _QUOTE_AFTER
)
"""What a sampled candidate or a revision round's may not write (vLLM's ``bad_words``): the opening
of a docstring (or of any triple-quoted string). vLLM bans a word's last token after the rest of
it, with and without a leading space, so the list spells each merge a byte-level tokenizer has
for a triple quote that opens (after a space, a newline, ``(`` or ``=``, before whitespace):
every one of Qwen2.5-Coder's and SmolLM2's (tests/integration/test_docstring_ban.py). What
cannot open cannot close. The model still reads the statement's docstring; it only neither
copies it back nor writes its own, which were 44% of the characters of the candidates' code on
the 87 context-free tasks (session 31). A route around through smaller quote tokens (``""`` then
``""``) stays open: 2 of 138 revision answers took it, on a statement whose docstring is raw
(``r\"\"\"``). See ``Context.sample_docstrings``, ``revision_docstrings``."""

_SCAFFOLD = re.compile(
    r"^(?:#[ \t]*(?:check|test|example|verify|usage|demo)|print\(|assert\b|if __name__\b)",
    re.IGNORECASE | re.MULTILINE,
)
"""A top-level line that only follows a finished module: the comment that opens the model's
own self-checks or example calls (``# Check function to verify the correctness``, ``# Test
cases``, ``# Example usage``), or the calls themselves."""

_AFTER_CHECKS = re.compile(
    r"^(?:#[ \t]*(?:example|usage|demo|call|run)|print\(|if __name__\b|[A-Za-z_]\w*\()",
    re.IGNORECASE | re.MULTILINE,
)
"""A top-level line that only follows a module and its self-checks: example calls, or a call
of the check function (``check_palindrome()``)."""

_TOP_DEFINITION = re.compile(r"^(?:async[ \t]+def|def|class)[ \t]", re.MULTILINE)

CodeEnd = Callable[[str, str], int | None]
"""Where a streamed answer is done, given its text and the part begun for the model."""


def module_end(text: str, begun: str = "") -> int | None:
    """Where a streamed answer's module is finished (the index in ``text``), or None.

    That is the first top-level :data:`_SCAFFOLD` line after the answer's code block opened
    and a top-level function or class began in it; ``begun``: the part of the answer written
    for the model (a stub's opened block). The server's own stop strings are four at most
    (vLLM's ``VLLM_MAX_STOP_STRINGS``), so the swarm's candidates end here on the client
    (:func:`agents.stream.stream_answer`'s ``ends``), whatever the server. What follows such a
    line is the model's self-checks and example calls, which :func:`definitions` would drop or
    keep unused. Measured on the 87 context-free tasks' candidates (make eval, 2026-12-07):
    220 of 473 held such a line (134 of the 226 plain ones), and a task's longest first-round
    answer was 1,098 characters at the median, 791 up to it. In the 8,070 recorded
    candidates with such a line, no definition but a ``check_``/``test_`` one came after it.
    """
    return _first_after_definition(text, begun, _SCAFFOLD)


def checks_end(text: str, begun: str = "") -> int | None:
    """Where a streamed answer's module and its self-checks are done, or None.

    As :func:`module_end`, but the model's own check function and its asserts are kept
    (:data:`_AFTER_CHECKS`): a first round's answers end here (or sooner:
    :class:`graphs.coding.RoundTails`), because their asserts are the pool
    :mod:`agents.peer_tests` runs every candidate on. Replayed on the 843
    recorded choices of the context-free evals of 2026-12-06/07: the peer asserts of all the
    first round's candidates chose right 420 times, of its greedy plain answer alone 418, of
    none 406 (13_reverse_words and 26_transpose in most runs).
    """
    return _first_after_definition(text, begun, _AFTER_CHECKS)


def statement_end(text: str, begun: str = "") -> int | None:
    """Where the answer's code, cut at a line's end, last parses, at the module's end or after.

    For an answer that writes self-checks nobody waits for any more (the round's other
    candidates are done, :class:`graphs.coding.RoundTails`): what it wrote of them is kept as
    far as it is whole Python (a check function with the asserts written so far), so a cut
    never leaves code that does not parse. None while the module is not finished.
    """
    end = module_end(text, begun)
    if end is None:
        return None
    whole = begun + text
    start = _block_start(whole) + 1
    cut = len(whole)
    while (cut := whole.rfind("\n", 0, cut)) >= len(begun) + end:
        try:
            parse(whole[start:cut])
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            continue
        return cut + 1 - len(begun)
    return end


def _block_start(whole: str) -> int:
    """The newline that ends the answer's code block's opening fence, or -1 (none yet)."""
    opened = whole.find("```")
    return whole.find("\n", opened) if opened >= 0 else -1


def _first_after_definition(text: str, begun: str, markers: re.Pattern[str]) -> int | None:
    """The first ``markers`` line after a top-level definition in the answer's code block."""
    whole = begun + text
    code = _block_start(whole)
    first = _TOP_DEFINITION.search(whole, code) if code >= 0 else None
    if first is None:
        return None
    for found in markers.finditer(whole, first.end()):
        if found.start() > len(begun):
            return found.start() - len(begun)
    return None


CODE_TOKENS = 1024
"""The coder's completion budget unless the run sets one: room for a long module."""


class CodeDraft(BaseModel):
    """The coder's answer: the whole solution.py, unbounded free text."""

    code: str = Field(description="solution.py, complete.")


SYSTEM = """\
You are an expert Python programmer. Write a complete, correct Python module for the task:
imports first, then the requested function or class with exactly the name and parameters the
task gives, fully implemented. Use only the standard library. No input(), no printing, no
example usage, no tests. Reply with the code in one ```python block."""

FEEDBACK = """\

Your previous solution:
```python
{code}
```
When run, it failed these checks:
{failures}
Write the corrected complete module."""

HISTORY = """
Your earlier solutions, oldest first, and the checks each failed:

{history}
Write the corrected complete module."""
"""The unpruned baseline's revision (``Context.context_pruning=False``): every earlier attempt."""

ATTEMPT = """Attempt {number}:
```python
{code}
```
It failed:
{failures}
"""
"""One earlier attempt in the unpruned history."""


CoderPrompt = Literal["plain", "system", "stub"]
"""How a candidate is asked: ``plain`` as a user asks a chat model (the task, then "reply with
a code block"; no system prompt: the model's own template supplies its default; no grammar and
only :data:`PLAIN_STOP`, see :func:`ainvoke_plain_code`), ``system``
with the coder's rules above (:data:`SYSTEM`). A first round writes both: measured on the
eval (2026-12-03), each prompt's greedy answer solved tasks the other did not.

``stub``: the plain prompt with the answer begun for the model, its block opened on the
entry point's signature (:func:`stub_messages`), so it writes the body as it completes code.
Measured on the dev split (45 tasks, 4 samples each at 0.4): a stub sample is about as often
right as a plain one (24.75 tasks on average vs 25.25), but on other tasks (any of four: 30
vs 28), so samples of both reach more tasks than as many of either."""

PLAIN_ASK = "\n\nReply with the complete Python code in one ```python block."
"""What a user adds to the task when asking a chat model for code (the eval's plain arm)."""


def plain_messages(
    task: str, entry: EntryPoint | None = None, notes: str = "", project: str = ""
) -> list[BaseMessage]:
    """The task as a user would send it to a chat model: one user turn, no system prompt."""
    return [HumanMessage(task_text(task, entry, notes, project) + PLAIN_ASK)]


def stub_messages(
    task: str, entry: EntryPoint | None, project: str = "", imports: str = ""
) -> list[BaseMessage] | None:
    """The plain prompt with the answer begun (``stub``); None with no signature to begin.

    The answer opens a python block on the statement's own stub line (``def`` or ``class``
    of the entry point; the docstring is in the task above), else on the signature as the
    statement writes it (``mask(text, keep=4)``: defaults kept), else ``class Name:``. vLLM
    continues the final assistant message (``continue_final_message``);
    :func:`ainvoke_plain_code` puts the begun part back in front of what it writes.

    In a project, ``imports`` (:func:`tools.project_rank.import_lines`) open the begun answer:
    a small model handed a helper's source tends to copy it rather than call it. Measured on
    10 dev tasks of bench/tasks-project (greedy): the import-begun stub solved 01_patient_id,
    which neither the plain prompt nor the bare stub did, and lost 11_member_limit, which the
    bare stub solved.
    """
    head = stub_head(task, entry)
    if head is None:
        return None
    if imports:  # in a project: the answer begins by importing what the snippets define
        head = f"{imports.strip()}\n\n\n{head}"
    return [*plain_messages(task, entry, project=project), AIMessage(f"```python\n{head}")]


def stub_head(task: str, entry: EntryPoint | None) -> str | None:
    """The start of a solution a stub candidate is asked to go on from (:func:`stub_messages`)."""
    if entry is None:
        return None
    stub = re.search(rf"^(?:def|class) {re.escape(entry.name)}\b[^\n]*:[ \t]*$", task, re.M)
    if stub is not None:
        return stub[0] + "\n"
    if entry.kind == "class":
        return f"class {entry.name}:\n"
    for found in re.finditer(rf"\b{re.escape(entry.name)}\(", task):
        end = task.find(")", found.end())
        signature = task[found.start() : end + 1] if end > 0 else ""
        try:
            parse(f"def {signature}: pass")
        except SyntaxError:
            continue
        return f"def {signature}:\n"
    return None


def task_text(task: str, entry: EntryPoint | None, notes: str = "", project: str = "") -> str:
    """The coder's user turn: the task verbatim, what lookups found, and the name to define.

    ``project``: the project's snippets, put before the task (:func:`project_part`).
    """
    parts = [project_part(project) + task.strip()]
    if notes:
        parts.append(f"Facts found for this task:\n{notes}")
    if entry is not None and entry.name not in task:
        parts.append(f"Define `{entry.name}`.")
    return "\n\n".join(parts)


def coder_messages(
    task: str,
    entry: EntryPoint | None,
    *,
    notes: str = "",
    project: str = "",
    previous: str = "",
    failures: Sequence[str] = (),
    history: Sequence[str] = (),
    order: PromptLayout = "stable_first",
) -> list[BaseMessage]:
    """The coder's prompt; with ``previous`` and ``failures``, a revision from execution.

    ``history`` (the unpruned baseline only) replaces them with every earlier attempt.
    """
    user = task_text(task, entry, notes, project)
    if history:
        user += HISTORY.format(history="\n".join(history))
    elif previous and failures:
        user += FEEDBACK.format(code=previous.rstrip(), failures="\n".join(failures))
    return layout(SYSTEM, user, order)


_FENCE = re.compile(r"```[^\n`]*\n(.*?)(```|\Z)", re.DOTALL)


def fenced_block(text: str) -> tuple[str, bool] | None:
    """The first fenced block of a free answer and whether it was closed; None without one."""
    found = _FENCE.search(text)
    if found is None:
        return None
    return found[1].strip("\n") + "\n", bool(found[2])


def code_of(text: str) -> str:
    """The code of the first fenced block (the whole text when there is none)."""
    block = fenced_block(text)
    return block[0] if block else text.strip("\n") + "\n"


_DEFINITIONS = (
    ast.Import,
    ast.ImportFrom,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Assign,
    ast.AnnAssign,
)


def definitions(code: str) -> str:
    """The module's imports, functions, classes and constants, its text kept as written.

    Its other top-level statements are dropped: what a user keeps of an answer. The model
    likes to append example calls and its own self-checks (often with wrong expected values,
    or calling names it never defined) that would run, and fail, on import. Comments stay,
    except those in a dropped tail after the last definition (``# Example usage``).
    Code that does not parse is returned as it is, and so is code with nothing else to keep.
    """
    try:
        tree = parse(code)
    except SyntaxError:
        return code
    dropped = [node for node in tree.body if not isinstance(node, _DEFINITIONS)]
    if not dropped or len(dropped) == len(tree.body):
        return code
    kept_lines = {
        line
        for node in tree.body
        if isinstance(node, _DEFINITIONS)
        for line in (node.lineno, node.end_lineno or node.lineno)
    }
    if any(line in kept_lines for n in dropped for line in (n.lineno, n.end_lineno)):
        # `x = 1; print(x)`: one line holds both, so the statements are written anew
        kept: list[ast.stmt] = [node for node in tree.body if isinstance(node, _DEFINITIONS)]
        return ast.unparse(ast.Module(body=kept, type_ignores=[])) + "\n"
    lines = code.splitlines(keepends=True)
    last_kept = max(node.end_lineno or node.lineno for node in tree.body if node not in dropped)
    if any(node.lineno > last_kept for node in dropped):
        del lines[last_kept:]  # the dropped tail goes with the comments among it ("# Tests")
    for node in reversed(dropped):
        del lines[node.lineno - 1 : node.end_lineno or node.lineno]
    return "".join(lines).rstrip("\n") + "\n"


async def _answer(
    llm: BaseChatModel, messages: Sequence[BaseMessage], model: str, **request: Any
) -> RawAnswer:
    """One chat call's answer, streamed and cut only when it stalls (:mod:`agents.stream`)."""
    return await stream_answer(llm, messages, model, **request)


LOOP_WINDOW = 120
"""Characters at the end of an answer that, found earlier in it, show it repeats itself."""


def looping(text: str, window: int = LOOP_WINDOW) -> bool:
    """Whether a streaming answer has begun to repeat itself (a loop, not progress).

    Its last ``window`` characters occur, exactly, earlier in the answer: small models that
    loop repeat whole lines and blocks verbatim, while code that makes progress does not
    repeat 120 characters at once.
    """
    body = text.rstrip()
    if len(body) < 2 * window:
        return False
    return body[-window:] in body[:-window]


def partial_code(text: str, begun: str = "") -> str | None:
    """The code of a call cut before it ended, when its text already holds a whole block.

    ``begun``: the part of the answer written for the model (a stub candidate's opened
    block). A block that was closed is whole: what came after it is prose or examples the
    answer would have dropped anyway. None when no block was closed.
    """
    if begun and not text.lstrip().startswith("```"):
        text = begun + text
    block = fenced_block(text)
    if block is None or not block[1] or not block[0].strip():
        return None
    return definitions(block[0])


async def ainvoke_plain_code(
    llm: BaseChatModel,
    schema: type[CodeDraft],
    messages: Sequence[BaseMessage],
    model: str,
    *,
    ends_at: CodeEnd | None = None,
    bad_words: Sequence[str] = (),
) -> StructuredResult[CodeDraft]:
    """One plain call, exactly as a user makes it: its first code block's definitions.

    No grammar; it stops at :data:`PLAIN_STOP`. The answer may explain before its code; an
    answer cut at its budget after the block was closed still holds the whole code.
    ``ends_at`` (a swarm's candidate): the answer also ends there (:func:`module_end`,
    :func:`checks_end`); the eval's plain arm reads the whole answer, as a user's call does.
    ``bad_words`` (a swarm's candidate, :data:`DOCSTRING_WORDS`): what it may not write.

    Raises :class:`TruncatedOutputError` when the budget cut the block itself, and
    :class:`InvalidOutputError` when there is no fenced block.
    """
    start = time.monotonic()
    begun = messages[-1].content if messages and isinstance(messages[-1], AIMessage) else ""
    request: dict[str, Any] = {"stop": list(PLAIN_STOP)}
    body = ban_body(bad_words)
    if begun:  # a stub candidate: the model goes on from the begun answer
        body |= {"continue_final_message": True, "add_generation_prompt": False}
    if body:
        request["extra_body"] = body
    if ends_at is not None and isinstance(begun, str):
        request["ends"] = partial(_at, ends_at, begun=begun)
    answer = await _answer(llm, messages, model, **request)
    text, finish, cost = answer.text, answer.finish_reason, answer.cost()
    if isinstance(begun, str) and begun and not text.lstrip().startswith("```"):
        text = begun + text  # (a model that opens its own block instead is read as written)
    block = fenced_block(text)
    if block is not None and not block[1] and finish == "length":
        raise TruncatedOutputError(
            model, "the code block was cut off (finish_reason=length)", text, **cost
        )
    if block is None or not block[0].strip():
        raise InvalidOutputError(model, "the answer holds no fenced code block", text, **cost)
    return StructuredResult(
        value=schema(code=definitions(block[0])),
        model=model,
        seconds=time.monotonic() - start,
        finish_reason=finish or "stop",
        **cost,
    )


def _at(ends_at: CodeEnd, text: str, *, begun: str) -> int | None:
    """``ends_at`` of a streamed text (an :data:`agents.stream.Ending`)."""
    return ends_at(text, begun)


def grammar_body() -> dict[str, Any]:
    """The request field that makes vLLM decode exactly one fenced code block."""
    return {"structured_outputs": {"grammar": CODE_GRAMMAR}}


def ban_body(words: Sequence[str]) -> dict[str, Any]:
    """The request field that keeps vLLM from writing ``words`` (none: no field)."""
    return {"bad_words": list(words)} if words else {}


async def ainvoke_code(
    llm: BaseChatModel,
    schema: type[CodeDraft],
    messages: Sequence[BaseMessage],
    model: str,
    *,
    ends_at: CodeEnd = module_end,
    bad_words: Sequence[str] = (),
) -> StructuredResult[CodeDraft]:
    """One code-block call (see :data:`CODE_GRAMMAR`): a :class:`CodeDraft`, or raise.

    Its answer ends at :data:`STOP_AT` or at ``ends_at``; ``bad_words`` as
    :func:`ainvoke_plain_code`.

    Raises what :func:`agents.structured.ainvoke_structured` raises: cut off
    (:class:`TruncatedOutputError`), no fenced block (:class:`InvalidOutputError`), or what
    the transport says about a request that got no answer.
    """
    start = time.monotonic()
    answer = await _answer(
        llm,
        messages,
        model,
        extra_body=grammar_body() | ban_body(bad_words),
        stop=list(STOP_AT),
        ends=partial(_at, ends_at, begun=""),
    )
    text, finish, cost = answer.text, answer.finish_reason, answer.cost()
    if finish == "length":
        raise TruncatedOutputError(
            model, "the code was cut off (finish_reason=length)", text, **cost
        )
    if not text.startswith("```") or not code_of(text).strip():
        raise InvalidOutputError(model, "the answer holds no fenced code block", text, **cost)
    return StructuredResult(
        value=schema(code=definitions(code_of(text))),
        model=model,
        seconds=time.monotonic() - start,
        finish_reason=finish or "stop",
        **cost,
    )
