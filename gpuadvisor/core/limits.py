"""Bounds for every number that enters from outside, and a strict JSON reader (pure).

Flags, plan files, settings, catalogs, probe history and the probe worker's lines all bring
numbers the estimator multiplies together. A number is accepted only when it is a real
number (not a boolean, not NaN or infinite), whole where a count is meant, and inside a
physical range: no job has 10**400 GPUs, no model -500-wide heads. The ranges are generous
(ten or more times the largest real case) so they never refuse a real plan, and small
enough that products of them stay far from float overflow.

:func:`check` applies one :class:`Bound` and says what is wrong in the caller's words (the
flag or the file's key); :data:`PLAN_BOUNDS`, :data:`ASSUMPTION_BOUNDS`,
:data:`MODEL_BOUNDS` and :data:`MEASURED_BOUNDS` are the shared tables.
:func:`loads_json` reads JSON text the way user files and worker lines must be read:
no ``NaN``/``Infinity``, no number beyond a float, no nesting past a depth.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: Most GPUs in one job (the largest clusters have ~10**5).
MAX_GPUS = 1_048_576
#: Most tokens in one sequence (10M-token contexts exist; this is ~6x that).
MAX_SEQ_TOKENS = 2**26
#: Most sequences per micro-batch or accumulation steps per optimizer step.
MAX_BATCH = 1_048_576
#: Largest count a generic "positive whole number" flag takes (degrees, limits, cards).
MAX_COUNT = 1_048_576
#: Largest token/sample total of a data set (the largest published runs use ~4 x 10**13).
MAX_DATASET = 1e18
#: Deepest nesting a user file or a worker line may have (real ones use 4 or 5 levels).
MAX_JSON_DEPTH = 32
#: Longest run of digits read as a whole number from JSON (a float holds ~308).
MAX_JSON_INT_DIGITS = 30


# ------------------------------------------------------------- bytes read from outside files
# Every reader of a user's or a download's file reads at most this many bytes and refuses a
# larger file, naming it, before parsing a byte of it. With the JSON and TOML parsers at
# 0.4 s per MB of dense tokens or better on a 2-core laptop, each file is then judged in
# well under 2 seconds (tests/test_hostile_budgets.py reads hostile files of every size).
#: settings.json holds a few KB (window state, recent files, prices of your own).
MAX_SETTINGS_FILE_BYTES = 1 * 2**20
#: A .gpuplan is about 2 KB; a custom model's config inline adds under 100 KB.
MAX_PLAN_FILE_BYTES = 4 * 2**20
#: A config.json is a few KB; the largest real ones (quantized MoE models listing the
#: layers left unquantized) stay under 200 KB.
MAX_CONFIG_JSON_BYTES = 5 * 2**20
#: A probe-history file keeps at most 500 runs of a device, about 3 MB.
MAX_HISTORY_FILE_BYTES = 8 * 2**20
#: A catalog TOML (a user's own, or an update): the largest shipped one, gpus.toml, is
#: 193 KB; 2 MiB is ten times that and parses in under a second whatever it holds.
MAX_CATALOG_FILE_BYTES = 2 * 2**20
#: A PNG chart embedded in a report.
MAX_CHART_FILE_BYTES = 32 * 2**20
#: A model store's manifest or ref file (Ollama's manifests, the Hugging Face cache's refs):
#: a few hundred bytes each.
MAX_MANIFEST_FILE_BYTES = 1 * 2**20
#: An engine log given to ``check-log``: a server's start-up takes a few hundred lines (under
#: 100 KB); a day of request lines is a few MB. Read at about 20 MB/s by its line patterns.
MAX_LOG_BYTES = 16 * 2**20
#: One line from the probe worker: its results are a few KB (the largest, the data-read
#: probe's, under 20 KB); a longer line is a protocol error, read no further.
MAX_WORKER_LINE_BYTES = 1_000_000


# --------------------------------------------------------------------- a GGUF file header
# Checked by gpuadvisor/localmodels/gguf_file.py before any loop or allocation they govern; a
# declared count or length must also fit in the bytes left in the file. These bound what a
# huge (or sparse, all zeros) file could still declare; each is far above what real files hold.
#: A metadata key, in bytes: the GGUF specification's own limit ("at most 2^16-1 bytes",
#: ggml-org/ggml docs/gguf.md).
MAX_KEY_BYTES = 65_535
#: A tensor name, in bytes: ggml's GGML_MAX_NAME is 64; 65,535 keeps any writer's names.
MAX_TENSOR_NAME_BYTES = 65_535
#: A string value kept in memory (general.name, a chat template: tens of KB at most).
MAX_STRING_BYTES = 16 * 2**20
#: Metadata entries: llama.cpp's converter writes about 30 to 60 (the tokenizer's arrays are
#: one entry each); 65,536 is a thousand times that.
MAX_METADATA_ENTRIES = 65_536
#: Tensors: Llama 3.1 405B has 1,138 and DeepSeek-V3 1,025 (experts merged per layer);
#: 262,144 is a hundred times the largest.
MAX_TENSORS = 262_144
#: Elements of one array: the largest real ones are vocabularies and merges (Gemma 3:
#: 262,144 tokens; Llama 3: 280,147 merges); 4,194,304 is fifteen times that.
MAX_ARRAY_LENGTH = 4_194_304
#: Items read in the whole header (entries, array elements, tensors): a real header has under
#: a million (a vocabulary, its scores, types and merges); the header is refused past this,
#: so any file is judged in about two seconds.
MAX_HEADER_ITEMS = 8_388_608


class LimitError(ValueError):
    """A number or a document outside what gpuadvisor accepts; the text says which."""


@dataclass(frozen=True)
class Bound:
    """The range one number must fall in.

    Attributes:
        low: smallest value (see ``low_open``).
        high: largest value (inclusive).
        integer: whether the value must be a whole number (an ``int``, not ``2.0``).
        low_open: whether ``low`` itself is refused (``> 0`` rather than ``>= 0``).
        unit: unit for messages (``"bytes"``, ``"GB/s"``).
    """

    low: float
    high: float
    integer: bool = False
    low_open: bool = False
    unit: str = ""

    def describe(self) -> str:
        """``"a whole number from 1 to 1,048,576"``, ``"a number above 0 and at most 1"``."""
        what = "a whole number" if self.integer else "a number"
        unit = f" {self.unit}" if self.unit else ""
        if self.low_open:
            return f"{what} above {_fmt(self.low)} and at most {_fmt(self.high)}{unit}"
        return f"{what} from {_fmt(self.low)} to {_fmt(self.high)}{unit}"


def _fmt(value: float) -> str:
    if float(value).is_integer() and abs(value) < 1e16:
        return f"{int(value):,}"
    return f"{value:g}"


def is_finite_number(value: Any) -> bool:
    """Whether ``value`` is an int or float (not a bool) that is finite. Never raises
    (``math.isfinite(10**400)`` would: an int too large for a float)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if isinstance(value, int):
        return abs(value) < 2**1000
    return math.isfinite(value)


def check(name: str, value: Any, bound: Bound) -> int | float:
    """``value`` if it is a number inside ``bound``, else :class:`LimitError`.

    Args:
        name: what the user calls it (``--micro-batch``, ``plan.epochs``), first in the
            message.
        value: the number (an int or float; a bool or anything else is refused).
        bound: the range.

    Returns:
        The value unchanged (an int stays an int).
    """
    shown = _shown(value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise LimitError(f"{name} must be {bound.describe()}, got {shown}")
    if not is_finite_number(value):
        raise LimitError(f"{name} must be a finite number ({bound.describe()}), got {shown}")
    if bound.integer and not isinstance(value, int):
        raise LimitError(f"{name} must be {bound.describe()}, got {shown}")
    too_low = value < bound.low or (bound.low_open and value == bound.low)
    if too_low or value > bound.high:
        raise LimitError(f"{name} must be {bound.describe()}, got {shown}")
    return value


def check_table(values: Mapping[str, Any], bounds: Mapping[str, Bound], *,
                prefix: str = "", names: Mapping[str, str] | None = None) -> None:
    """:func:`check` every key of ``values`` that ``bounds`` knows (``None`` values pass).

    Args:
        values: the numbers by key.
        bounds: the ranges by key; keys not in it are not checked here.
        prefix: put before each key in messages (``"plan."``).
        names: the user's name of a key when it differs (``{"n_experts":
            "num_local_experts"}``).
    """
    names = names or {}
    for key, value in values.items():
        bound = bounds.get(key)
        if bound is not None and value is not None:
            check(f"{prefix}{names.get(key, key)}", value, bound)


def _shown(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**16:
        return f"a number with {len(str(abs(value)))} digits"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


# ---------------------------------------------------------------------------- tables
#: The plan's numbers (``Plan`` field names; flags map onto them in the CLI).
PLAN_BOUNDS: dict[str, Bound] = {
    "micro_batch": Bound(1, MAX_BATCH, integer=True),
    "grad_accum": Bound(1, MAX_BATCH, integer=True),
    "seq_len": Bound(1, MAX_SEQ_TOKENS, integer=True),
    "n_gpus": Bound(1, MAX_GPUS, integer=True),
    "new_tokens": Bound(1, MAX_SEQ_TOKENS, integer=True),
    "lora_rank": Bound(1, 65_536, integer=True),
    "zero_stage": Bound(0, 3, integer=True),
    "dataset_tokens": Bound(0, MAX_DATASET, low_open=True, unit="tokens"),
    "dataset_samples": Bound(0, MAX_DATASET, low_open=True, unit="samples"),
    "epochs": Bound(0, 1e6, low_open=True),
    "efficiency": Bound(0, 1, low_open=True),
}

_TiB = 1024**4
#: The estimator's assumptions (:class:`gpuadvisor.core.assumptions.Assumptions` names).
ASSUMPTION_BOUNDS: dict[str, Bound] = {
    "cuda_context_bytes": Bound(0, _TiB, unit="bytes"),
    "nccl_bytes": Bound(0, _TiB, unit="bytes"),
    "vllm_non_torch_bytes": Bound(0, _TiB, unit="bytes"),
    "allocator_reserve_fraction": Bound(0, 1),
    "efficiency_train": Bound(0, 1, low_open=True),
    "efficiency_fp8": Bound(0, 1, low_open=True),
    "efficiency_infer_prefill": Bound(0, 1, low_open=True),
    "bandwidth_efficiency": Bound(0, 1, low_open=True),
    "comm_overlap": Bound(0, 1),
    "inter_node_gb_s": Bound(0, 100_000, low_open=True, unit="GB/s"),
    "gpus_per_node": Bound(1, 4096, integer=True),
    "qlora_dequant_overhead": Bound(0, 100, low_open=True),
    "opaque_checkpoint_keep": Bound(0, 1, low_open=True),
    "matmul_to_step": Bound(0, 1, low_open=True),
    "insitu_factor": Bound(0, 1, low_open=True),
}

#: A model's architecture numbers (``ModelSpec`` field names). Zero means "not used" for
#: the optional ones, so their low bound is 0; the required ones start at 1.
MODEL_BOUNDS: dict[str, Bound] = {
    "n_layers": Bound(1, 65_536, integer=True),
    "d_model": Bound(1, 2**20, integer=True),
    "n_heads": Bound(1, 2**16, integer=True),
    "n_kv_heads": Bound(0, 2**16, integer=True),
    "head_dim": Bound(0, 2**16, integer=True),
    "d_ff": Bound(1, 2**24, integer=True),
    "vocab_size": Bound(1, 2**26, integer=True),
    "max_positions": Bound(0, 2**30, integer=True),
    "n_experts": Bound(1, 2**16, integer=True),
    "experts_per_token": Bound(1, 2**16, integer=True),
    "type_vocab_size": Bound(0, 2**20, integer=True),
    "norms_per_layer": Bound(0, 64, integer=True),
    "q_lora_rank": Bound(0, 2**20, integer=True),
    "kv_lora_rank": Bound(0, 2**20, integer=True),
    "qk_rope_head_dim": Bound(0, 2**16, integer=True),
    "v_head_dim": Bound(0, 2**16, integer=True),
    "sliding_window": Bound(0, 2**30, integer=True),
    "global_layers": Bound(0, 65_536, integer=True),
    "moe_d_ff": Bound(0, 2**24, integer=True),
    "dense_layers": Bound(0, 65_536, integer=True),
    "shared_d_ff": Bound(0, 2**26, integer=True),
    "params_override": Bound(0, 1e15, integer=True),
    "published_params": Bound(0, 1e15, integer=True),
    "vision_params": Bound(0, 1e15, integer=True),
    "flops_per_sample": Bound(0, 1e21, unit="FLOPs"),
    "activation_bytes_per_sample": Bound(0, 1e15, unit="bytes"),
    "quant_bytes": Bound(0, 4),
}

#: What a probe may report and the history may hold as a measurement, by unit.
MEASURED_BOUNDS: dict[str, Bound] = {
    "TFLOPS": Bound(0, 100_000, low_open=True, unit="TFLOPS"),
    "GB/s": Bound(0, 100_000, low_open=True, unit="GB/s"),
    "MB/s": Bound(0, 1e8, low_open=True, unit="MB/s"),
}

#: The user's settings.
SETTINGS_BOUNDS: dict[str, Bound] = {
    "electricity_usd_per_kwh": Bound(0, 100, unit="USD/kWh"),
    "exchange_rate": Bound(0, 1e6, low_open=True),
    "rental_utilization": Bound(0.01, 1, unit="share"),
    "card_lifetime_hours": Bound(100, 100_000, unit="h"),
}


def measured(value: Any, unit: str) -> bool:
    """Whether ``value`` is a believable measurement in ``unit`` (a finite number inside
    :data:`MEASURED_BOUNDS`; any finite number for units without a bound)."""
    if not is_finite_number(value):
        return False
    bound = MEASURED_BOUNDS.get(unit)
    if bound is None:
        return True
    return bound.low < value <= bound.high


# ---------------------------------------------------------------------------- JSON
class _Constant:
    """``NaN``/``Infinity`` as read, kept until the walk can name where it was."""

    def __init__(self, name: str) -> None:
        self.name = name


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:  # past Python's 4,300-digit limit for int("...")
        raise LimitError(f"a number with {len(text.lstrip('-'))} digits is too large") from None


def loads_json(text: str | bytes, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """Parse JSON strictly: the document a user file or a worker line may hold.

    Refused (as :class:`LimitError`, naming where: ``plan.epochs: Infinity is not a number
    JSON allows``): ``NaN``, ``Infinity``, a number too large for a float (``1e400``) or a
    whole number of more than :data:`MAX_JSON_INT_DIGITS` digits, and nesting deeper than
    ``max_depth`` arrays and objects. Never raises ``RecursionError``.

    Raises:
        json.JSONDecodeError: not JSON (a ``ValueError`` with ``lineno`` and ``colno``).
        LimitError: valid JSON that breaks a limit above.
        UnicodeDecodeError: ``bytes`` that are not UTF-8.
    """
    if isinstance(text, bytes | bytearray):
        text = bytes(text).decode("utf-8")
    _check_depth(text, max_depth)
    try:
        data = json.loads(text, parse_int=_int, parse_constant=_Constant)
    except RecursionError:
        raise LimitError(f"nested deeper than {max_depth} levels") from None
    _check_numbers(data)
    return data


def _check_numbers(data: Any) -> None:
    """Walk the parsed document (iteratively) for numbers no estimate can use."""
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, dict):
            stack.extend((f"{where}.{key}" if where else str(key), item)
                         for key, item in value.items())
        elif isinstance(value, list):
            stack.extend((f"{where}[{i}]", item) for i, item in enumerate(value))
        elif isinstance(value, _Constant):
            raise LimitError(f"{where or 'the document'}: {value.name} is not a number JSON "
                             "allows")
        elif isinstance(value, float) and not math.isfinite(value):
            raise LimitError(f"{where or 'the document'}: the number is too large for a float")
        elif (isinstance(value, int) and not isinstance(value, bool)
              and abs(value) >= 10**MAX_JSON_INT_DIGITS):
            raise LimitError(f"{where or 'the document'}: a number with "
                             f"{len(str(abs(value)))} digits is too large")


#: What the depth scan looks at: quotes, backslashes and brackets.
_SPECIAL = re.compile(r'[\\"\[\]{}]')


def _check_depth(text: str, max_depth: int) -> None:
    """Refuse nesting beyond ``max_depth`` before parsing (brackets inside strings do not
    count), so a hostile document of 10**5 brackets costs one scan, not a recursion.

    One pass in linear time whatever the text: a document cut off inside a long string of
    escaped quotes (a file cut short by a crash, a worker line cut mid-way) is judged as
    fast as any other (a pattern that matches whole strings restarts at every quote of an
    unterminated one: quadratic).
    """
    if text.count("[") + text.count("{") <= max_depth:
        return
    depth = 0
    in_string = False
    escaped = -1  # the position of the character a backslash escapes
    for match in _SPECIAL.finditer(text):
        at = match.start()
        if at == escaped:
            continue
        char = text[at]
        if in_string:
            if char == "\\":
                escaped = at + 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > max_depth:
                raise LimitError(f"nested deeper than {max_depth} levels")
        elif char in "]}":
            depth -= 1


__all__ = ["ASSUMPTION_BOUNDS", "MAX_BATCH", "MAX_COUNT", "MAX_DATASET", "MAX_GPUS",
           "MAX_JSON_DEPTH", "MAX_JSON_INT_DIGITS", "MAX_LOG_BYTES", "MAX_SEQ_TOKENS",
           "MEASURED_BOUNDS",
           "MODEL_BOUNDS", "PLAN_BOUNDS", "SETTINGS_BOUNDS", "Bound", "LimitError", "check",
           "check_table", "is_finite_number", "loads_json", "measured"]
