"""Messages shared by the app and its screens: a refresh done or failed, "show this object's YAML or
events" and "debug this node" (from a screen that is not the main one)."""

from __future__ import annotations

import threading

from textual.message import Message

from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.tui.config import TuiConfig
from kubectl_gpu.tui.data import Refresh
from kubectl_gpu.tui.views.base import ViewModel

__all__ = ["DataLoaded", "DebugNode", "LoadFailed", "ShowObject", "ViewsBuilt"]


class DataLoaded(Message):
    """A refresh finished: its `Refresh` and every view's model, for the config it read."""

    def __init__(
        self,
        generation: int,
        config: TuiConfig,
        refresh: Refresh,
        models: dict[str, ViewModel],
        drawn: threading.Event | None = None,
    ) -> None:
        super().__init__()
        self.generation = generation
        self.config = config
        self.refresh = refresh
        self.models = models
        #: set once the screen shows it: the worker builds the other views after, not while it draws
        self.drawn = drawn


class ViewsBuilt(Message):
    """The first refresh's other views, built after its first screen (`DataLoaded` had placeholders)."""

    def __init__(self, generation: int, refresh: Refresh, models: dict[str, ViewModel]) -> None:
        super().__init__()
        self.generation = generation
        self.refresh = refresh
        self.models = models


class LoadFailed(Message):
    """A refresh failed; the data shown (if any) is older."""

    def __init__(self, generation: int, config: TuiConfig, error: str, *, unexpected: bool = False) -> None:
        super().__init__()
        self.generation = generation
        self.config = config
        self.error = error
        self.unexpected = unexpected


class ShowObject(Message):
    """Open the object's page: `yaml` or `events`."""

    def __init__(self, ref: ObjectRef, what: str) -> None:
        super().__init__()
        self.ref = ref
        self.what = what


class DebugNode(Message):
    """`s` (`what` smi) or `x` (shell) on a node, from a page about it (the app asks first)."""

    def __init__(self, node: str, what: str) -> None:
        super().__init__()
        self.node = node
        self.what = what
