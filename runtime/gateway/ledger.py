"""Memory accounting: bytes reserved on the device and in host RAM, checked on every change.

The ledger is the one place that enforces the budget: :meth:`MemoryLedger.reserve` refuses a
reservation that would not fit, and a model's bytes are reserved before its server starts (or
wakes) and released only after it stopped (or slept). Every change is checked against the
invariant *sum of resident footprints <= budget*; a breach (which only a measured footprint
larger than the declared one can cause) is recorded in :attr:`MemoryLedger.violations`, logged,
and shown to observers, so tests can watch the invariant continuously.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from runtime.gateway.config import format_bytes
from runtime.logs import get_logger

_log = get_logger("gateway.ledger")


class BudgetExceededError(RuntimeError):
    """A reservation would break the memory budget."""


@dataclass(frozen=True)
class LedgerSnapshot:
    """The ledger after one change."""

    device_used: int
    device_budget: int
    host_used: int
    host_budget: int
    change: str


Observer = Callable[[LedgerSnapshot], None]


class MemoryLedger:
    """Bytes held per model on the device and, for sleeping models, in host RAM."""

    def __init__(self, device_budget: int, host_budget: int) -> None:
        self.device_budget = device_budget
        self.host_budget = host_budget
        self.device: dict[str, int] = {}
        self.host: dict[str, int] = {}
        self.violations: list[str] = []
        self.observers: list[Observer] = []

    @property
    def device_used(self) -> int:
        """Bytes reserved on the device."""
        return sum(self.device.values())

    @property
    def host_used(self) -> int:
        """Bytes reserved in host RAM for sleeping models."""
        return sum(self.host.values())

    def fits(self, nbytes: int, *, host: bool = False) -> bool:
        """Whether ``nbytes`` more would fit."""
        if host:
            return self.host_used + nbytes <= self.host_budget
        return self.device_used + nbytes <= self.device_budget

    def reserve(self, name: str, nbytes: int, *, host: bool = False) -> None:
        """Reserve ``nbytes`` for ``name``; refuse (raise) when it would not fit."""
        pool = self.host if host else self.device
        if name in pool:
            raise BudgetExceededError(f"{name} already holds {format_bytes(pool[name])}")
        if not self.fits(nbytes, host=host):
            where = "host RAM" if host else "device"
            used = self.host_used if host else self.device_used
            budget = self.host_budget if host else self.device_budget
            raise BudgetExceededError(
                f"{name} needs {format_bytes(nbytes)} of {where} memory but only "
                f"{format_bytes(budget - used)} of {format_bytes(budget)} is free"
            )
        pool[name] = nbytes
        self._check(f"reserve {name} {nbytes}{' host' if host else ''}")

    def grow(self, name: str, nbytes: int) -> None:
        """Replace what ``name`` holds on the device by ``nbytes`` in one step.

        Refuses (raises, leaving its bytes held) when the difference would not fit.

        For a sleeping model that wakes: its remains stay counted until the whole footprint is
        reserved (released first, a refusal left the ledger short of what the device held).
        """
        held = self.device.get(name, 0)
        if self.device_used - held + nbytes > self.device_budget:
            free = self.device_budget - self.device_used
            raise BudgetExceededError(
                f"{name} needs {format_bytes(nbytes)} of device memory (it holds "
                f"{format_bytes(held)}) but only {format_bytes(free)} more of "
                f"{format_bytes(self.device_budget)} is free"
            )
        self.device[name] = nbytes
        self._check(f"grow {name} {held} -> {nbytes}")

    def release(self, name: str, *, host: bool = False) -> int:
        """Release what ``name`` holds; returns the bytes (0 when it held none)."""
        nbytes = (self.host if host else self.device).pop(name, 0)
        self._check(f"release {name} {nbytes}{' host' if host else ''}")
        return nbytes

    def resize(self, name: str, nbytes: int) -> None:
        """Replace a device reservation by a measured size (may breach: then it is recorded)."""
        if name in self.device:
            self.device[name] = nbytes
            self._check(f"resize {name} {nbytes}")

    def holds(self, name: str) -> bool:
        """Whether ``name`` holds device bytes."""
        return name in self.device

    def snapshot(self, change: str = "") -> LedgerSnapshot:
        """The current totals."""
        return LedgerSnapshot(
            self.device_used, self.device_budget, self.host_used, self.host_budget, change
        )

    def _check(self, change: str) -> None:
        snap = self.snapshot(change)
        if snap.device_used > snap.device_budget or snap.host_used > snap.host_budget:
            message = (
                f"budget violated after {change}: device {snap.device_used}/{snap.device_budget}"
                f", host {snap.host_used}/{snap.host_budget}"
            )
            self.violations.append(message)
            _log.error("budget_violation", detail=message)
        for observer in self.observers:
            observer(snap)
