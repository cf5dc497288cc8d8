"""Injection through exports (issue group 1): payloads with a newline, quotes, ``{``, ``$(``,
``#`` and Unicode line separators go into every field an export writes, and every export is
parsed back with its format's reader (PyYAML, json, shlex, html.parser): the document has
exactly the keys, words and tags we wrote, and each payload reads back as the text it was."""

from __future__ import annotations

import dataclasses
import json
import shlex
from html.parser import HTMLParser

import pytest
import yaml

from gpuadvisor import catalog
from gpuadvisor.core.estimate import estimate
from gpuadvisor.core.offers import Offer
from gpuadvisor.core.plan import Plan
from gpuadvisor.export import (
    accelerate_config,
    accelerate_yaml,
    deepspeed_json,
    html_report,
    launch_line,
    launch_script,
    node_layout,
    skypilot_task,
)
from gpuadvisor.export.quoting import LINE_BREAKS, comment_text, shell_word, yaml_string

PAYLOADS = [
    "Acme\nenvs: {PIP_INDEX_URL: 'https://evil.invalid/simple'} #",
    "x\"; rm -rf ~; echo \"",
    "it's {a: 1} [b] & *c !!python/object:os.system",
    "$(touch /tmp/gpuadvisor-pwned) `id` ${HOME}",
    "# a comment?\n- item\n---\n...",
    "line\u2028separator\u2029paragraph\x85next\rcr\x0bvt\x0cff",
    "\x00\x1b[31mred\x7f\u200e\u202eevil\u2066",
    "  leading and trailing  ",
    "emoji 😀 and 中文 and EOF\nEOF\n",
    "</title><script>alert(1)</script><!--",
    "-- --help; true",
    "no",
    "",
]
SHORT_IDS = [f"p{i}" for i in range(len(PAYLOADS))]
_HIDDEN_BREAKS = LINE_BREAKS - {"\n"}


@pytest.fixture(scope="module")
def base():
    models, gpus = catalog.load_models(), catalog.load_gpus()
    return models["llama-3.1-8b"], gpus["h100-sxm"]


def _offer(gpu, payload: str) -> Offer:
    return Offer(id="evil-offer", kind="cloud", gpu_id=gpu.id, provider=payload or "p",
                 price_usd=2.5, as_of="2026-01-01", source=payload or "s", gpus_per_instance=8,
                 instance=payload or "i", region=payload or "r", spot=False)


def _no_hidden_breaks(text: str) -> None:
    """Outside quoted scalars nothing a reader takes for a line break may appear raw."""
    assert not set(text) & _HIDDEN_BREAKS, sorted(set(text) & _HIDDEN_BREAKS)


def _comments_are_one_line_each(text: str, payload: str) -> None:
    for line in text.split("\n"):
        if line.lstrip().startswith("#") and payload.strip():
            # a payload never reaches a comment raw if it holds a hidden character
            assert not set(line) & (_HIDDEN_BREAKS | {"\x00", "\x1b"})


@pytest.mark.parametrize("payload", PAYLOADS, ids=SHORT_IDS)
@pytest.mark.parametrize("launcher", ["torchrun", "accelerate"])
def test_a_skypilot_task_with_payloads_everywhere_parses_to_what_we_wrote(base, payload,
                                                                          launcher):
    model, gpu = base
    model = dataclasses.replace(model, name=payload or "m")
    gpu = dataclasses.replace(gpu, name=payload or "g")
    plan = Plan(task="full", zero_stage=3, n_gpus=16)
    script = payload or "train.py"
    text = skypilot_task(model, plan, gpu, _offer(gpu, payload), cloud=payload or None,
                         accelerator=payload or "H100", launcher=launcher, script=script,
                         script_args=[payload, "--x"], name=payload or None)
    _no_hidden_breaks(text)
    _comments_are_one_line_each(text, payload)
    doc = yaml.safe_load(text)
    assert set(doc) == {"name", "workdir", "num_nodes", "resources", "setup", "run"}
    resources = doc["resources"]
    assert resources["accelerators"] == f"{payload or 'H100'}:8"
    if payload:
        assert resources["infra"] == payload
    assert set(resources) <= {"infra", "accelerators", "use_spot"}
    line = launch_line(plan, node_layout(16, 8), launcher=launcher, script=script,
                       script_args=[payload, "--x"], skypilot=True)
    assert doc["run"].endswith(line + "\n")
    words = shlex.split(line)
    tail = [script, payload, "--x"]
    assert words[-3:] == tail or words[-5:-2] == tail


@pytest.mark.parametrize("payload", PAYLOADS, ids=SHORT_IDS)
def test_an_accelerate_config_with_a_payload_title_has_only_its_keys(payload):
    plan = Plan(task="full", zero_stage=2, n_gpus=16)
    layout = node_layout(16, 8)
    text = accelerate_yaml(plan, layout, title=payload)
    _no_hidden_breaks(text)
    _comments_are_one_line_each(text, payload)
    assert yaml.safe_load(text) == accelerate_config(plan, layout)


@pytest.mark.parametrize("payload", PAYLOADS, ids=SHORT_IDS)
@pytest.mark.parametrize("launcher", ["torchrun", "accelerate"])
def test_a_launch_script_is_the_launch_line_and_comments_whatever_the_words(payload, launcher):
    plan = Plan(task="full", zero_stage=3, n_gpus=16)
    layout = node_layout(16, 8)
    script = payload or "train.py"
    text = launch_script(plan, layout, launcher=launcher, script=script,
                         script_args=[payload, "--flag"], title=payload)
    # Raw characters stay only inside single quotes, where sh takes every one literally.
    _comments_are_one_line_each(text, payload)
    line = launch_line(plan, layout, launcher=launcher, script=script,
                       script_args=[payload, "--flag"])
    # Read as sh reads it: the comments vanish and only the launch line's words remain.
    assert shlex.split(text, comments=True) == shlex.split(line)
    words = shlex.split(line)
    assert words[0] in ("torchrun", "accelerate")
    tail = [script, payload, "--flag"]
    assert words[-len(tail):] == tail or words[-len(tail) - 2:-2] == tail


def test_a_dollar_word_from_the_user_is_text_not_an_expansion():
    plan = Plan(task="full", n_gpus=1)
    line = launch_line(plan, script="$(reboot)", script_args=["$HOME"])
    assert "'$(reboot)'" in line and "'$HOME'" in line


def test_text_that_is_not_utf8_is_refused_not_written_half():
    with pytest.raises(ValueError, match="not valid UTF-8"):
        shell_word("bad \udcff name")
    assert yaml.safe_load("k: " + yaml_string("bad \udcff name"))["k"] == "bad \udcff name"
    assert "\\udcff" in comment_text("bad \udcff name")


@pytest.mark.parametrize("payload", PAYLOADS, ids=SHORT_IDS)
def test_yaml_strings_and_comments_read_back(payload):
    assert yaml.safe_load("k: " + yaml_string(payload))["k"] == payload
    doc = yaml.safe_load(f"# {comment_text(payload)}\nk: 1\n")
    assert doc == {"k": 1}


def test_a_deepspeed_config_is_json():
    assert json.loads(deepspeed_json(Plan(task="full", zero_stage=2, n_gpus=8)))


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.text: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += attrs

    def handle_data(self, data):
        self.text.append(data)

    def handle_comment(self, data):
        raise AssertionError(f"a comment was injected: {data!r}")


_REPORT_TAGS = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "table",
                "tr", "th", "td", "figure", "img", "figcaption"}
_PNG = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00"
        b"\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N"
        b"\x00\x00\x00\x00IEND\xaeB`\x82")


@pytest.mark.parametrize("payload", [p for p in PAYLOADS if p], ids=SHORT_IDS[:-1])
def test_an_html_report_with_payloads_has_only_its_own_tags(base, payload):
    model, gpu = base
    model = dataclasses.replace(model, name=payload)
    result = estimate(model, Plan(task="qlora"), gpu)
    text = html_report(result, rig={payload: payload, "gpus": [{"name": payload}]},
                       probes=[{"probe": payload, "figures": {payload: 1.5},
                                "units": {payload: payload}}],
                       suggestions=[{"option": payload, "why": payload, "gpus": 1,
                                     "fits": True}],
                       charts=[(payload, _PNG)], title=payload, generated=payload)
    parser = _Tags()
    parser.feed(text)
    parser.close()
    assert set(parser.tags) <= _REPORT_TAGS
    assert parser.tags.count("script") == 0
    seen = "".join(parser.text)
    assert payload.replace("\r", "\n") in seen.replace("\r", "\n") or payload in seen
    assert ("alt", payload) in parser.attrs


def test_the_cli_export_json_and_script_quote_the_users_words(capsys):
    from gpuadvisor.cli import main

    payload = PAYLOADS[0] + PAYLOADS[3]
    assert main(["export", "launch", "--model", "gpt2", "--script", payload, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert shlex.split(data["text"], comments=True)[-1] == payload


def test_an_offer_that_injects_yaml_validates_but_exports_as_text(tmp_path, monkeypatch, capsys):
    """The issue's attack: a provider with a newline and an ``envs`` mapping, in the user's
    own offers file; the exported SkyPilot task parses to the same keys as any other."""
    from gpuadvisor.cli import main

    monkeypatch.setenv("GPUADVISOR_DATA_DIR", str(tmp_path))
    folder = tmp_path / "catalog"
    folder.mkdir()
    (folder / "offers.toml").write_text(
        '[evil-cloud]\nkind = "cloud"\ngpu_id = "h100-sxm"\n'
        'provider = "Acme\\nenvs: {PIP_INDEX_URL: \'https://evil.invalid/simple\'} #"\n'
        'price_usd = 2.0\ninstance = "8x H100"\ngpus_per_instance = 8\n'
        'as_of = "2026-01-01"\nsource = "x\\u2028run: evil"\n', encoding="utf-8")
    assert main(["catalog", "validate", str(folder / "offers.toml")]) == 0
    capsys.readouterr()
    assert main(["export", "skypilot", "--model", "gpt2", "--offer", "evil-cloud",
                 "--gpus", "8"]) == 0
    text = capsys.readouterr().out
    doc = yaml.safe_load(text)
    assert "envs" not in doc and "envs" not in doc.get("resources", {})
    assert set(doc) <= {"name", "workdir", "num_nodes", "resources", "setup", "run"}
    _no_hidden_breaks(text)
