"""krew/gpu-doctor.yaml: a krew-release-bot template that renders, for a fake release, into a manifest that
passes every check `validate-krew-manifest` makes.

Rendering (scripts/render-krew-manifest, which the release runs) follows krew-release-bot (rajatjindal/krew-release-bot v0.0.51, pkg/source/template.go): a Go
template with `{{ .TagName }}` and `{{addURIAndSha "URL" .TagName }}`, which renders the URL with the tag,
downloads it and writes `uri: URL` and, at a hard-coded four-space indent, `sha256: <hex>`. The fake release
has one archive per platform, made by scripts/build-dist's own `archive()` from a stand-in onedir build.

The checks are krew's (kubernetes-sigs/krew at db921d5: cmd/validate-krew-manifest/main.go,
internal/index/validation/validate.go, internal/installation/move.go, install.go). Structural
(ValidatePlugin):
  S1  the file extension is .yaml                    S2  apiVersion is krew.googlecontainertools.github.com/v1alpha2
  S3  kind is Plugin                                 S4  the name matches ^[\\w-]+$ and is no Windows reserved name
  S5  metadata.name equals the file name             S6  shortDescription is set, without line breaks
  S7  at least one platform                          S8  version is set and is semver with a leading "v"
  S9  each platform has uri, sha256 ^[a-f0-9]{64}$ and bin
  S10 files is absent or non-empty, every entry with from and to
  S11 the selector is set, not empty, only keys os and arch, no empty matchLabels / matchExpressions
Semantic (validateManifestFile):
  M1  every platform's selector matches a supported <os,arch> (krew's allPlatforms list)
  M2  no supported <os,arch> is matched by two platforms
  M3  install each platform (as `kubectl krew install --manifest` with KREW_OS/KREW_ARCH): download, sha256,
      extract, move `files` (a clean `to`; a direct move when `from` exists, else a glob that must match),
      and `bin` must exist in the install directory (createOrUpdateLink)
  M4  a LICENSE (license, license.txt, license.md, licenses*, copying, copying.txt; any case) is installed
Ours on top: the four platforms the release builds, nothing but the two template forms the bot knows, the
addURIAndSha lines at four spaces, and the archive name build-dist writes.
"""

from __future__ import annotations

import glob
import hashlib
import importlib.machinery
import importlib.util
import os
import re
import tarfile
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "krew" / "gpu-doctor.yaml"
TAG = "v9.8.7"
PLATFORMS = {("linux", "amd64"), ("linux", "arm64"), ("darwin", "amd64"), ("darwin", "arm64")}
KREW_PLATFORMS = [("windows", "386"), ("windows", "amd64"), ("windows", "arm64"), ("linux", "386"), ("linux", "amd64"),
                  ("linux", "arm"), ("linux", "arm64"), ("linux", "ppc64le"), ("darwin", "386"), ("darwin", "amd64"),
                  ("darwin", "arm64")]  # fmt: skip
WINDOWS_RESERVED = {
    "CON",
    "PRN",
    "AUX",
    "NUL",
    *(f"COM{i}" for i in range(1, 10)),
    *(f"LPT{i}" for i in range(1, 10)),
}
LICENSE_NAMES = {"license", "license.txt", "license.md", "licenses", "licenses.txt", "licenses.md", "copying",
                 "copying.txt"}  # fmt: skip
SEMVER = re.compile(r"^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$")
ADD_URI = re.compile(r'\{\{\s*addURIAndSha\s+"((?:[^"\\]|\\.)*)"\s+\.TagName\s*\}\}')


def script(name: str) -> ModuleType:
    """A script of scripts/ (no .py suffix) as a module."""
    module_name = name.replace("-", "_")
    loader = importlib.machinery.SourceFileLoader(module_name, str(ROOT / "scripts" / name))
    spec = importlib.util.spec_from_loader(module_name, loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


# --- the fake release -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """uri -> archive, one per platform, laid out by scripts/build-dist's archive() from a stand-in build."""
    bd = script("build-dist")
    out: dict[str, Path] = {}
    for os_name, arch in sorted(PLATFORMS):
        work = tmp_path_factory.mktemp(f"{os_name}-{arch}")
        onedir = work / "onedir"
        (onedir / "_internal" / "kubectl_gpu").mkdir(parents=True)
        (onedir / "kubectl-gpu").write_text("#!/bin/sh\necho kubectl-gpu\n")
        (onedir / "kubectl-gpu").chmod(0o755)
        (onedir / "_internal" / "kubectl_gpu" / "__init__.pyc").write_bytes(b"\0")
        bd.DIST = work / "dist"
        name = f"kubectl-gpu_{TAG}_{os_name}_{arch}"
        archive = bd.archive(onedir, name)
        assert archive.name == f"{name}.tar.gz" and (bd.DIST / f"{name}.tar.gz.sha256").exists()
        out[f"https://github.com/kubectl-gpu/kubectl-gpu/releases/download/{TAG}/{archive.name}"] = archive
    return out


def render(template: str, tag: str, download: dict[str, Path]) -> str:
    """krew-release-bot's rendering, as scripts/render-krew-manifest (what the release runs) does it."""
    rendered: str = script("render-krew-manifest").render(template, tag, download)
    return rendered


@pytest.fixture(scope="module")
def manifest(release: dict[str, Path]) -> dict[str, Any]:
    rendered = render(TEMPLATE.read_text(), TAG, release)
    assert "{{" not in rendered
    doc: dict[str, Any] = yaml.safe_load(rendered)
    return doc


def test_the_template_uses_only_what_the_bot_renders() -> None:
    text = TEMPLATE.read_text()
    for line in text.splitlines():
        if "addURIAndSha" in line and not line.startswith("#"):
            # at four spaces: the bot writes "    sha256:" at that indent after the uri
            assert line.startswith('    {{addURIAndSha "') and ADD_URI.fullmatch(line.strip()), line
        else:
            assert "{{" not in line.replace("{{ .TagName }}", ""), line
    assert len(ADD_URI.findall(text)) == len(PLATFORMS)
    assert text.count("version: {{ .TagName }}") == 1


# --- structural checks (ValidatePlugin) --------------------------------------------------------------------------


def _selector_problem(selector: Any) -> str | None:
    if not isinstance(selector, dict):
        return "nil selector"
    labels, exprs = selector.get("matchLabels"), selector.get("matchExpressions")
    if labels is None and not exprs:
        return "empty selector"
    keys = list(labels or {}) + [e["key"] for e in exprs or []]
    if any(k not in ("os", "arch") for k in keys):
        return f"unsupported keys {keys}"
    if labels is not None and not labels:
        return "matchLabels specified but empty"
    if exprs is not None and not exprs:
        return "matchExpressions specified but empty"
    return None


def test_structural_checks(manifest: dict[str, Any]) -> None:
    assert TEMPLATE.suffix == ".yaml"  # S1
    assert manifest["apiVersion"] == "krew.googlecontainertools.github.com/v1alpha2"  # S2
    assert manifest["kind"] == "Plugin"  # S3
    name = manifest["metadata"]["name"]
    assert re.fullmatch(r"[\w-]+", name) and name.upper() not in WINDOWS_RESERVED  # S4
    assert name == TEMPLATE.stem  # S5
    spec = manifest["spec"]
    short = spec["shortDescription"]
    assert short and not re.search(r"[\r\n]", short)  # S6
    assert spec["platforms"]  # S7
    assert SEMVER.match(spec["version"]) and spec["version"] == TAG  # S8
    for platform in spec["platforms"]:
        assert platform["uri"] and platform["bin"]  # S9
        assert re.fullmatch(r"[a-f0-9]{64}", platform["sha256"])
        files = platform.get("files")
        assert files is None or (files and all(f.get("from") and f.get("to") for f in files))  # S10
        assert _selector_problem(platform.get("selector")) is None  # S11


def test_the_descriptions_say_what_the_plugin_needs(manifest: dict[str, Any]) -> None:
    spec = manifest["spec"]
    # krew-index review: a short description of at most 50 characters, and caveats that say only what the
    # plugin needs (the rest is documentation) (issue 41, item 3)
    assert len(spec["shortDescription"]) <= 50 and spec["description"].strip()
    caveats = spec["caveats"]
    assert len(caveats.strip().splitlines()) <= 8, caveats
    for needle in ("RBAC", "privileged", "root on the node", "deploy/rbac/read-only.yaml", "deploy/rbac/debug.yaml",
                   "kubectl gpu-doctor"):  # fmt: skip
        assert needle in caveats, needle


# --- semantic checks (validateManifestFile) ----------------------------------------------------------------------


def _matches(selector: dict[str, Any], os_name: str, arch: str) -> bool:
    labels = {"os": os_name, "arch": arch}
    if any(labels.get(k) != v for k, v in (selector.get("matchLabels") or {}).items()):
        return False
    for expr in selector.get("matchExpressions") or []:
        value, values = labels.get(expr["key"]), expr.get("values") or []
        op = expr["operator"]
        if (op == "In" and value not in values) or (op == "NotIn" and value in values):
            return False
        if (op == "Exists" and value is None) or (op == "DoesNotExist" and value is not None):
            return False
    return True


def test_every_platform_matches_one_supported_pair_and_none_overlaps(manifest: dict[str, Any]) -> None:
    platforms = manifest["spec"]["platforms"]
    for i, platform in enumerate(platforms):  # M1
        assert any(_matches(platform["selector"], *pair) for pair in KREW_PLATFORMS), (
            f"platform[{i}] matches none"
        )
    matched = {}
    for pair in KREW_PLATFORMS:  # M2
        hits = [i for i, p in enumerate(platforms) if _matches(p["selector"], *pair)]
        assert len(hits) <= 1, f"{pair} matched by platforms {hits}"
        if hits:
            matched[pair] = hits[0]
    assert set(matched) == PLATFORMS  # the release builds exactly these (no Windows: docs/packaging.md)


def _move(extracted: Path, install: Path, src: str, dst: str) -> None:
    """krew's findMoveTargets + moveFiles: a direct move when `from` exists, else a glob that must match."""
    assert dst == os.path.normpath(dst), f"to: {dst!r} is not clean"
    direct = extracted / src
    if direct.exists():
        target = install / (direct.name if os.path.normpath(dst) == "." else dst)
        target.parent.mkdir(parents=True, exist_ok=True)
        direct.rename(target)
        return
    found = glob.glob(str(extracted / src))
    assert found, f"no files in the plugin archive matched the glob pattern={src}"
    for path in found:
        (install / dst).mkdir(parents=True, exist_ok=True)
        Path(path).rename(install / dst / Path(path).name)


def install(platform: dict[str, Any], release: dict[str, Path], root: Path) -> Path:
    archive = release[platform["uri"]]  # M3: the download
    assert hashlib.sha256(archive.read_bytes()).hexdigest() == platform["sha256"]
    extracted, installed = root / "extract", root / "store"
    extracted.mkdir(parents=True)
    installed.mkdir()
    with tarfile.open(archive) as tar:
        safe: dict[str, Any] = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        tar.extractall(extracted, **safe)
    for op in platform.get("files") or [{"from": "*", "to": "."}]:
        _move(extracted, installed, op["from"], op["to"])
    assert (installed / platform["bin"]).is_file(), "source binary cannot be found in extracted archive"
    return installed


@pytest.mark.parametrize("pair", sorted(PLATFORMS), ids="/".join)
def test_each_platform_installs_with_its_license(
    manifest: dict[str, Any], release: dict[str, Path], tmp_path: Path, pair: tuple[str, str]
) -> None:
    (platform,) = [p for p in manifest["spec"]["platforms"] if _matches(p["selector"], *pair)]
    assert platform["uri"].endswith(f"/{TAG}/kubectl-gpu_{TAG}_{pair[0]}_{pair[1]}.tar.gz")
    installed = install(platform, release, tmp_path)
    assert os.access(installed / platform["bin"], os.X_OK)
    assert (installed / "_internal").is_dir()  # the onedir runtime next to the executable
    files = [p.name.lower() for p in installed.rglob("*") if p.is_file()]
    assert LICENSE_NAMES & set(files), files  # M4
    assert (installed / "LICENSE").read_text() == (ROOT / "LICENSE").read_text()
    link = tmp_path / "bin" / "kubectl-gpu_doctor"  # krew's pluginNameToBin("gpu-doctor")
    link.parent.mkdir()
    link.symlink_to(installed / platform["bin"])
    assert link.resolve() == (installed / platform["bin"]).resolve()


def test_a_missing_license_or_binary_fails_like_krew(
    manifest: dict[str, Any], release: dict[str, Path], tmp_path: Path
) -> None:
    """The emulation is not vacuous: a platform whose files leave out LICENSE or the binary is refused."""
    platform = dict(manifest["spec"]["platforms"][0])
    without_license = {**platform, "files": [f for f in platform["files"] if f["from"] != "LICENSE"]}
    installed = install(without_license, release, tmp_path / "a")
    assert not LICENSE_NAMES & {p.name.lower() for p in installed.rglob("*") if p.is_file()}
    wrong_bin = {**platform, "bin": "kubectl-gpu-missing"}
    with pytest.raises(AssertionError, match="source binary cannot be found"):
        install(wrong_bin, release, tmp_path / "b")
    bad_glob = {**platform, "files": [{"from": "nothing-*", "to": "."}]}
    with pytest.raises(AssertionError, match="no files in the plugin archive matched"):
        install(bad_glob, release, tmp_path / "c")


def test_the_render_script_reads_the_archives_from_a_directory(
    release: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    renderer = script("render-krew-manifest")
    for archive in release.values():
        (tmp_path / archive.name).write_bytes(archive.read_bytes())
    assert renderer.main([TAG, str(tmp_path)]) == 0
    doc = yaml.safe_load(capsys.readouterr().out)
    assert {p["uri"] for p in doc["spec"]["platforms"]} == set(release)
    (tmp_path / next(iter(release.values())).name).unlink()
    assert renderer.main([TAG, str(tmp_path)]) == 1 and "missing archives" in capsys.readouterr().err
    assert renderer.main(["0.1.0", str(tmp_path)]) == 2  # the tag has its leading v
    with pytest.raises(ValueError, match="would not render"):
        renderer.render("version: {{ .TagName }}\nx: {{ .Other }}\n", TAG, {})
