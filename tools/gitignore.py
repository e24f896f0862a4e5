"""What a workspace's ``.gitignore`` files leave out, as git reads them.

The project is what git tracks: build output, generated data and local files that its
``.gitignore`` files name are not its code (aider's repo map lists only git's files). Both
readers of a workspace apply them: the project map (:mod:`tools.project_scan`) and the
researcher's search (:mod:`tools.workspace`). Only ``.gitignore`` files inside the workspace
count; one that is a symlink is not followed. Rules are pathspec's ``GitIgnoreSpec``.
"""

from __future__ import annotations

import os
import stat

from pathspec import GitIgnoreSpec

__all__ = ["GITIGNORE", "GitIgnores"]

GITIGNORE = ".gitignore"
_MAX_BYTES = 256_000


class GitIgnores:
    """The rules of the ``.gitignore`` files met on one walk, by folder."""

    def __init__(self) -> None:
        self._specs: dict[str, GitIgnoreSpec] = {}

    def read(self, rel_dir: str, dirfd: int) -> str | None:
        """Keep the rules of the ``.gitignore`` in the folder open as ``dirfd``.

        ``rel_dir`` is the folder's path in the workspace ("" for the root). Returns a note
        when the rules cannot be read, else None.
        """
        where = f"{rel_dir}/{GITIGNORE}" if rel_dir else GITIGNORE
        try:
            fd = os.open(GITIGNORE, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dirfd)
        except OSError as exc:
            return f"{where}: not read ({exc.strerror}), its rules not applied"
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return f"{where}: not a regular file, its rules not applied"
            data = os.read(fd, _MAX_BYTES)
        except OSError as exc:
            return f"{where}: not read ({exc.strerror}), its rules not applied"
        finally:
            os.close(fd)
        lines = data.decode("utf-8-sig", errors="replace").splitlines()
        try:
            self._specs[rel_dir] = GitIgnoreSpec.from_lines(lines)
        except (ValueError, TypeError) as exc:  # a pattern pathspec cannot compile
            return f"{where}: its rules not applied ({exc})"
        return None

    def ignored(self, rel: str, *, directory: bool = False) -> bool:
        """Whether git leaves ``rel`` out: the deepest ``.gitignore`` with a rule for it says."""
        verdict = False
        parts = rel.split("/")
        for depth in range(len(parts)):
            spec = self._specs.get("/".join(parts[:depth]))
            if spec is None:
                continue
            below = "/".join(parts[depth:]) + ("/" if directory else "")
            include = spec.check_file(below).include
            if include is not None:
                verdict = include
        return verdict
