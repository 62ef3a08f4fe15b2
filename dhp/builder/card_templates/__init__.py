"""Dataset card templates of the six DHP datasets (Jinja2), rendered by :mod:`dhp.builder.cards`."""

from __future__ import annotations

from importlib.resources import files

__all__ = ["CARD_TEMPLATE", "template_text"]

CARD_TEMPLATE = "dataset_card.md.j2"


def template_text(name: str = CARD_TEMPLATE) -> str:
    """The text of a template shipped in this package."""
    return files(__name__).joinpath(name).read_text(encoding="utf-8")
