"""A sentence with the template and values it was made from, so a window can say it in its
own language while the CLI and JSON keep the English text."""

from __future__ import annotations

from typing import Any


class Phrase(str):
    """A sentence the estimator or a check writes: the English text itself, with the template
    and values it was made from (``Phrase("n_ctx {n} (the log does not print it)",
    n="4,096")``). A value may itself be a Phrase, translated in turn."""

    template: str
    args: dict

    def __new__(cls, template: str, **args: Any) -> Phrase:
        self = super().__new__(cls, template.format(**args))
        self.template, self.args = template, args
        return self

    def __reduce__(self):
        # copy and pickle rebuild from the template and values, not from the English text,
        # which may hold a literal brace (a value such as "{n}" or a JSON excerpt)
        return _rebuild, (self.template, self.args)


def _rebuild(template: str, args: dict) -> Phrase:
    return Phrase(template, **args)


__all__ = ["Phrase"]
