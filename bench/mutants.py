"""Mutation check of the gateway's tests: which known bugs would they catch?

``python bench/mutants.py`` copies the working tree (tracked and untracked files that git does
not ignore, less ``bench/results/``) into a temporary directory once per mutant, applies the
mutant there (exact source replacements in ``runtime/gateway/*.py``; each must match exactly
once, or the row says so and nothing runs), and runs against the copy, with
``PYTHONPATH=<copy>`` and the copy as the working directory:

1. the gateway's state machine (``tests/unit/gateway/test_gateway_stateful.py``), derandomized,
   ``--examples`` examples (default 1000) of up to 30 steps, without shrinking (the first
   failing example is enough to say "caught"): pytest with the ``mutants`` hypothesis
   profile, which this module registers when pytest loads it as a plugin
   (``-p bench.mutants``, with ``EDGESWARM_MUTANT_EXAMPLES`` set);
2. that file's replays of earlier counterexamples (not the ``xfail`` ones of known bugs);
3. ``tests/unit/gateway/test_gateway_hardening.py`` (fake servers as real processes); a test
   that fails is run twice more and counts only if it fails every time (those tests time
   real processes on a shared machine; one that passes again is noted as flaky);
4. the gateway's other tests of the same code (:data:`UNIT`: scheduling, eviction, the live
   gateway over fake processes), failures run again as in 3.

The working tree itself is never changed. It runs the unmutated copy first: a row for a mutant
means something only if that baseline passes. Then it prints one row per mutant as it
finishes and a markdown table at the end: the mutant, what caught it (the machine's failing
invariant and the example it failed in, the replays and hardening tests that failed) and the
time it took. Each part has a time limit (``--timeout``, default 240 s for the machine, 120 s
per pytest run); a part that runs out says so (not counted as caught).

``--only NAME`` (repeatable) runs some mutants; ``--list`` lists them.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GATEWAY = "runtime/gateway"
STATEFUL = "tests/unit/gateway/test_gateway_stateful.py"
HARDENING = "tests/unit/gateway/test_gateway_hardening.py"
UNIT = (
    "tests/unit/gateway/test_gateway_scheduling.py",
    "tests/unit/gateway/test_gateway_eviction.py",
    "tests/unit/gateway/test_gateway_live.py",
    "tests/unit/gateway/test_ledger.py",
    "tests/unit/gateway/test_slot.py",
    "tests/unit/gateway/test_residency.py",
    "tests/unit/gateway/test_swap.py",
    "tests/unit/gateway/test_proxy.py",
)
"""The gateway's other tests of what the mutants break: the policies and eviction as pure
functions, each module's own tests (ledger, slot, residency, swap, proxy) and the gateway
over fake backends as real processes."""
SKIP = ("bench/results/",)
RERUNS = 2
"""Times a failing hardening test runs again; it counts as caught only if it always fails."""
PROFILE = "mutants"
EXAMPLES_ENV = "EDGESWARM_MUTANT_EXAMPLES"
"""Set in a mutant's pytest run: the examples of the ``mutants`` profile."""


@dataclass(frozen=True)
class Mutant:
    """A known bug, as exact source replacements in ``runtime/gateway/<file>``."""

    name: str
    what: str
    edits: tuple[tuple[str, str, str], ...]
    """(file in ``runtime/gateway``, old text, new text); each old text must occur once."""


MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "ledger-check-removed",
        "MemoryLedger.reserve and grow never refuse",
        (
            ("ledger.py", "        if not self.fits(nbytes, host=host):", "        if False:"),
            (
                "ledger.py",
                "        if self.device_used - held + nbytes > self.device_budget:",
                "        if False:",
            ),
        ),
    ),
    Mutant(
        "sleeping-remains-freed",
        "a slept server's remains count as freed (_sleeping_remains returns 0)",
        (
            (
                "residency.py",
                "        return min(kept, self.ledger.device.get(slot.name, slot.footprint))",
                "        return 0",
            ),
        ),
    ),
    Mutant(
        "no-eviction",
        "the grouped policy picks no victims",
        (
            (
                "policies.py",
                "        return evict_for(target.as_resident(loaded=True), resident, view.budget, "
                "now)",
                "        return ()",
            ),
        ),
    ),
    Mutant(
        "never-swaps",
        "the grouped policy loads a model only when nothing must make room",
        (("policies.py", "        if delay <= 0:\n", "        if delay <= 0 and not victims:\n"),),
    ),
    Mutant(
        "watchdog-off",
        "SwapScheduler._watch looks at no model (neither dead nor hung ones)",
        (
            (
                "swap.py",
                "                    if slot.state not in (ModelState.READY, ModelState.SLEEPING):",
                "                    if True:",
            ),
        ),
    ),
    Mutant(
        "hung-detection-off",
        "the watchdog never finds a live server hung",
        (
            (
                "swap.py",
                "        if silent < limit or slot.progress.silent_for() < limit:",
                "        if True:",
            ),
        ),
    ),
    Mutant(
        "release-before-stop",
        "Residency.stop releases the bytes before the server stopped",
        (
            (
                "residency.py",
                "                await backend.stop()\n"
                "            freed = self.ledger.release(slot.name) + self.ledger.release("
                "slot.name, host=True)\n",
                "                pass\n"
                "            freed = self.ledger.release(slot.name) + self.ledger.release("
                "slot.name, host=True)\n"
                "            if isinstance(backend, ProcessBackend):\n"
                "                await backend.stop()\n",
            ),
        ),
    ),
    Mutant(
        "wake-release-before-reserve",
        "the old _wake: release the remains, then reserve the footprint (issue 41, finding 3)",
        (
            (
                "residency.py",
                "            self.ledger.grow(slot.name, slot.footprint)",
                "            self.ledger.release(slot.name)\n"
                "            self.ledger.reserve(slot.name, slot.footprint)",
            ),
        ),
    ),
    Mutant(
        "admission-without-policy",
        "every request is admitted directly, ready model or not",
        (
            (
                "swap.py",
                "        direct = not slot.managed or self.policy.admits_directly(slot.view(now))",
                "        direct = True",
            ),
        ),
    ),
    Mutant(
        "drain-cap-zero",
        "a drain cuts in-flight requests at once, whatever drain_timeout_s says",
        (("residency.py", "        cap = self.drain_timeout_s\n", "        cap = 0.0\n"),),
    ),
    Mutant(
        "no-drain",
        "victims are slept or stopped without draining",
        (
            (
                "residency.py",
                "        await asyncio.gather(*(self.drain(victim, reason) for victim in victims))",
                "        pass",
            ),
        ),
    ),
    Mutant(
        "unload-no-wake",
        "an unload does not wake the coordinator (the second state-machine bug)",
        (
            (
                "swap.py",
                "        finally:\n            self._wake.set()\n",
                "        finally:\n            pass\n",
            ),
        ),
    ),
    Mutant(
        "unload-not-shielded",
        "a cancelled unload is cut half-way (the first state-machine bug)",
        (("swap.py", "        await asyncio.shield(task)\n", "        await task\n"),),
    ),
    Mutant(
        "measured-victims-free-all",
        "making room counts a sleep-mode victim as freeing all (the third; since the residency "
        "asks the policy, the one rule every swap uses)",
        (
            (
                "policies.py",
                "            held_after=self.sleep_device_expected "
                "if self.state is ModelState.READY else 0,",
                "            held_after=0,",
            ),
        ),
    ),
    Mutant(
        "no-starvation-bound",
        "a busy model holds the device as long as it is busy (hold_s infinite)",
        (
            (
                "policies.py",
                "    return min(view.max_wait_s, max(view.linger_s, target.reload_s))",
                "    return math.inf",
            ),
        ),
    ),
    Mutant(
        "queue-unbounded",
        "max_queue is never enforced (no 429)",
        (
            (
                "swap.py",
                "        if self.queued_total() >= self.scheduling.max_queue:",
                "        if False:",
            ),
        ),
    ),
    Mutant(
        "load-failure-keeps-waiters",
        "a failed load leaves its queued requests waiting",
        (
            (
                "swap.py",
                "        except ModelUnavailableError as err:\n"
                "            self._fail_waiters(slot, err)",
                "        except ModelUnavailableError:\n            pass",
            ),
        ),
    ),
    Mutant(
        "no-start-cooldown",
        "a model that failed to start is started again at once (start_retry_s ignored)",
        (("swap.py", "        if left > 0:", "        if False:"),),
    ),
    Mutant(
        "failed-bytes-never-reaped",
        "a failed server's remains keep their bytes (failed_holding finds none)",
        (
            (
                "residency.py",
                "        return [\n            s\n            for s in self.slots.values()\n"
                "            if s.state is ModelState.FAILED",
                "        return [\n            s\n            for s in self.slots.values()\n"
                "            if False",
            ),
        ),
    ),
    Mutant(
        "broken-connection-not-failed",
        "a request whose server died does not mark the model failed (the watchdog still does)",
        (
            (
                "swap.py",
                "                if slot.state is ModelState.READY:\n"
                "                    self._mark_failed(slot, detail)",
                "                if False:\n                    self._mark_failed(slot, detail)",
            ),
        ),
    ),
    Mutant(
        "wake-failure-releases-early",
        "a failed wake releases the remains before _start stopped the server (state-machine bug 4)",
        (
            (
                "residency.py",
                '            _log.warning("wake_failed", model=slot.name, error=str(err))\n'
                "            return False",
                '            _log.warning("wake_failed", model=slot.name, error=str(err))\n'
                "            self.ledger.release(slot.name)\n            return False",
            ),
        ),
    ),
    Mutant(
        "sleep-calls-unwatched",
        "a sleep or wake call waits its client timeout on a frozen server (bug 5)",
        (
            (
                "residency.py",
                "            while watch is not None and not task.done():",
                "            while False:",
            ),
        ),
    ),
    Mutant(
        "sleep-victims-never-stopped",
        "eviction counts a ready sleep-mode victim only as slept, never stopped (bug 6)",
        (
            (
                "eviction.py",
                "    if found is None and any(model.held_after for model in others):",
                "    if False:",
            ),
        ),
    ),
    Mutant(
        "stopped-process-waited",
        "a SIGSTOPped server being stopped sits out its TERM grace (found by make soak)",
        (
            (
                "residency.py",
                '                if backend.run_state() in ("T", "t"):',
                "                if False:",
            ),
        ),
    ),
    Mutant(
        "ensure-ready-without-mutex",
        "a swap does not take the device mutex",
        (
            (
                "swap.py",
                "        async with self._device_mutex:\n"
                "            if slot.state is ModelState.READY:\n                return",
                "        async with contextlib.nullcontext():\n"
                "            if slot.state is ModelState.READY:\n                return",
            ),
        ),
    ),
)


@dataclass
class Result:
    """What caught one mutant."""

    name: str
    applied: str = ""
    """Empty when every edit applied once; else why not."""
    machine: str = ""
    """The machine's failing invariant (or error) and example; empty when it passed."""
    message: str = ""
    """The machine's failure message."""
    replays: list[str] = field(default_factory=list)
    hardening: list[str] = field(default_factory=list)
    unit: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def caught(self) -> bool:
        """Whether any part failed."""
        return bool(self.machine or self.replays or self.hardening or self.unit)

    def caught_by(self, *, baseline: bool = False) -> str:
        """The table's cell: what failed, or why nothing ran."""
        if self.applied:
            return f"not applied: {self.applied}"
        parts = []
        if self.machine:
            parts.append(f"machine: {self.machine}")
        if self.replays:
            parts.append("replays: " + ", ".join(f"`{name}`" for name in self.replays))
        if self.hardening:
            parts.append("hardening: " + ", ".join(f"`{name}`" for name in self.hardening))
        if self.unit:
            parts.append("other tests: " + ", ".join(f"`{name}`" for name in self.unit))
        text = "; ".join(parts) or ("passes" if baseline else "**not caught**")
        return f"{text} ({'; '.join(self.notes)})" if self.notes else text


def working_tree() -> list[str]:
    """The working tree's files: tracked and untracked, not ignored, still on disk."""
    listing = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.decode()
    names = sorted({n for n in listing.split("\0") if n and not n.startswith(SKIP)})
    return [n for n in names if (ROOT / n).is_file()]


def copy_tree(files: list[str], dest: Path) -> None:
    """Copy ``files`` of the working tree into ``dest``."""
    for name in files:
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)


def apply(mutant: Mutant, copy: Path) -> str:
    """Apply ``mutant`` in ``copy``; "" when done, else why not (the copy is then unusable)."""
    for name, old, new in mutant.edits:
        path = copy / GATEWAY / name
        text = path.read_text()
        count = text.count(old)
        if count != 1:
            return f"{name}: the text to replace occurs {count} times, not once"
        path.write_text(text.replace(old, new))
    return ""


def _env(copy: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTEST_ADDOPTS", None)
    return env


def run_machine(copy: Path, examples: int, timeout_s: float) -> tuple[str, str, str]:
    """The state machine against ``copy``: (what failed, its message, a note).

    What failed (the deepest function of the test module in the traceback: the invariant, or
    ``teardown``'s checks) is empty when it passed; the note says when it ran out of time.
    """
    command = [
        *(sys.executable, "-m", "pytest", "-q", "-x", "--tb=short", "-p", "no:cacheprovider"),
        *("-p", "bench.mutants", f"--hypothesis-profile={PROFILE}"),
        *(STATEFUL, "-k", "generated_faults"),
    ]
    env = {**_env(copy), EXAMPLES_ENV: str(examples)}
    try:
        done = subprocess.run(
            command, cwd=copy, env=env, capture_output=True, text=True, timeout=timeout_s
        )
    except subprocess.TimeoutExpired:
        return "", "", f"the machine ran out of its {timeout_s:.0f} s"
    if done.returncode == 0:
        return "", "", ""
    output = done.stdout + done.stderr
    frames = re.findall(rf"^\S*{re.escape(STATEFUL)}:\d+: in (\w+)$", output, re.MULTILINE)
    errors = re.findall(r"^E +(\w+(?:Error|Exception)\b.*)$", output, re.MULTILINE)
    count = re.findall(r"gateway state machine, [^:]*: (\d+) examples", output)
    where = f"`{frames[-1]}`" if frames else f"pytest exited {done.returncode}"
    example = f" (example {count[-1]})" if count else ""
    message = errors[0] if errors else output.strip()[-300:]
    return f"{where}{example}", " ".join(message.split())[:300], ""


def run_pytest(copy: Path, args: list[str], timeout_s: float) -> tuple[list[str], str]:
    """Pytest against ``copy``: the tests that failed, and a note if it ran out of time."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfE", *args]
    try:
        done = subprocess.run(
            command, cwd=copy, env=_env(copy), capture_output=True, text=True, timeout=timeout_s
        )
    except subprocess.TimeoutExpired:
        return [], f"pytest {' '.join(args)} ran out of its {timeout_s:.0f} s"
    failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", done.stdout, flags=re.MULTILINE)
    if done.returncode not in (0, 1) and not failed:
        return [f"pytest exited {done.returncode}"], ""
    return sorted(set(failed)), ""


def check(mutant: Mutant | None, files: list[str], args: argparse.Namespace) -> Result:
    """Copy the tree, apply ``mutant`` (None: the baseline) and run the three parts."""
    started = time.monotonic()
    result = Result(mutant.name if mutant else "(baseline: no mutant)")
    with tempfile.TemporaryDirectory(prefix="edgeswarm-mutant-") as tmp:
        copy = Path(tmp)
        copy_tree(files, copy)
        if mutant is not None:
            result.applied = apply(mutant, copy)
        if not result.applied:
            result.machine, result.message, note = run_machine(copy, args.examples, args.timeout)
            result.notes += [note] if note else []
            replays, note = run_pytest(
                copy, [STATEFUL, "-k", "not generated_faults", "-m", "not xfail"], 120
            )
            result.replays = [name.split("::")[-1] for name in replays]
            result.notes += [note] if note else []
            result.hardening = _repeated_failures(copy, [HARDENING], result.notes)
            result.unit = _repeated_failures(copy, list(UNIT), result.notes)
    result.seconds = time.monotonic() - started
    return result


def _repeated_failures(copy: Path, args: list[str], notes: list[str]) -> list[str]:
    """The tests of ``args`` that fail, and fail again each of :data:`RERUNS` times."""
    failed, note = run_pytest(copy, args, 240)
    notes += [note] if note else []
    for _ in range(RERUNS):  # real processes, timed: a failure counts if it repeats
        if not failed:
            break
        again, note = run_pytest(copy, failed, 240)
        notes += [note] if note else []
        flaky = sorted(set(failed) - set(again))
        notes += [f"`{n.split('::')[-1]}` failed, then passed" for n in flaky]
        failed = again
    return [name.split("::")[-1] for name in failed]


def table(results: list[Result]) -> str:
    """The results as a markdown table, then the machine's failure messages."""
    rows = ["| mutant | caught by | time |", "| --- | --- | --- |"]
    for index, result in enumerate(results):
        cell = result.caught_by(baseline=index == 0)
        rows.append(f"| `{result.name}` | {cell} | {result.seconds:.0f} s |")
    rows.append("")
    rows += [f"- `{r.name}`: {r.message}" for r in results if r.message]
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    """Run the baseline and the mutants; print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=1000, help="state-machine examples")
    parser.add_argument("--timeout", type=float, default=240.0, help="machine time limit, s")
    parser.add_argument("--only", action="append", default=[], help="run this mutant")
    parser.add_argument("--list", action="store_true", help="list the mutants")
    args = parser.parse_args(argv)
    if args.list:
        for mutant in MUTANTS:
            print(f"{mutant.name}: {mutant.what}")
        return 0
    unknown = set(args.only) - {m.name for m in MUTANTS}
    if unknown:
        parser.error(f"unknown mutants: {', '.join(sorted(unknown))}")
    chosen = [m for m in MUTANTS if not args.only or m.name in args.only]
    files = working_tree()
    started = time.monotonic()
    baseline = check(None, files, args)
    print(f"baseline: {baseline.caught_by(baseline=True)} [{baseline.seconds:.0f} s]", flush=True)
    if baseline.caught:
        print("the unmutated tree fails: the mutants' rows would mean nothing", file=sys.stderr)
    results = [baseline]
    for mutant in chosen:
        result = check(mutant, files, args)
        results.append(result)
        print(f"{mutant.name}: {result.caught_by()} [{result.seconds:.0f} s]", flush=True)
        if result.message:
            print(f"    {result.message}", flush=True)
    caught = sum(r.caught for r in results[1:])
    print(f"\n{table(results)}\n")
    print(
        f"{caught} of {len(chosen)} mutants caught, {time.monotonic() - started:.0f} s "
        f"({args.examples} examples each)"
    )
    return 0 if not baseline.caught else 1


def _register_profile() -> None:
    """As a pytest plugin in a mutant's copy: the ``mutants`` hypothesis profile.

    Derandomized, ``EDGESWARM_MUTANT_EXAMPLES`` examples, no shrinking, the first failure
    only; and no run at all unless ``runtime`` is the copy's.
    """
    examples = os.environ.get(EXAMPLES_ENV)
    if examples is None:
        return
    from hypothesis import HealthCheck, Phase, settings

    settings.register_profile(
        PROFILE,
        derandomize=True,
        database=None,
        deadline=None,
        max_examples=int(examples),
        stateful_step_count=30,
        suppress_health_check=[HealthCheck.too_slow],
        phases=[Phase.explicit, Phase.generate],
        report_multiple_bugs=False,
        print_blob=False,
    )
    spec = importlib.util.find_spec("runtime")
    origin = Path(spec.origin).resolve() if spec and spec.origin else None
    if origin is None or not origin.is_relative_to(Path.cwd().resolve()):
        raise SystemExit(f"runtime would come from {origin}, not the copy at {Path.cwd()}")


_register_profile()

if __name__ == "__main__":
    sys.exit(main())
