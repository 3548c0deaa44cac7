"""What a redacted snapshot bundle (the default) leaves out: every field that can carry a credential,
except what an analysis reads, which is kept so that a bundle answers as the live cluster does.

Replaced by `<redacted>` (the field and its place kept, so the shape and counts stay):
- container (and init and ephemeral container) `command`, `args` and env `value`s, except the values of
  `KEPT_ENV` (CUDA_VERSION: the drivers analysis reads it; a version is no secret); env names and
  `valueFrom` references stay (names of Secrets, never their data);
- probe and lifecycle-hook `exec.command` and `httpGet.httpHeaders` values (an `Authorization` header);
- annotation values, in `metadata` and in a NodePool's `spec.template.metadata`, except `KEPT_ANNOTATIONS`
  (the ones analyses read); `kubectl.kubernetes.io/last-applied-configuration` is dropped whole (it is the
  whole object again, env values included);
- a NodeClass's or EC2NodeClass's `spec.userData` (node bootstrap scripts hold tokens and passwords),
  but for the words that say it sets up local disks, which lint reads (`USER_DATA_WORDS`).

Kept: names, labels, images, resources, scheduling fields, statuses, events, NodePool and NodeClass specs
otherwise. docs/security.md lists it for whoever is sent a bundle.

A `/metrics` text saved with `snapshot --usage-window` (`redact_metrics`) is a pod's own words: it keeps what
`usage` reads (metric names, values, `# TYPE` lines, the labels of `METRICS_KEPT_LABELS`) and loses the
rest of what could carry a credential: the value of a label whose name says secret (`api_key`, `token`,
`password`, `authorization`, ...), and in every other label value, `# HELP` text and comment, what looks like
one (`redact_text`: `Authorization: ...`, `Bearer ...`, `key=value` with a secret's name, a URL's
user:password, the shapes of AWS, OpenAI, Hugging Face, GitHub and Slack tokens, JWTs).
"""

from __future__ import annotations

import re
from typing import Any

from kubectl_gpu.core.lazy_pattern import lazy_pattern
from kubectl_gpu.kube.secret_text import scrub, strip_userinfo

__all__ = [
    "KEPT_ANNOTATIONS",
    "KEPT_ENV",
    "METRICS_KEPT_LABELS",
    "REDACTED",
    "USER_DATA_WORDS",
    "redact",
    "redact_metrics",
    "redact_text",
]

REDACTED = "<redacted>"
#: Annotations whose values the analyses read (karpenter, cost and lint: do-not-disrupt; smi: mirror pods;
#: drivers: a declared CUDA version; pending: ignore).
KEPT_ANNOTATIONS = frozenset(
    {
        "karpenter.sh/do-not-disrupt",
        "kubernetes.io/config.mirror",
        "kubectl-gpu.io/cuda",
        "kubectl-gpu.io/ignore",
    }
)
_DROPPED_ANNOTATIONS = ("kubectl.kubernetes.io/last-applied-configuration",)
#: Env variables whose values the analyses read and that hold no secret.
KEPT_ENV = frozenset({"CUDA_VERSION"})
#: What lint looks for in an EC2NodeClass's userData (core/analyses/lint: "sets up local disks itself").
USER_DATA_WORDS = ("localstorage", "mdadm", "raid")
_CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")
_PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
_NODE_CLASSES = ("NodeClass", "EC2NodeClass")


def _annotations(meta: Any) -> None:
    if not isinstance(meta, dict) or not isinstance(meta.get("annotations"), dict):
        return
    annotations = meta["annotations"]
    for key in _DROPPED_ANNOTATIONS:
        annotations.pop(key, None)
    for key in annotations:
        if key not in KEPT_ANNOTATIONS:
            annotations[key] = REDACTED


def _strings(values: Any) -> Any:
    return [REDACTED for _ in values] if isinstance(values, list) else values


def _handler(handler: Any) -> None:
    """A probe or a lifecycle hook: the command it runs and the headers it sends."""
    if not isinstance(handler, dict):
        return
    exec_ = handler.get("exec")
    if isinstance(exec_, dict) and "command" in exec_:
        exec_["command"] = _strings(exec_["command"])
    http = handler.get("httpGet")
    if isinstance(http, dict) and isinstance(http.get("httpHeaders"), list):
        for header in http["httpHeaders"]:
            if isinstance(header, dict) and "value" in header:
                header["value"] = REDACTED


def _container(container: dict[str, Any]) -> None:
    for env in container.get("env") or []:
        if isinstance(env, dict) and "value" in env and env.get("name") not in KEPT_ENV:
            env["value"] = REDACTED
    for key in ("command", "args"):  # they carry tokens as often as env does: keep their count, not text
        if key in container:
            container[key] = _strings(container[key])
    for probe in _PROBES:
        _handler(container.get(probe))
    lifecycle = container.get("lifecycle")
    if isinstance(lifecycle, dict):
        for hook in ("postStart", "preStop"):
            _handler(lifecycle.get(hook))


def _user_data(spec: dict[str, Any]) -> None:
    text = spec.get("userData")
    if not isinstance(text, str):
        return
    words = [w for w in USER_DATA_WORDS if w in text.lower()]
    spec["userData"] = f"{REDACTED} (mentions: {', '.join(words)})" if words else REDACTED


def redact(obj: dict[str, Any]) -> dict[str, Any]:
    """Remove what a support bundle must not carry (see the module's docstring).

    Works in place on a fresh dict from the API (the live source owns it) and returns it."""
    _annotations(obj.get("metadata"))
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return obj
    kind = obj.get("kind")
    template = spec.get("template")
    pod_spec = spec if kind == "Pod" else None
    if kind == "DaemonSet" and isinstance(template, dict) and isinstance(template.get("spec"), dict):
        pod_spec = template["spec"]  # a pod template carries the same secrets as a pod
    if pod_spec is not None:
        for key in _CONTAINER_LISTS:
            for container in pod_spec.get(key) or []:
                if isinstance(container, dict):
                    _container(container)
    elif kind in _NODE_CLASSES:
        _user_data(spec)
    if isinstance(template, dict):
        _annotations(template.get("metadata"))
    return obj


#: The labels of a /metrics text that `usage` reads (core/usage/dcgm.py, inference.py; `le` and `quantile`
#: shape histograms and summaries): names, never credentials, kept as written.
METRICS_KEPT_LABELS = frozenset(
    {
        "gpu", "UUID", "uuid", "device", "modelName", "Hostname", "hostname", "GPU_I_ID", "GPU_I_PROFILE",
        "pod", "namespace", "container", "exported_pod", "exported_namespace", "exported_container",
        "model_name", "model", "le", "quantile",
    }
)  # fmt: skip
_SECRET_WORDS = (
    r"api[_-]?key|apikey|access[_-]?key|secret|passw(?:or)?d|passwd|pwd|token|auth|authorization"
    r"|credentials?|cookie|session[_-]?id|private[_-]?key|signature"
)
#: A label whose name is (or has, between underscores) one of the words: its value is dropped whole.
_SECRET_LABEL = lazy_pattern(rf"(?i)(?:^|[_-])(?:{_SECRET_WORDS})(?:$|[_-])")
_SECRET_SHAPES = (
    # Authorization: anything (in a HELP text or a comment: to the end of the line)
    (lazy_pattern(r"(?i)\b((?:proxy-)?authorization)(\s*[:=]\s*)[^\n]*"), rf"\1\2{REDACTED}"),
    (lazy_pattern(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9\-._~+/]{6,}=*"), rf"\1 {REDACTED}"),
    # key=value, key: value with a secret's name (api_key=..., ?token=..., password: ...)
    (
        lazy_pattern(rf"(?i)\b([\w.-]*(?:{_SECRET_WORDS})[\w.-]*)(\s*[=:]\s*)([\"']?)[^\s\"'&,;]+"),
        rf"\1\2\3{REDACTED}",
    ),
    (lazy_pattern(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"), REDACTED),  # AWS access key ids
    (lazy_pattern(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"), REDACTED),  # JWTs
    (lazy_pattern(r"\b(?:sk|rk|pk)-(?:proj-|live-|test-)?[A-Za-z0-9_]{20,}"), REDACTED),  # OpenAI-style keys
    (
        lazy_pattern(r"\b(?:hf_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|glpat-[A-Za-z0-9_-]{20,})"),
        REDACTED,
    ),
    (lazy_pattern(r"\bxox[abprs]-[A-Za-z0-9-]{10,}"), REDACTED),  # Slack
)
_METRIC_NAME = lazy_pattern(r"[A-Za-z_:][A-Za-z0-9_:]*")
_BARE_SAMPLE = lazy_pattern(r"\s*[A-Za-z_:][A-Za-z0-9_:]*\s+[-+0-9.eEINnaf]+(?:\s+-?[0-9]+)?\s*")
_LABEL_PAIR = lazy_pattern(r'([A-Za-z_][A-Za-z0-9_]*)(\s*=\s*")((?:[^"\\]|\\.)*)(")')


def redact_text(text: str) -> str:
    """`text` (a line, a label value, an error) without what looks like a credential (module docstring),
    nor any credential this process holds (`secret_text.scrub`)."""
    for pattern, replacement in _SECRET_SHAPES:
        text = pattern.sub(replacement, text)
    return scrub(strip_userinfo(text))


def _label(match: re.Match[str]) -> str:
    name, eq, value, end = match.groups()
    if name in METRICS_KEPT_LABELS:
        return match.group(0)
    if _SECRET_LABEL.search(name):
        return f"{name}{eq}{REDACTED}{end}"
    return f"{name}{eq}{redact_text(value)}{end}"


def _metrics_line(line: str) -> str:
    stripped = line.lstrip()
    if stripped.startswith("#"):
        words = stripped.split(None, 3)
        if len(words) >= 3 and words[1] == "TYPE":
            return line  # a metric name and its type: read by the parser
        if len(words) >= 3 and words[1] == "HELP":
            return f"# HELP {words[2]} {redact_text(words[3]) if len(words) > 3 else ''}".rstrip()
        return redact_text(line)
    if _BARE_SAMPLE.match(line):
        return line  # a name and a figure: nothing else to hide in
    head, brace, rest = line.partition("{")
    if not brace or not _METRIC_NAME.fullmatch(head.strip()):
        return redact_text(line)  # not a sample line: words, as a comment's
    return head + brace + _LABEL_PAIR.sub(_label, rest)


def redact_metrics(text: str) -> str:
    """A `/metrics` text as a redacted bundle keeps it (module docstring): each line parses as it did, every
    figure `usage` reads stays, what could be a credential goes."""
    lines = text.split("\n")
    return scrub("\n".join(_metrics_line(line) for line in lines))
