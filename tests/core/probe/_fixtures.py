"""Paths and readers for the probe fixtures (real ones copied from shared/fixtures, and ours/)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "fixtures" / "probe"
OURS = ROOT / "ours"


def path(rel: str) -> Path:
    return ROOT / rel


def text(rel: str) -> str:
    return (ROOT / rel).read_text(encoding="utf-8")


def data(rel: str) -> bytes:
    return (ROOT / rel).read_bytes()


def names(folder: str, pattern: str = "*") -> list[str]:
    """File names (not paths) in a fixture folder, sorted."""
    return sorted(p.name for p in (ROOT / folder).glob(pattern) if p.is_file())
