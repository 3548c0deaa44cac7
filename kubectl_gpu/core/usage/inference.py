"""Which inference server a `/metrics` text comes from, and its token counters. Pure.

The counters, as each server documents them (cumulative since the server started):

| server | output tokens | prompt tokens |
| --- | --- | --- |
| vLLM | `vllm:generation_tokens_total` | `vllm:prompt_tokens_total` |
| SGLang | `sglang:generation_tokens_total` | `sglang:prompt_tokens_total` |
| TGI | `tgi_request_generated_tokens_sum` (histogram sum) | `tgi_request_input_length_sum` |
| TensorRT-LLM (Triton backend) | `nv_llm_output_token_len_sum` | `nv_llm_input_token_len_sum` |
| NVIDIA NIM for LLMs | `generation_tokens_total` | `prompt_tokens_total` |
| Triton (other backends) | none: `nv_inference_count` counts inferences, not tokens | |

A NIM built on vLLM exports vLLM's names: the adapter's `server` hint ("nim") is kept then. Counters are
summed over their label sets (engines, models) of one pod. A text that matches none of these is
"not recognised"; a recognised server without a token counter says so.

Behind another front door the same counters come under a prefix: Ray Serve LLM re-exports vLLM's through
`ray.util.metrics`, which names every metric `ray_<name>` (`ray_vllm:generation_tokens_total`, as Ray's own
Serve LLM dashboards query it); other gateways prefix the same way. A name is read as a server's when it is
the documented name or that name behind a prefix ending in `_` or `:` (`<gateway>_vllm:...`); the
unprefixed name wins when both are there, and one prefix is read per counter, never two summed. A series
that looks like a token counter (`..._tokens_total`, `..._tokens_sum`) and was not read is named in
`unread`, so a server that counts tokens under another name is never told to expose them.

A counter is never below 0 and counts whole tokens: a series below 0, or at 2^53 or above (where a float
no longer counts one by one; a server at a million tokens a second takes 285 years to get there), is not
believed and counted in `rejected`; the counter is then unknown in that read (a sum without one of its
series would read as a reset), as it is when one of its series was NaN or infinite (`distrusted`: the
server is still one that counts tokens, its rate is unknown).
"""

from __future__ import annotations

import math
from typing import Final

import msgspec

from kubectl_gpu.core.lazy_pattern import lazy_pattern
from kubectl_gpu.core.usage.metrics import Metrics

__all__ = ["MAX_TOKENS", "SERVER_NAMES", "TokenReading", "token_reading"]

SERVER_NAMES: Final = {
    "vllm": "vLLM",
    "sglang": "SGLang",
    "tgi": "TGI",
    "trtllm": "TensorRT-LLM",
    "triton": "Triton",
    "nim": "NVIDIA NIM",
}

# server -> (output counter, prompt counter, {labels the series must carry})
_COUNTERS: Final[dict[str, tuple[str, str, dict[str, str]]]] = {
    "vllm": ("vllm:generation_tokens_total", "vllm:prompt_tokens_total", {}),
    "sglang": ("sglang:generation_tokens_total", "sglang:prompt_tokens_total", {}),
    "tgi": ("tgi_request_generated_tokens_sum", "tgi_request_input_length_sum", {}),
    "trtllm": ("nv_llm_output_token_len_sum", "nv_llm_input_token_len_sum", {}),
    "nim": ("generation_tokens_total", "prompt_tokens_total", {}),
}


class TokenReading(msgspec.Struct, frozen=True):
    """What one scrape of one server says: which server (None: not recognised) and its token counters."""

    server: str | None
    output_tokens: float | None
    prompt_tokens: float | None
    model: str | None = None
    rejected: int = 0  # counter series not believed (below 0, or past MAX_TOKENS)
    distrusted: bool = False  # a token counter was there but not believed (rejected, or NaN, an infinity)
    unread: str | None = None  # a series that looks like a token counter but was not read (its name)


#: The largest token counter believed (exclusive).
MAX_TOKENS = float(2**53)


# A token counter by its look: `vllm:generation_tokens_total`, `ray_serve_llm_tokens_generated`.
_TOKEN_LIKE: Final = lazy_pattern(
    r"(?:^|[_:])(?:(?:generation|generated|output|completion|prompt|input)_tokens?"
    r"|tokens?_(?:generated|input|output|prompt))(?:_total|_sum)?$"
)


def _behind(name: str, candidate: str) -> bool:
    """Whether `candidate` is `name`, or `name` behind a gateway prefix ending in `_` or `:`."""
    if candidate == name:
        return True
    return candidate.endswith(name) and candidate[-len(name) - 1] in "_:"


def _served_name(metrics: Metrics, name: str) -> str:
    """The name `name` is exported under: itself when present, else one prefixed form (sorted, so stable)."""
    if metrics.get(name):
        return name
    bare = name.removesuffix("_total")
    for found in sorted(metrics.by_name):
        if _behind(name, found) or _behind(bare, found):
            return found
    return name


def _namespaced(metrics: Metrics, namespace: str) -> bool:
    """Whether some series is in `namespace` (`vllm:`), directly or behind a gateway prefix (`ray_vllm:`)."""
    return any(
        n.startswith(namespace) or f"_{namespace}" in n or f":{namespace}" in n for n in metrics.by_name
    )


def _counter(metrics: Metrics, name: str, labels: dict[str, str]) -> tuple[float | None, int]:
    """The sum of the counter's series that carry `labels`, and how many series were not believed."""
    name = _served_name(metrics, name)
    values = [s.value for s in metrics.get(name) if all(s.labels.get(k) == v for k, v in labels.items())]
    good = [v for v in values if 0 <= v < MAX_TOKENS]
    rejected = len(values) - len(good)
    return (math.fsum(good) if good and not rejected else None), rejected


def _recognise(metrics: Metrics, hint: str | None) -> str | None:
    if _namespaced(metrics, "vllm:"):
        return "nim" if hint == "nim" else "vllm"
    if _namespaced(metrics, "sglang:"):
        return "sglang"
    if metrics.has_prefix("tgi_"):
        return "tgi"
    if metrics.get("nv_llm_output_token_len_sum") or metrics.has_prefix("nv_trt_llm_"):
        return "trtllm"
    if metrics.has_prefix("nv_inference_"):
        return "triton"
    if metrics.get("generation_tokens_total") and metrics.get("num_requests_running"):
        return "nim"
    return hint if hint in SERVER_NAMES else None


def _model(metrics: Metrics, counter: str) -> str | None:
    counter = _served_name(metrics, counter)
    names = {s.labels.get("model_name") or s.labels.get("model") for s in metrics.get(counter)}
    names.discard(None)
    return next(iter(names)) if len(names) == 1 else None


def token_reading(metrics: Metrics, hint: str | None = None) -> TokenReading:
    """The server behind `metrics` (`hint`: what the adapter guessed from the pod) and its counters."""
    server = _recognise(metrics, hint)
    if server is None:
        return TokenReading(None, None, None, unread=_unread(metrics, ()))
    if server == "nim" and _namespaced(metrics, "vllm:"):
        output, prompt, labels = _COUNTERS["vllm"]
    elif server in _COUNTERS:
        output, prompt, labels = _COUNTERS[server]
    else:
        return TokenReading(server, None, None, unread=_unread(metrics, ()))
    output_tokens, output_rejected = _counter(metrics, output, labels)
    prompt_tokens, prompt_rejected = _counter(metrics, prompt, labels)
    rejected = output_rejected + prompt_rejected
    distrusted = bool(rejected) or metrics.had_unusable(output) or metrics.had_unusable(prompt)
    if distrusted:  # a sum without one of its series is no count of the server's tokens
        output_tokens = None if output_rejected or metrics.had_unusable(output) else output_tokens
        prompt_tokens = None if prompt_rejected or metrics.had_unusable(prompt) else prompt_tokens
    unread = None if output_tokens is not None or distrusted else _unread(metrics, (output, prompt))
    return TokenReading(
        server, output_tokens, prompt_tokens, _model(metrics, output), rejected, distrusted, unread
    )


def _unread(metrics: Metrics, read: tuple[str, ...]) -> str | None:
    """The first series (sorted) that looks like a token counter and is none of the counters `read`."""
    served = {_served_name(metrics, name) for name in read}
    for name in sorted(metrics.by_name):
        if _TOKEN_LIKE.search(name) and name not in served and name.removesuffix("_total") not in served:
            return name
    return None
