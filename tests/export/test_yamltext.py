"""The small YAML writer: whatever it writes, PyYAML reads back as the same data."""

from __future__ import annotations

import pytest
import yaml

from gpuadvisor.export.yamltext import Commented, dump, scalar

TRICKY = ["no", "No", "off", "yes", "on", "true", "null", "~", "", "1.0", "0x10", "8:30",
          "A100-80GB:8", "a: b", "#hash", "- dash", "quote\"d", "back\\slash", "tab\there",
          "ünïcode", "{brace}", "*star", "&amp", "!tag", "%pct", "@at", "`tick`", " lead",
          "trail ", "1e5", ".inf", "=", "?", "|"]


@pytest.mark.parametrize("text", TRICKY)
def test_strings_come_back_as_the_same_strings(text):
    assert yaml.safe_load(dump({"key": text})) == {"key": text}


@pytest.mark.parametrize("value", [0, 1, -3, 29500, 1.0, 0.5, 1e-08, 1.5e-05, 1e+20, True,
                                   False, None])
def test_numbers_booleans_and_null_keep_their_type(value):
    loaded = yaml.safe_load(dump({"key": value}))["key"]
    assert loaded == value and type(loaded) is type(value)


HEREDOC = "cat > x <<'EOF'\n{\n  \"k\": 1\n}\nEOF\n"


@pytest.mark.parametrize("text", ["one line\n", "a\nb\n", "a\nb", "a\n\nb\n", "a\nb\n\n",
                                  "  indented first\nnext\n", HEREDOC])
def test_multi_line_text_is_a_literal_block_read_back_exactly(text):
    written = dump({"run": text})
    assert "run: |" in written
    assert yaml.safe_load(written) == {"run": text}


def test_nested_mappings_keep_order_and_empty_ones_are_written_inline():
    data = {"resources": {"infra": "aws", "accelerators": "H100:8"}, "envs": {}, "n": 2}
    text = dump(data, header=["a comment", ""])
    assert text.startswith("# a comment\n#\n")
    assert yaml.safe_load(text) == data
    assert list(yaml.safe_load(text)["resources"]) == ["infra", "accelerators"]


def test_a_commented_value_reads_back_without_its_comment():
    text = dump({"use_spot": Commented(True, "cheaper, may be stopped")})
    assert "use_spot: true  # cheaper, may be stopped" in text
    assert yaml.safe_load(text) == {"use_spot": True}


def test_values_yaml_cannot_hold_faithfully_are_refused():
    with pytest.raises(ValueError):
        scalar(float("nan"))
    with pytest.raises(ValueError):
        scalar([1, 2])
