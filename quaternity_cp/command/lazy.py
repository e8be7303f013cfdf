"""A command group whose commands are imported when first used, so that one command loads no other's module."""

from __future__ import annotations

import importlib
from typing import Any, Mapping

import click


class LazyGroup(click.Group):
    """A click group whose commands may be given as ``"module:attribute"`` (``lazy``), imported on first use.

    ``quaternity <game> check`` then loads neither the solver nor the explainer nor any other command's
    module. The commands are listed in the order given (``--help`` imports them all, for their one-line help).
    """

    def __init__(self, *args: Any, lazy: Mapping[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy: dict[str, str] = dict(lazy or {})

    def add_lazy_command(self, name: str, target: str) -> None:
        """Register the command ``name``, the attribute of a module written ``"module:attribute"``."""
        self.lazy[name] = target

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(dict.fromkeys([*self.lazy, *super().list_commands(ctx)]))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        command = super().get_command(ctx, name)
        if command is None and name in self.lazy:
            module, _, attribute = self.lazy[name].partition(":")
            loaded = getattr(importlib.import_module(module), attribute)
            if not isinstance(loaded, click.Command):
                raise TypeError(f"{self.lazy[name]} is not a click command")
            self.add_command(loaded, name)
            command = loaded
        return command


__all__ = ["LazyGroup"]
