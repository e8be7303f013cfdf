"""A griffe extension that shows the library's plain docstrings as Markdown on the API pages.

The docstrings are written for people reading the code: Sphinx roles
(``:class:`Position```), RST literals and doctest lines (``>>> ...``). On the
documentation site a role becomes inline code and a run of doctest lines a
Python console block (Markdown would read ``>>>`` as nested quotes). The
docstrings themselves are never changed; mkdocs.yml loads this file.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|attr|data|exc|obj|const):`~?\.?([^`]+)`")


def plain(text: str) -> str:
    """The docstring ``text`` in Markdown: roles as code, doctest runs fenced."""
    text = ROLE.sub(r"`\1`", text)
    out: list[str] = []
    in_doctest = False
    for line in text.splitlines():
        stripped = line.lstrip()
        if not in_doctest and stripped.startswith(">>>"):
            out += ["", "```pycon"]
            in_doctest = True
        elif in_doctest and not stripped:
            out.append("```")
            in_doctest = False
        out.append(stripped if in_doctest else line)
    if in_doctest:
        out.append("```")
    return "\n".join(out)


class PlainDocstrings(griffe.Extension):
    """Rewrite every docstring once it is loaded."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = plain(obj.docstring.value)
