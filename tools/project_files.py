"""The user's project beside the code under test: which workspace files go into the sandbox.

A solution written for a project imports its modules (``from pricing import round_cents``),
opens its config by relative path (``config/shipping.toml``) and its database by file name
(``shop.db``). So every sandboxed run of a candidate (its checks, probes, the hidden tests of
``edgeswarm eval``) gets a copy of the project's files at the same relative paths beside
``solution.py``; the sandbox's working directory is that folder.

A small workspace is copied whole. A large one (a user's repository) cannot be: the sandbox
takes :data:`MAX_FILES` files and :data:`MAX_BYTES` bytes. Then a candidate gets what its own
code names: the workspace modules it imports (and theirs, transitively) and the files whose
path or name it writes as a string. The run's database, given apart from the workspace, is
copied by its file name.

Nothing outside the workspace is read: a symlink is never followed, and a path that resolves
out of the root is skipped, as :mod:`tools.workspace` does for the researcher's reads.
"""

from __future__ import annotations

import ast
import os
import stat
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

from tools.pysource import parse
from tools.sandbox import SandboxConfig
from tools.workspace import SKIP_DIRS

MAX_FILES = 150
"""Files copied beside a candidate at most (the sandbox takes 200, the run's own among them)."""
MAX_BYTES = 4 * 1024 * 1024
"""Bytes copied beside a candidate at most (the sandbox takes 8 MiB in all)."""
MAX_FILE_BYTES = 1024 * 1024
"""A larger file is never copied."""
MAX_LISTED = 5000
"""Files listed at most when scanning a workspace (a user's whole repository)."""
RESERVED = frozenset({"main.py", "solution.py"})
"""Names the sandbox's own files take (its entry script, the code under test): a workspace
file of that name at the top is not copied."""


@dataclass
class ProjectFiles:
    """A workspace's copyable files, listed once, read when a candidate needs them."""

    root: Path | None = None
    sizes: dict[str, int] = field(default_factory=dict)
    """Relative posix path to size, for every regular file inside the root within limits."""
    database: Path | None = None
    """The run's database, copied by its file name (it may lie outside the workspace)."""
    site_packages: tuple[Path, ...] = ()
    """The workspace's own virtual environment's packages (``.venv``, ``venv``), for the
    sandbox's interpreter version: code that imports the project's modules imports what they
    import too. Bound read-only (:meth:`sandbox_config`)."""
    _read: dict[str, bytes] = field(default_factory=dict, repr=False)

    @classmethod
    def scan(cls, workspace: Path | None, database: Path | None = None) -> ProjectFiles:
        """List ``workspace``'s regular files (no symlinks, none over the limits)."""
        found = cls(root=workspace.resolve() if workspace else None, database=database)
        if found.root is None or not found.root.is_dir():
            found.root = None
            return found
        found.site_packages = _site_packages(found.root)
        for dirpath, dirnames, filenames in os.walk(found.root, followlinks=False):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and d[0] != ".")
            for name in sorted(filenames):
                path = Path(dirpath, name)
                try:
                    info = path.lstat()
                except OSError:
                    continue
                if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
                    continue  # symlinks, devices, sockets and big files are never copied
                found.sizes[path.relative_to(found.root).as_posix()] = info.st_size
                if len(found.sizes) >= MAX_LISTED:
                    return found
        return found

    @property
    def whole(self) -> bool:
        """Whether the whole workspace fits in the sandbox."""
        return len(self.sizes) <= MAX_FILES and sum(self.sizes.values()) <= MAX_BYTES

    def for_code(self, *sources: str) -> dict[str, str | bytes]:
        """The files to copy beside ``sources`` (solution.py, tests): all, or what they name."""
        names = sorted(self.sizes) if self.whole else self._named(sources)
        files: dict[str, str | bytes] = {}
        total = 0
        for name in names:
            if name in RESERVED:
                continue
            data = self._bytes(name)
            if data is None or total + len(data) > MAX_BYTES or len(files) >= MAX_FILES:
                continue
            files[name] = data
            total += len(data)
        if self.database is not None and self.database.name not in files:
            data = self._database_bytes()
            if data is not None:
                files[self.database.name] = data
        return files

    def data_file(self, text: str) -> bytes | None:
        """The bytes of the file a call's argument names, as code run in the root opens it.

        A workspace file by its relative path, or the run's database by its file name; None
        for anything else (no file, a larger one than is ever copied).
        """
        clean = _relative_name(text)
        if clean is None:
            return None
        if self.database is not None and clean == self.database.name:
            try:
                return self._database_bytes()
            except OSError:
                return None
        return self._bytes(clean) if clean in self.sizes else None

    def _database_bytes(self) -> bytes | None:
        """The run's database, unless it is missing or over :data:`MAX_FILE_BYTES`.

        Raises:
            OSError: it could not be read.
        """
        if self.database is None or not self.database.is_file():
            return None
        if self.database.stat().st_size > MAX_FILE_BYTES:
            return None
        return self.database.read_bytes()

    def sandbox_config(self, base: SandboxConfig | None = None) -> SandboxConfig | None:
        """The sandbox's settings with the workspace's packages importable (None: no change)."""
        if not self.site_packages:
            return base
        config = base or SandboxConfig()
        return replace(config, extra_python_paths=(*config.extra_python_paths, *self.site_packages))

    def _bytes(self, name: str) -> bytes | None:
        if self.root is None:
            return None
        if name not in self._read:
            try:
                fd = os.open(self.root / name, os.O_RDONLY | os.O_NOFOLLOW)
            except OSError:
                return None
            with os.fdopen(fd, "rb") as handle:
                self._read[name] = handle.read(MAX_FILE_BYTES + 1)[:MAX_FILE_BYTES]
        return self._read[name]

    def _named(self, sources: tuple[str, ...]) -> list[str]:
        """The workspace files ``sources`` import (transitively) or write as a string."""
        wanted: list[str] = []
        pending = list(sources)
        while pending:
            for name in self._references(pending.pop()):
                if name not in wanted:
                    wanted.append(name)
                    if name.endswith(".py"):
                        data = self._bytes(name)
                        pending.append(data.decode("utf-8", "replace") if data else "")
        return wanted

    def _references(self, source: str) -> list[str]:
        try:
            tree = parse(source)
        except SyntaxError:
            return []
        found: list[str] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found += [m for a in node.names for m in self._module(a.name)]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found += self._module(node.module)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                found += self._path(node.value)
        return found

    def _module(self, dotted: str) -> list[str]:
        """A module's file and its packages' ``__init__.py`` files, where the workspace has them."""
        parts = dotted.split(".")
        found = [
            f"{'/'.join(parts[:i])}/__init__.py"
            for i in range(1, len(parts) + 1)
            if f"{'/'.join(parts[:i])}/__init__.py" in self.sizes
        ]
        module = "/".join(parts) + ".py"
        return [*found, module] if module in self.sizes else found

    def _path(self, text: str) -> list[str]:
        """The workspace file a string names: by its relative path, else by a unique name."""
        clean = _relative_name(text)
        if clean is None:
            return []
        if clean in self.sizes:
            return [clean]
        named = [p for p in self.sizes if PurePosixPath(p).name == clean]
        return named if len(named) == 1 else []


def _relative_name(text: str) -> str | None:
    """A string as the relative posix path it may name (``./a//b`` is ``a/b``).

    None for no path at all: empty, multi-line, or longer than a path a call would pass.
    """
    if not text or len(text) > 300 or "\n" in text:
        return None
    return PurePosixPath(text.removeprefix("./")).as_posix()


VENV_DIRS = (".venv", "venv")
"""Where a project keeps its virtual environment."""


def _site_packages(root: Path) -> tuple[Path, ...]:
    """The site-packages of the workspace's own virtual environment, for this interpreter.

    Only a folder that resolves inside the workspace: a ``.venv`` symlink leading out of it is
    not the project's to bind.
    """
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    found = []
    for name in VENV_DIRS:
        path = (root / name / "lib" / version / "site-packages").resolve()
        if path.is_dir() and path.is_relative_to(root):
            found.append(path)
    return tuple(found[:1])
