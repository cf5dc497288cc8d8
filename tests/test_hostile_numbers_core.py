"""Core records refuse numbers out of physical range wherever they come from (core/limits.py)."""

from __future__ import annotations

import math

import pytest

from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS
from gpuadvisor.core.model import ModelSpec
from gpuadvisor.core.plan import Plan


@pytest.mark.parametrize("field, value", [
    ("epochs", math.inf), ("epochs", math.nan), ("dataset_tokens", 1e30),
    ("dataset_samples", -5.0), ("n_gpus", 10**7), ("seq_len", 2**27),
])
def test_a_plan_refuses_numbers_out_of_range_naming_the_field(field, value):
    with pytest.raises(ValueError, match=field):
        Plan(**{field: value})


@pytest.mark.parametrize("name, value", [
    ("gpus_per_node", "inf"), ("cuda_context_bytes", "nan"), ("gpus_per_node", "2.5"),
    ("gpus_per_node", 1e300), ("efficiency_train", "1e400"), ("comm_overlap", "abc"),
])
def test_assumption_overrides_refuse_non_finite_and_out_of_range_values(name, value):
    with pytest.raises(ValueError, match=name):
        DEFAULT_ASSUMPTIONS.with_overrides({name: value})


def test_a_whole_number_assumption_may_be_written_as_text():
    assert DEFAULT_ASSUMPTIONS.with_overrides({"gpus_per_node": "4"}).gpus_per_node == 4


@pytest.mark.parametrize("field, value", [
    ("n_layers", 10**400), ("head_dim", -500), ("d_model", 2**21), ("vocab_size", 0),
    ("n_experts", 10**6),
])
def test_a_model_spec_refuses_impossible_architecture_numbers(field, value):
    base = dict(id="m", name="m", n_layers=2, d_model=64, n_heads=4, n_kv_heads=4,
                d_ff=256, vocab_size=1000, max_positions=128)
    with pytest.raises(ValueError, match=f"field '{field}'"):
        ModelSpec(**(base | {field: value}))


def test_the_depth_scan_skips_strings_escaped_quotes_and_backslashes():
    from gpuadvisor.core.limits import MAX_JSON_DEPTH, LimitError, loads_json

    # A string ending in an escaped backslash closes at the next quote; the brackets after it
    # are real nesting, those inside strings are text.
    inside = "[" * (MAX_JSON_DEPTH + 5)
    assert loads_json('{"a": "' + inside + '\\\\", "b": [[1]]}') == {"a": inside + "\\",
                                                                     "b": [[1]]}
    assert loads_json('["\\"' + inside + '"]') == ['"' + inside]
    with pytest.raises(LimitError, match="nested deeper"):
        loads_json('{"a": "\\\\", "b": ' + "[" * (MAX_JSON_DEPTH + 1) + "]" * (
            MAX_JSON_DEPTH + 1) + "}")


def test_a_document_cut_off_in_a_long_string_of_escaped_quotes_is_judged_at_once():
    """A file cut short inside a string of 4 MB of escaped quotes, with brackets after it:
    one linear scan says it is not valid JSON (the pattern this replaced restarted at every
    quote: 3.4 s for 40 KB, hours for 4 MB). Run in a child with a time budget so a
    regression fails instead of hanging the suite."""
    import subprocess
    import sys

    code = ("import json\nfrom gpuadvisor.core.limits import loads_json\n"
            "text = '{\"a\": \"' + '\\\\\\\\\"' * 2_000_000 + '[' * 40\n"
            "try:\n    loads_json(text)\nexcept json.JSONDecodeError:\n    print('refused')\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "refused"
