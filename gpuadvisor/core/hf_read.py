"""Reading one field of a Hugging Face ``config.json`` (or a catalog table) safely.

Shared by :mod:`.hf_config`, :mod:`.hf_families` and :mod:`.hf_extras`: every value is
checked for its type and size before any arithmetic sees it, and every error is one line
naming the file's own key (``text_config.hidden_size``), never a traceback. Nothing here
imports ModelSpec.
"""

from __future__ import annotations

_TYPE_WORDS = {
    "int": "an integer",
    "float": "a number",
    "bool": "true or false",
    "str": "a string",
    "dict": "a table",
    "list": "a list",
}
#: Largest integer a config.json field may hold (architecture numbers stay far below).
MAX_CONFIG_INT = 2**31 - 1


def checked_value(where: str, key: str, value: object, type_name: str) -> object:
    """Return ``value`` if it has the type a field needs (ints widen to float).

    Shared by config.json fields and catalog tables (:func:`~.model.spec_from_table`).

    Raises:
        ValueError: naming ``where`` and the field when the type is wrong.
    """
    is_bool = isinstance(value, bool)
    if type_name == "bool":
        ok = is_bool
    elif type_name == "int":
        ok = isinstance(value, int) and not is_bool
    elif type_name == "float":
        ok = isinstance(value, int | float) and not is_bool
        value = float(value) if ok else value
    elif type_name == "list":
        ok = isinstance(value, list)
    else:
        ok = isinstance(value, str if type_name == "str" else dict)
    if not ok:
        shown = repr(value)
        if len(shown) > 60:
            shown = shown[:57] + "..."
        raise ValueError(f"{where}: field '{key}' must be {_TYPE_WORDS[type_name]}, got {shown}")
    return value


class Reader:
    """Typed access to one (possibly nested) config.json table.

    Args:
        config: the table.
        where: the file as messages name it, e.g. ``config.json (model_type 'gemma3')``.
        prefix: the table's path inside the file (``"text_config."``) for messages.
    """

    def __init__(self, config: dict, where: str, prefix: str = "") -> None:
        self.config = config
        self.where = where
        self.prefix = prefix

    def name(self, key: str) -> str:
        """The key as the file spells it, with the table's path."""
        return f"{self.prefix}{key}"

    def has(self, key: str) -> bool:
        """True when the key is present and not null."""
        return self.config.get(key) is not None

    def _get(self, key: str, type_name: str, default: object):
        value = self.config.get(key)
        if value is None:
            if default is None:
                raise ValueError(f"{self.where}: missing field '{self.name(key)}'")
            return default
        return checked_value(self.where, self.name(key), value, type_name)

    def int(self, key: str, default: int | None = None, *, minimum: int = 0) -> int:
        """An integer field (``default`` when absent or null; missing is an error without).

        Raises:
            ValueError: missing without default, not an integer, below ``minimum`` or above
                :data:`MAX_CONFIG_INT`.
        """
        value = self._get(key, "int", default)
        if value > MAX_CONFIG_INT:
            raise ValueError(f"{self.where}: field '{self.name(key)}' is too large "
                             f"(more than {MAX_CONFIG_INT:,})")
        if value < minimum:
            raise ValueError(f"{self.where}: field '{self.name(key)}' must be at least "
                             f"{minimum}, got {value}")
        return value

    def first_int(self, keys: tuple[str, ...], default: int | None = None, **kw) -> int:
        """The first of ``keys`` present (configs spell some numbers several ways)."""
        for key in keys:
            if self.has(key):
                return self.int(key, **kw)
        if default is None:
            raise ValueError(f"{self.where}: missing field '{self.name(keys[0])}'")
        return default

    def bool(self, key: str, default: bool) -> bool:
        """A true/false field (``default`` when absent or null)."""
        return self._get(key, "bool", default)

    def float(self, key: str, default: float) -> float:
        """A number field (``default`` when absent or null)."""
        return self._get(key, "float", default)

    def str(self, key: str, default: str) -> str:
        """A string field (``default`` when absent or null)."""
        return self._get(key, "str", default)

    def table(self, key: str) -> Reader | None:
        """A nested table as a Reader (None when absent or null)."""
        if not self.has(key):
            return None
        value = checked_value(self.where, self.name(key), self.config[key], "dict")
        return Reader(value, self.where, f"{self.name(key)}.")

    def list(self, key: str, item: str = "int", length: int | None = None) -> list | None:
        """A list field whose items have type ``item`` (None when absent or null).

        Raises:
            ValueError: not a list, an item of the wrong type, or not ``length`` items.
        """
        if not self.has(key):
            return None
        values = checked_value(self.where, self.name(key), self.config[key], "list")
        if length is not None and len(values) != length:
            raise ValueError(f"{self.where}: field '{self.name(key)}' must have {length} "
                             f"entries (one per layer), got {len(values)}")
        for value in values:
            checked_value(self.where, self.name(key) + "[]", value, item)
        return values


__all__ = ["MAX_CONFIG_INT", "Reader", "checked_value"]
