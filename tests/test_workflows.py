"""The GitHub workflows: every action pinned by a commit SHA that was checked, and the jobs the release
depends on run what the repository has (the scripts, the manifest's platforms, the images' Dockerfiles).

The SHAs below were read from each action's own repository (`git rev-parse <tag>^{commit}` on a mirror of it,
this branch's author); a new pin must be added here with the tag it is, after checking it the same way."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = ROOT / ".github" / "workflows"
PINNED = {
    "actions/checkout": ("3d3c42e5aac5ba805825da76410c181273ba90b1", "v7.0.1"),
    "actions/setup-python": ("5fda3b95a4ea91299a34e894583c3862153e4b97", "v7.0.0"),
    "actions/setup-go": ("b7ad1dad31e06c5925ef5d2fc7ad053ef454303e", "v7.0.0"),
    "actions/upload-artifact": ("bbbca2ddaa5d8feaa63e36b76fdaad77386f024f", "v7.0.0"),
    "actions/download-artifact": ("3e5f45b2cfb9172054b4087a40e8e0b5a5461e7c", "v8.0.1"),
    "docker/setup-qemu-action": ("96fe6ef7f33517b61c61be40b68a1882f3264fb8", "v4.2.0"),
    "docker/setup-buildx-action": ("37fe631027851001ddb9b187196cc803df7f5f0e", "v4.3.0"),
    "docker/login-action": ("4907a6ddec9925e35a0a9e82d7399ccc52663121", "v4.1.0"),
    "docker/build-push-action": ("53b7df96c91f9c12dcc8a07bcb9ccacbed38856a", "v7.3.0"),
    "softprops/action-gh-release": ("b4309332981a82ec1c5618f44dd2e27cc8bfbfda", "v3.0.0"),
    "helm/kind-action": ("ef37e7f390d99f746eb8b610417061a60e82a6cc", "v1.14.0"),
    "rajatjindal/krew-release-bot": ("c970b8a8f6dbc2f2285a26e3ae160903b87002c3", "v0.0.51"),
}
USES = re.compile(r"^\s*(?:-\s+)?uses:\s*(\S+)(?:\s+#\s*(\S+))?\s*$")


def workflow(name: str) -> dict[str, Any]:
    doc: dict[str, Any] = yaml.safe_load((WORKFLOWS / name).read_text())
    return doc


def test_every_action_is_pinned_by_a_checked_sha() -> None:
    seen = set()
    for path in sorted(WORKFLOWS.glob("*.yml")):
        for line in path.read_text().splitlines():
            found = USES.match(line)
            if not found or found.group(1).startswith("./"):
                continue
            action, _, ref = found.group(1).partition("@")
            assert action in PINNED, f"{path.name}: {action} is not a checked pin"
            assert (ref, found.group(2)) == PINNED[action], f"{path.name}: {line.strip()}"
            seen.add(action)
    assert seen == set(PINNED)  # no stale entries


def test_ci_runs_the_check_on_linux_and_macos_for_every_supported_python() -> None:
    check = workflow("ci.yml")["jobs"]["check"]
    matrix = check["strategy"]["matrix"]
    assert {os.split("-")[0] for os in matrix["os"]} == {"ubuntu", "macos"}
    minimum = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert minimum == ">=3.11" and matrix["python"][0] == "3.11"
    assert [int(v.split(".")[1]) for v in matrix["python"]] == list(range(11, 11 + len(matrix["python"])))
    assert any(step.get("run") == "./scripts/check" for step in check["steps"])
    e2e = workflow("ci.yml")["jobs"]["e2e"]
    assert any("-m kind tests/e2e" in step.get("run", "") for step in e2e["steps"])


def test_the_release_builds_the_manifests_platforms_and_both_images() -> None:
    jobs = workflow("release.yml")["jobs"]
    built = {("linux", e["arch"]) for e in jobs["build-linux"]["strategy"]["matrix"]["include"]}
    built |= {("darwin", e["arch"]) for e in jobs["build-macos"]["strategy"]["matrix"]["include"]}
    manifest = (ROOT / "krew" / "gpu-doctor.yaml").read_text()
    in_manifest = set(re.findall(r"os: (\w+)\n\s+arch: (\w+)", manifest))
    assert (
        built
        == in_manifest
        == {("linux", "amd64"), ("linux", "arm64"), ("darwin", "amd64"), ("darwin", "arm64")}
    )
    for job in ("build-linux", "build-macos"):
        runs = " ".join(step.get("run", "") for step in jobs[job]["steps"])
        assert "scripts/build-dist" in runs and "tests/cli/test_dist_build.py" in runs
    assert jobs["build-linux"]["container"] == "python:3.11-slim-bullseye"  # glibc 2.31
    images = {e["image"]: e["platforms"] for e in jobs["images"]["strategy"]["matrix"]["include"]}
    assert images == {"debug-nvidia": "linux/amd64,linux/arm64", "debug-neuron": "linux/amd64"}
    for name in ("nvidia", "neuron"):
        assert (ROOT / "debug-images" / name / "Dockerfile").exists()
    push = next(s for s in jobs["images"]["steps"] if "build-push-action" in s.get("uses", ""))
    assert push["with"]["provenance"] == "mode=max" and push["with"]["sbom"] is True
    release_runs = " ".join(step.get("run", "") for step in jobs["release"]["steps"])
    assert "scripts/render-krew-manifest" in release_runs and "validate-krew-manifest" in release_runs
    assert "sha256sum --check" in release_runs
    assert jobs["krew-index"]["if"] == "vars.KREW_INDEX_SUBMITTED == 'true'"
    for script in ("build-dist", "render-krew-manifest"):
        assert (ROOT / "scripts" / script).stat().st_mode & 0o111


def test_workflows_grant_only_what_they_use() -> None:
    for name in ("ci.yml", "release.yml"):
        assert workflow(name)["permissions"] == {"contents": "read"}
    jobs = workflow("release.yml")["jobs"]
    assert jobs["images"]["permissions"] == {"contents": "read", "packages": "write"}
    assert jobs["release"]["permissions"] == {"contents": "write"}
