"""A minimal protobuf wire decoder for the Pod that `kubectl debug node/X` POSTs (and the
SelfSubjectAccessReview of `kubectl auth can-i`).

kubectl sends `Content-Type: application/vnd.kubernetes.protobuf` for that create and never falls back to
JSON, so the fake API server must read it. The body is the magic `k8s\\x00` followed by a `runtime.Unknown`
(1 typeMeta{1 apiVersion, 2 kind}, 2 raw, 3 contentEncoding, 4 contentType) whose `raw` is the `Pod`.

Field numbers come from k8s.io/api/core/v1/generated.proto and apimachinery's meta/v1 generated.proto. Only
the fields a test compares are described; everything else is skipped by wire type.

The Go marshaller always writes non-pointer fields (`""`, `false`, `0`, empty messages); JSON would omit
them (`omitempty`). So zero values are dropped unless the Go field is a pointer (`*bool`, `*int64`, a
pointer struct), where "set to false/0" is meaningful and kept, exactly as the JSON encoding would.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MAGIC = b"k8s\x00"
PROTOBUF_CONTENT_TYPE = "application/vnd.kubernetes.protobuf"


class ProtobufError(ValueError):
    """The body is not a well-formed Kubernetes protobuf envelope."""


@dataclass(frozen=True)
class F:
    """One field of a message: its JSON name and how to decode it.

    kind: "str", "bool", "int" (signed varint), "msg" (needs `schema`), "map" (string to string entries) or
    "inline" (a message whose fields are merged into the parent, like `Volume.volumeSource`).
    """

    name: str
    kind: str
    schema: Schema | None = None
    repeated: bool = False
    pointer: bool = False


Schema = dict[int, F]

TYPE_META: Schema = {1: F("apiVersion", "str"), 2: F("kind", "str")}
UNKNOWN: Schema = {
    1: F("typeMeta", "msg", TYPE_META),
    2: F("raw", "bytes"),
    3: F("contentEncoding", "str"),
    4: F("contentType", "str"),
}
OBJECT_META: Schema = {
    1: F("name", "str"),
    2: F("generateName", "str"),
    3: F("namespace", "str"),
    5: F("uid", "str"),
    6: F("resourceVersion", "str"),
    11: F("labels", "map"),
    12: F("annotations", "map"),
    14: F("finalizers", "str", repeated=True),
}
ENV_VAR: Schema = {1: F("name", "str"), 2: F("value", "str")}
CAPABILITIES: Schema = {1: F("add", "str", repeated=True), 2: F("drop", "str", repeated=True)}
SECURITY_CONTEXT: Schema = {
    1: F("capabilities", "msg", CAPABILITIES, pointer=True),
    2: F("privileged", "bool", pointer=True),
    4: F("runAsUser", "int", pointer=True),
    5: F("runAsNonRoot", "bool", pointer=True),
    6: F("readOnlyRootFilesystem", "bool", pointer=True),
    7: F("allowPrivilegeEscalation", "bool", pointer=True),
    8: F("runAsGroup", "int", pointer=True),
}
VOLUME_MOUNT: Schema = {
    1: F("name", "str"),
    2: F("readOnly", "bool"),
    3: F("mountPath", "str"),
    4: F("subPath", "str"),
    5: F("mountPropagation", "str", pointer=True),
}
CONTAINER: Schema = {
    1: F("name", "str"),
    2: F("image", "str"),
    3: F("command", "str", repeated=True),
    4: F("args", "str", repeated=True),
    5: F("workingDir", "str"),
    7: F("env", "msg", ENV_VAR, repeated=True),
    9: F("volumeMounts", "msg", VOLUME_MOUNT, repeated=True),
    13: F("terminationMessagePath", "str"),
    14: F("imagePullPolicy", "str"),
    15: F("securityContext", "msg", SECURITY_CONTEXT, pointer=True),
    16: F("stdin", "bool"),
    17: F("stdinOnce", "bool"),
    18: F("tty", "bool"),
    20: F("terminationMessagePolicy", "str"),
}
HOST_PATH: Schema = {1: F("path", "str"), 2: F("type", "str", pointer=True)}
EMPTY_DIR: Schema = {1: F("medium", "str")}
VOLUME_SOURCE: Schema = {
    1: F("hostPath", "msg", HOST_PATH, pointer=True),
    2: F("emptyDir", "msg", EMPTY_DIR, pointer=True),
}
VOLUME: Schema = {1: F("name", "str"), 2: F("volumeSource", "inline", VOLUME_SOURCE)}
TOLERATION: Schema = {
    1: F("key", "str"),
    2: F("operator", "str"),
    3: F("value", "str"),
    4: F("effect", "str"),
    5: F("tolerationSeconds", "int", pointer=True),
}
POD_SPEC: Schema = {
    1: F("volumes", "msg", VOLUME, repeated=True),
    2: F("containers", "msg", CONTAINER, repeated=True),
    3: F("restartPolicy", "str"),
    4: F("terminationGracePeriodSeconds", "int", pointer=True),
    5: F("activeDeadlineSeconds", "int", pointer=True),
    6: F("dnsPolicy", "str"),
    7: F("nodeSelector", "map"),
    8: F("serviceAccountName", "str"),
    10: F("nodeName", "str"),
    11: F("hostNetwork", "bool"),
    12: F("hostPID", "bool"),
    13: F("hostIPC", "bool"),
    19: F("schedulerName", "str"),
    20: F("initContainers", "msg", CONTAINER, repeated=True),
    21: F("automountServiceAccountToken", "bool", pointer=True),
    22: F("tolerations", "msg", TOLERATION, repeated=True),
    24: F("priorityClassName", "str"),
    30: F("enableServiceLinks", "bool", pointer=True),
}
POD_STATUS: Schema = {1: F("phase", "str")}
POD: Schema = {
    1: F("metadata", "msg", OBJECT_META),
    2: F("spec", "msg", POD_SPEC),
    3: F("status", "msg", POD_STATUS),
}
# authorization/v1 generated.proto: what `kubectl auth can-i` POSTs, also as protobuf.
RESOURCE_ATTRIBUTES: Schema = {
    1: F("namespace", "str"),
    2: F("verb", "str"),
    3: F("group", "str"),
    4: F("version", "str"),
    5: F("resource", "str"),
    6: F("subresource", "str"),
    7: F("name", "str"),
}
NON_RESOURCE_ATTRIBUTES: Schema = {1: F("path", "str"), 2: F("verb", "str")}
SSAR_SPEC: Schema = {
    1: F("resourceAttributes", "msg", RESOURCE_ATTRIBUTES, pointer=True),
    2: F("nonResourceAttributes", "msg", NON_RESOURCE_ATTRIBUTES, pointer=True),
}
SELF_SUBJECT_ACCESS_REVIEW: Schema = {1: F("metadata", "msg", OBJECT_META), 2: F("spec", "msg", SSAR_SPEC)}

SCHEMAS: dict[tuple[str, str], Schema] = {
    ("v1", "Pod"): POD,
    ("authorization.k8s.io/v1", "SelfSubjectAccessReview"): SELF_SUBJECT_ACCESS_REVIEW,
}


def read_varint(buf: bytes, pos: int) -> tuple[int, int]:
    """Return (value, next position) of the base-128 varint at `pos`."""
    value = shift = 0
    while True:
        if pos >= len(buf):
            raise ProtobufError("truncated varint")
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7
        if shift > 63:
            raise ProtobufError("varint longer than 10 bytes")


def iter_fields(buf: bytes) -> list[tuple[int, int, int | bytes]]:
    """Split a message into (field number, wire type, value): an int for varints and fixed widths, the
    payload bytes for length-delimited fields."""
    out: list[tuple[int, int, int | bytes]] = []
    pos = 0
    while pos < len(buf):
        key, pos = read_varint(buf, pos)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise ProtobufError("field number 0")
        value: int | bytes
        if wire == 0:
            value, pos = read_varint(buf, pos)
        elif wire == 1 or wire == 5:
            width = 8 if wire == 1 else 4
            if pos + width > len(buf):
                raise ProtobufError("truncated fixed-width field")
            value, pos = int.from_bytes(buf[pos : pos + width], "little"), pos + width
        elif wire == 2:
            length, pos = read_varint(buf, pos)
            if pos + length > len(buf):
                raise ProtobufError(f"field {number} runs past the end of its message")
            value, pos = buf[pos : pos + length], pos + length
        else:
            raise ProtobufError(f"unsupported wire type {wire} (field {number})")
        out.append((number, wire, value))
    return out


def _scalar(spec: F, wire: int, value: int | bytes) -> Any:
    if spec.kind in ("str", "bytes", "msg", "map", "inline"):
        if not isinstance(value, bytes):
            raise ProtobufError(f"{spec.name}: expected a length-delimited field, got wire type {wire}")
        if spec.kind == "str":
            return value.decode("utf-8")
        if spec.kind == "bytes":
            return value
        if spec.kind == "map":
            entry = decode_message(value, {1: F("key", "str"), 2: F("value", "str", pointer=True)})
            return entry.get("key", ""), entry.get("value", "")
        assert spec.schema is not None
        return decode_message(value, spec.schema)
    if not isinstance(value, int):
        raise ProtobufError(f"{spec.name}: expected a varint, got wire type {wire}")
    if spec.kind == "bool":
        return value != 0
    return value - (1 << 64) if value >= 1 << 63 else value  # int32/int64 are two's complement varints


def _is_zero(value: Any) -> bool:
    return value in ("", False, 0, b"") or value == {}


def decode_message(buf: bytes, schema: Schema) -> dict[str, Any]:
    """Decode `buf` into the JSON-shaped dict the same object would have in the Kubernetes JSON encoding."""
    out: dict[str, Any] = {}
    for number, wire, raw in iter_fields(buf):
        spec = schema.get(number)
        if spec is None:
            continue
        value = _scalar(spec, wire, raw)
        if spec.kind == "inline":
            out.update(value)
        elif spec.kind == "map":
            out.setdefault(spec.name, {})[value[0]] = value[1]
        elif spec.repeated:
            out.setdefault(spec.name, []).append(value)
        elif spec.pointer or not _is_zero(value):
            out[spec.name] = value
    return out


def decode_envelope(body: bytes) -> tuple[str, str, bytes]:
    """Return (apiVersion, kind, raw object bytes) of a `k8s\\x00` + runtime.Unknown body."""
    if not body.startswith(MAGIC):
        raise ProtobufError("missing the k8s\\x00 magic prefix")
    unknown = decode_message(body[len(MAGIC) :], UNKNOWN)
    if unknown.get("contentEncoding"):
        raise ProtobufError(f"unsupported contentEncoding {unknown['contentEncoding']!r}")
    type_meta = unknown.get("typeMeta", {})
    return type_meta.get("apiVersion", ""), type_meta.get("kind", ""), unknown.get("raw", b"")


def decode_object(body: bytes) -> dict[str, Any]:
    """Decode a protobuf-encoded object (with its envelope) of a kind in `SCHEMAS` into its JSON form."""
    api_version, kind, raw = decode_envelope(body)
    schema = SCHEMAS.get((api_version, kind))
    if schema is None:
        raise ProtobufError(f"no protobuf schema for {api_version or '?'} {kind or '?'}")
    return {"apiVersion": api_version, "kind": kind, **decode_message(raw, schema)}


def decode_pod(body: bytes) -> dict[str, Any]:
    """Decode a protobuf-encoded v1 Pod (with its envelope) into its JSON form."""
    obj = decode_object(body)
    if obj["kind"] != "Pod":
        raise ProtobufError(f"expected a v1 Pod, got {obj['apiVersion']} {obj['kind']}")
    return obj
