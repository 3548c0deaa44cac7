"""The kinds of debug pod: which accelerator it is for, what it does (smi or shell), and how its container
gets to see the node's devices (the strategy)."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Accelerator", "Mode", "Strategy", "attempts"]


class Strategy(StrEnum):
    """How the container gets to see the node's GPUs (always reported in the output)."""

    #: privileged + NVIDIA_VISIBLE_DEVICES=all: every GPU, used or not, allocates nothing. Needs a runtime that
    #: honours the variable for privileged containers (Bottlerocket does; see README "Debug pods").
    PRIVILEGED_ALL = "privileged-all"
    #: a `nvidia.com/gpu: 1` limit: the device plugin injects one free GPU. Only when one is free.
    REQUEST = "request"
    #: privileged-all, then request when the container saw no device.
    AUTO = "auto"


class Accelerator(StrEnum):
    NVIDIA = "nvidia"
    NEURON = "neuron"


class Mode(StrEnum):
    SMI = "smi"  # run the collector, exit
    SHELL = "shell"  # stay up for `kubectl exec`


def attempts(strategy: Strategy) -> tuple[Strategy, ...]:
    """The concrete strategies to try, in order."""
    if strategy is Strategy.AUTO:
        return (Strategy.PRIVILEGED_ALL, Strategy.REQUEST)
    return (strategy,)
