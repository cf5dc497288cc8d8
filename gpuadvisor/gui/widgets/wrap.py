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
    r"(?<=\d) (?=(?:[KMGTP]i?B|kB|B|W|°C|°F|[kMG]?Hz|%|TFLOPS|ms|s|h|min|V|RPM|rpm|tokens?"
    r"|毫秒|秒|分钟|小时|天|年)(?![A-Za-z]))")
#: A short word, a slash and a short word, with no space: "GB/s", "n/a", "tokens/s",
#: "token/秒" (not a path).
#: A Chinese (Han) character: the CJK unified ideographs and their extension A.
_HAN = r"[\u3400-\u4dbf\u4e00-\u9fff]"
_SHORT_SLASH = re.compile(r"(?<![\w/])(\w{1,6})/(\w{1,3})(?![\w/])")


#: A short run of Chinese characters between Latin text, numbers, spaces or punctuation:
#: a word or a label ("已用 480.0 MiB", "（默认 350 W）", "64.0 毫秒"). A line may break
#: between any two Chinese characters, and split "已" / "用" or "毫" / "秒"; a longer run
#: is a phrase, and may still break inside it (else a sentence could not wrap at all).
_CJK_SHORT_RUN = re.compile(rf"(?<!{_HAN}){_HAN}{{2,4}}(?!{_HAN})")


#: The space between a short command-line flag and its number: "-np 11", "--gpus 2".
_FLAG_VALUE = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]{0,8}) (?=\d)")

#: A middle dot between a Latin word and a Chinese one: a unit ("GPU·时", GPU-hours).
_LATIN_DOT_CJK = re.compile(rf"(?<=[A-Za-z])·(?={_HAN})")

#: A command-line flag's leading dashes ("--gpus"): a line may break after a hyphen.
_FLAG = re.compile(r"(?<![\w-])--(?=\w)")
#: Full-width punctuation that ends a Chinese clause or sentence: no space follows it.
_CJK_STOP_SPACE = re.compile(r"(?<=[。！？；：，、）」』])[ \u00a0]+")


def cjk_spacing(text: str) -> str:
    """``text`` without the spaces that sentences joined in code leave after Chinese
    punctuation ("…计数。 可在" -> "…计数。可在"); English text is left as it is."""
    return _CJK_STOP_SPACE.sub("", text)


#: Two Chinese characters in a row: a line may break between any two.
_CJK_PAIR = re.compile(rf"(?<={_HAN})(?={_HAN})")


def cjk_words(text: str) -> str:
    """``text`` for a short wrapped label (a chart's badge): a run of Chinese characters
    stays whole, so that a line breaks at its punctuation or spaces ("最大可容纳序列长度：" /
    "44,448", not "最大可容纳序" / "列长度："). Display only: :func:`plain` gives it back."""
    return _CJK_PAIR.sub(WORD_JOINER, text)


def keep_cjk_words(text: str) -> str:
    """``text`` with its short runs of Chinese characters ("已用", "默认") and "GPU·时" kept
    whole on a wrapped line; rich text may go through it (English is left as it is).
    Display only: :func:`plain` gives it back."""
    text = _CJK_SHORT_RUN.sub(lambda m: WORD_JOINER.join(m.group()), text)
    return _LATIN_DOT_CJK.sub(f"{WORD_JOINER}·{WORD_JOINER}", text)


def keep_units(text: str) -> str:
    """``text`` for a word-wrapped label: a number stays on the line of its unit and
    "GB/s" and "n/a" stay whole, no space after Chinese punctuation (:func:`cjk_spacing`).
    Display only: :func:`plain` gives the text back."""
    text = _NUMBER_UNIT.sub(NBSP, cjk_spacing(text))
    text = keep_cjk_words(text)
    text = _FLAG_VALUE.sub(rf"\1{NBSP}", text)  # "-np 11" on one line
    text = _FLAG.sub(f"-{WORD_JOINER}-{WORD_JOINER}", text)  # "docker run --gpus" whole
    text = text.replace("★ =", f"★{NBSP}=")  # a key's mark stays with what it means
    return _SHORT_SLASH.sub(rf"\1/{WORD_JOINER}\2", text)


def plain(text: str) -> str:
    """A label's text as :func:`keep_units` had it: plain spaces, no joiners."""
    return text.replace(NBSP, " ").replace(WORD_JOINER, "")


__all__ = ["NBSP", "WORD_JOINER", "cjk_spacing", "cjk_words", "keep_cjk_words", "keep_units",
           "plain"]
