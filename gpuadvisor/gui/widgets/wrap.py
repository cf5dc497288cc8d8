"""Word-wrapped labels that keep a number with its unit: "936 GB/s", "(8.6 GiB free)".

A wrapped label breaks at any space and after a slash: a tile read "936 GB/" / "s" and a
projector's banner "(8.6" / "GiB free)". :func:`keep_units` binds them for display;
:func:`plain` gives the text back with plain spaces (what tests, the clipboard and
screen readers get).
"""

from __future__ import annotations

import re

#: U+00A0, a space no line breaks at; U+2060, a joiner that keeps "GB/s" and "n/a" whole
#: (a line may break after a slash).
NBSP, WORD_JOINER = "\u00a0", "\u2060"
#: A number and the unit after it: "936 GB/s", "90 °C", "23.5 GiB", "350 W", "3 %".
_NUMBER_UNIT = re.compile(
    r"(?<=\d) (?=(?:[KMGTP]i?B|kB|B|W|°C|°F|[kMG]?Hz|%|TFLOPS|ms|s|h|min|V|RPM|rpm)"
    r"(?![A-Za-z]))")
#: A short word, a slash and a short word, with no space: "GB/s", "n/a" (not a path).
_SHORT_SLASH = re.compile(r"(?<![\w/])(\w{1,3})/(\w{1,3})(?![\w/])")


def keep_units(text: str) -> str:
    """``text`` for a word-wrapped label: a number stays on the line of its unit and
    "GB/s" and "n/a" stay whole. Display only: :func:`plain` gives the text back."""
    text = _NUMBER_UNIT.sub(NBSP, text)
    return _SHORT_SLASH.sub(rf"\1/{WORD_JOINER}\2", text)


def plain(text: str) -> str:
    """A label's text as :func:`keep_units` had it: plain spaces, no joiners."""
    return text.replace(NBSP, " ").replace(WORD_JOINER, "")


__all__ = ["NBSP", "WORD_JOINER", "keep_units", "plain"]
