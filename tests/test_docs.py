"""The documentation: a short front page, links that resolve, a page for every command, every code listed,
and sample output that is what the commands really print.

README.md is the front page (kept under 12 KiB); the reference lives in docs/. These tests fail when a
command, a finding code or a verdict is added without its documentation, or when a link breaks.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from pathlib import Path

import pytest
import typer

from kubectl_gpu.cli.app import app
from kubectl_gpu.core.analyses.cost.analysis import FINDING_CODES, KEPT_BY_REASONS
from kubectl_gpu.core.analyses.lint.analysis import CODES as LINT_CODES
from kubectl_gpu.core.analyses.pending import Verdict
from kubectl_gpu.core.analyses.usage import FINDING_CODES as USAGE_CODES
from kubectl_gpu.core.evidence.model import Code as EvidenceCode
from tests.conftest import Result

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
COMMANDS = DOCS / "commands"
CODES_PAGE = DOCS / "codes.md"
ANALYSES = ROOT / "kubectl_gpu" / "core" / "analyses"

MARKDOWN = sorted(
    [README, ROOT / "CONTRIBUTING.md", ROOT / "CHANGELOG.md", *DOCS.rglob("*.md")],
    key=lambda p: str(p),
)

_FENCE = re.compile(r"^```.*?^```[^\n]*$", re.M | re.S)
_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)


def _prose(path: Path) -> str:
    """The file without its fenced code blocks (sample output may contain bracket pairs)."""
    return _FENCE.sub("", path.read_text())


def _anchors(path: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, -1, -2 for repeats."""
    seen: dict[str, int] = {}
    anchors = set()
    for heading in _HEADING.findall(_prose(path)):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def _registered_commands() -> list[str]:
    group = typer.main.get_command(app)
    commands = getattr(group, "commands", {})
    assert commands, "the CLI registers no commands?"
    return sorted(commands)


def test_readme_is_a_front_page() -> None:
    size = README.stat().st_size
    assert size < 12 * 1024, f"README.md is {size} bytes; move detail into docs/"


@pytest.mark.parametrize("path", MARKDOWN, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(path: Path) -> None:
    broken = []
    for target in _LINK.findall(_prose(path)):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        file_part, _, fragment = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif fragment and linked.suffix == ".md" and fragment not in _anchors(linked):
            broken.append(f"{target}: no heading #{fragment} in {linked.relative_to(ROOT)}")
    assert not broken, f"{path.relative_to(ROOT)}: " + "; ".join(broken)


def test_links_were_found() -> None:
    """The link test is only as good as its pattern: it must see the README's links to docs/."""
    targets = _LINK.findall(_prose(README))
    assert "docs/codes.md" in {t.partition("#")[0] for t in targets}
    assert len(targets) >= 20


@pytest.mark.parametrize("command", _registered_commands())
def test_every_command_has_a_page(command: str) -> None:
    titled = [p for p in COMMANDS.glob("*.md") if f"`kubectl gpu {command}`" in p.read_text().splitlines()[0]]
    assert titled, f"no docs/commands/*.md is titled with `kubectl gpu {command}`"
    assert f"| `kubectl gpu {command}" in README.read_text(), f"{command} is missing from README's table"


def test_every_docs_page_is_in_the_index() -> None:
    index = _LINK.findall(_prose(DOCS / "README.md"))
    linked = {(DOCS / t.partition("#")[0]).resolve() for t in index}
    pages = {p.resolve() for p in DOCS.rglob("*.md") if p != DOCS / "README.md"}
    assert not pages - linked, sorted(str(p.relative_to(ROOT)) for p in pages - linked)


def _source_codes(path: Path, *patterns: str) -> set[str]:
    text = path.read_text()
    return {code for pattern in patterns for code in re.findall(pattern, text)}


def test_every_code_is_on_the_codes_page() -> None:
    page = CODES_PAGE.read_text()
    smi = _source_codes(ANALYSES / "smi" / "analysis.py", r'Finding\(\s*"([A-Z_]+)"')
    health = _source_codes(
        ANALYSES / "health" / "analysis.py", r'Finding\(\s*"([A-Z_]+)"', r'code, severity = "([A-Z_]+)"'
    )
    assert len(smi) == 10 and len(health) == 7, (smi, health)  # the patterns still find them
    codes = {
        *(str(v) for v in Verdict),
        *LINT_CODES,
        *FINDING_CODES,
        *USAGE_CODES,
        *smi,
        *health,
        *(str(c) for c in EvidenceCode),
    }
    missing = sorted(code for code in codes if f"`{code}`" not in page)
    assert not missing, f"not in docs/codes.md: {missing}"


def test_every_kept_by_reason_is_documented() -> None:
    page = (COMMANDS / "cost.md").read_text()
    missing = sorted(reason for reason in KEPT_BY_REASONS if f"| `{reason}` |" not in page)
    assert not missing, f"keptBy reasons not in docs/commands/cost.md: {missing}"


def test_the_clis_pointers_into_the_readme_hold() -> None:
    """Error messages and fixes say "see NO_ACCELERATOR_NODEPOOL in the README" and "README 'Debug pods'"."""
    readme = README.read_text()
    assert "`NO_ACCELERATOR_NODEPOOL`" in readme
    assert "\n## Debug pods\n" in readme and "docs/rbac.md" in readme


def _examples() -> list[tuple[str, int, list[str], list[str]]]:
    """Every ```text block that starts with `$ kubectl-gpu ...`: (file, line, argv, the lines shown)."""
    found = []
    for path in MARKDOWN:
        text = path.read_text()
        for block in re.finditer(r"^```text\n(.*?)^```", text, re.M | re.S):
            lines = block.group(1).rstrip("\n").split("\n")
            if lines[0].startswith("$ kubectl-gpu "):
                line = text.count("\n", 0, block.start()) + 1
                found.append((str(path.relative_to(ROOT)), line, shlex.split(lines[0][2:])[1:], lines[1:]))
    return found


EXAMPLES = _examples()


def test_examples_were_found() -> None:
    assert {file for file, *_ in EXAMPLES} >= {"README.md", "docs/commands/pending.md"}


@pytest.mark.parametrize(
    ("file", "line", "argv", "shown"), EXAMPLES, ids=[f"{f}:{n}" for f, n, *_ in EXAMPLES]
)
def test_examples_show_real_output(
    cli: Callable[..., Result],
    monkeypatch: pytest.MonkeyPatch,
    file: str,
    line: int,
    argv: list[str],
    shown: list[str],
) -> None:
    """Pasted output is what the command prints: every line shown (`...` elides rows, a line may stop
    early to leave out columns) appears in the real output, in order."""
    monkeypatch.chdir(ROOT)
    result = cli(*argv)
    real = [ln.rstrip() for ln in (result.out + result.err).splitlines()]
    at = 0
    for expected in shown:
        if expected.strip() == "...":
            continue
        while at < len(real) and not real[at].startswith(expected.rstrip()):
            at += 1
        assert at < len(real), (
            f"{file}:{line}: not in the output of kubectl-gpu {' '.join(argv)}: {expected!r}"
        )
        at += 1
