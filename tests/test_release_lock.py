"""Reproducible releases: scripts/build-dist installs every package from requirements/release.lock, pinned and
checked against its sha256 (pip --require-hashes), and the release notes list them (docs/packaging.md)."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import re
import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements" / "release.lock"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+) \\$")
HASH = re.compile(r"^    --hash=sha256:([0-9a-f]{64})( \\)?$")


def parse_lock() -> dict[str, tuple[str, list[str]]]:
    """{canonical name: (version, [sha256, ...])}; fails on any line that is not a pin, a hash or a comment."""
    pins: dict[str, tuple[str, list[str]]] = {}
    current: list[str] | None = None
    for number, line in enumerate(LOCK.read_text().splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if pin := PIN.match(line):
            name = canonicalize_name(pin.group(1))
            assert name not in pins, f"release.lock:{number}: {name} pinned twice"
            current = []
            pins[name] = (pin.group(2), current)
        elif (digest := HASH.match(line)) and current is not None:
            current.append(digest.group(1))
        else:
            pytest.fail(f"release.lock:{number}: neither a pin, a hash nor a comment: {line!r}")
    return pins


def build_dist() -> ModuleType:
    path = ROOT / "scripts" / "build-dist"
    loader = importlib.machinery.SourceFileLoader("build_dist", str(path))
    spec = importlib.util.spec_from_loader("build_dist", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_the_lock_parses_and_every_pin_has_a_sha256() -> None:
    pins = parse_lock()
    assert len(pins) > 20
    assert all(digests for _version, digests in pins.values()), [n for n, (_, d) in pins.items() if not d]


def test_every_runtime_dependency_is_pinned_within_its_range() -> None:
    pins = parse_lock()
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    for text in dependencies:
        requirement = Requirement(text)
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{name} (pyproject.toml) is not in requirements/release.lock"
        assert requirement.specifier.contains(pins[name][0]), f"{name}=={pins[name][0]} is outside {text}"


def test_the_build_tools_are_pinned_too() -> None:
    pins = parse_lock()
    release_in = (ROOT / "requirements" / "release.in").read_text()
    pinned_in = dict(re.findall(r"^([a-z0-9-]+)==(\S+)", release_in, re.M))
    assert pinned_in["pyinstaller"] == pins["pyinstaller"][0]
    # macOS builds need macholib, the build of the package itself its backend: both from the lock.
    assert {"pyinstaller", "pyinstaller-hooks-contrib", "altgraph", "macholib", "hatchling"} <= set(pins)


def test_build_dist_installs_from_the_lock_with_hashes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    module = build_dist()
    calls: list[list[str]] = []

    def run(*argv: Any, **_kw: object) -> None:
        calls.append([str(a) for a in argv])

    monkeypatch.setattr(module, "run", run)
    monkeypatch.setattr(module, "BUILD", tmp_path)
    module.build_venv("python3")
    installs = [c for c in calls if c[1:4] == ["-m", "pip", "install"] and "--upgrade" not in c]
    assert installs[0][4:] == ["--quiet", "--require-hashes", "--no-deps", "-r", str(LOCK)]
    # The package itself: nothing resolved beyond the lock, its build backend from the lock.
    assert installs[1][4:] == ["--quiet", "--no-deps", "--no-build-isolation", str(ROOT)]
    assert len(installs) == 2
    assert calls[-1][1:] == ["-m", "pip", "check"]


def test_the_release_notes_list_every_locked_package() -> None:
    notes = build_dist().notes()
    listed = re.findall(r"^- (\S+) (\S+)$", notes, re.M)
    assert {canonicalize_name(n): v for n, v in listed} == {n: v for n, (v, _) in parse_lock().items()}
    release = yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text())
    steps = release["jobs"]["release"]["steps"]
    (writes,) = [s for s in steps if "build-dist --notes" in s.get("run", "")]
    (publish,) = [s for s in steps if s.get("uses", "").startswith("softprops/action-gh-release@")]
    assert writes["run"].endswith(f"> {publish['with']['body_path']}")
    assert steps.index(writes) < steps.index(publish)
