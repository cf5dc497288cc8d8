"""Quoting for the exports: every value from outside goes through its format's quoting.

Names in the exports come from catalogs, config files and flags, so they may hold a
newline, a quote, ``{``, ``$(``, ``#`` or a Unicode line separator. A raw newline in a YAML
or shell comment would end the comment and start a key or a command of the attacker's
choosing; so every text goes through one of these:

* :func:`comment_text` — the text of a ``#`` comment (YAML and shell): every control,
  format, line- or paragraph-separator character is written as a visible escape
  (``\\n``, ``\\u2028``), so the comment stays one line in every reader.
* :func:`yaml_string` — a YAML double-quoted scalar that PyYAML (YAML 1.1) and YAML 1.2
  readers both read back as the same string, non-BMP characters and lone surrogates
  included.
* :func:`shell_word` — one POSIX shell word (:func:`shlex.quote`); text that cannot be
  written as UTF-8 is refused (``ValueError``) rather than written half.
* HTML uses :func:`html.escape`, Markdown the report's own escaping (:mod:`.report`).
"""

from __future__ import annotations

import json
import shlex
import unicodedata

#: Characters some reader takes for a line break: YAML 1.1 (``\x85``, U+2028, U+2029),
#: Python's ``splitlines`` (``\v``, ``\f``, ``\x1c``-``\x1e``), and ``\r``/``\n``.
LINE_BREAKS = frozenset("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else (
        f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")


def _hidden(char: str) -> bool:
    """Whether ``char`` must not appear raw in a comment: control (Cc), format (Cf: bidi
    overrides, zero-width), line or paragraph separator, surrogate, or unassigned."""
    return char in LINE_BREAKS or unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp", "Cs",
                                                                 "Cn")


def comment_text(text: object) -> str:
    """``text`` made safe for the inside of a ``#`` comment: one line, every hidden
    character shown as an escape (a backslash stays a backslash)."""
    return "".join(_escape(c) if _hidden(c) else c for c in str(text))


def _yaml_unprintable(char: str) -> bool:
    """Characters a YAML stream must not hold raw (YAML 1.1 ``printable``), plus the line
    breaks YAML 1.1 knows and the byte-order mark (a tab and ``\\n`` are fine)."""
    code = ord(char)
    if char in "\t\n":
        return False
    return (char in "\x85\u2028\u2029\ufeff" or code < 0x20 or 0x7F <= code < 0xA0
            or 0xD800 <= code < 0xE000 or code in (0xFFFE, 0xFFFF))


def yaml_string(text: str) -> str:
    """``text`` as a YAML double-quoted scalar that reads back exactly.

    JSON's escaping is valid YAML escaping; characters outside the Basic Multilingual Plane
    are written raw (PyYAML would read a JSON surrogate pair as two characters) and the
    characters YAML may not hold raw as ``\\uXXXX``.
    """
    quoted = json.dumps(text, ensure_ascii=False)
    return "".join(_escape_yaml(c) if _yaml_unprintable(c) else c for c in quoted)


def _escape_yaml(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def literal_block_safe(text: str) -> bool:
    """Whether ``text`` can be a YAML literal block (``|``) that reads back exactly: no
    character YAML may not hold raw or takes for a line break besides ``\\n``, and no
    line of only blanks (the block writer empties those; empty lines are fine)."""
    if any(_yaml_unprintable(c) for c in text):
        return False
    lines = text.rstrip("\n").split("\n")
    first = next((line for line in lines if line), "")
    if lines[0] == "" and first[:1] == " ":
        return False  # YAML would take the indentation from that line, not from ours
    return all(line.strip() or not line for line in lines)


def shell_word(text: object) -> str:
    """``text`` as one POSIX shell word (single-quoted unless it is plainly safe).

    Raises:
        ValueError: text that cannot be written as UTF-8 (a lone surrogate from a file name
            that was not UTF-8); the shell word would be wrong.
    """
    word = str(text)
    try:
        word.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{word.encode('utf-8', 'backslashreplace').decode()!r} is not "
                         "valid UTF-8 text and cannot be written into a shell script") from None
    return shlex.quote(word)


__all__ = ["LINE_BREAKS", "comment_text", "literal_block_safe", "shell_word", "yaml_string"]
