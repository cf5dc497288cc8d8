"""The report: Markdown and self-contained HTML, escaped, with charts embedded as PNG."""

from __future__ import annotations

import base64
import re
from dataclasses import replace
from html.parser import HTMLParser

import pytest

from gpuadvisor.core.estimate import REFERENCE_GPU_ID, estimate
from gpuadvisor.core.gpu import DRIVER_RESERVE_MIB
from gpuadvisor.core.plan import Plan
from gpuadvisor.export import SuggestionRow, html_report, markdown_report, suggestion_row

# The smallest valid PNG: signature, IHDR (1x1, 8-bit grey), IDAT, IEND.
PNG_1X1 = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABc3UWCQAAAABJRU5ErkJggg==")
EVIL = "<script>alert('x')</script>"


@pytest.fixture
def result(models, gpus):
    plan = Plan(task="qlora", checkpointing="full")
    return estimate(models["llama-3.1-8b"], plan, gpus["rtx-4090"],
                    reference_gpu=gpus[REFERENCE_GPU_ID])


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.images: list[dict] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "img":
            self.images.append(dict(attrs))

    def handle_data(self, data):
        self.text.append(data)


def parse(page: str) -> _Collector:
    collector = _Collector()
    collector.feed(page)
    return collector


def test_html_escapes_a_model_name_with_a_script_tag(result):
    evil = replace(result, model=replace(result.model, name=EVIL))
    page = html_report(evil, generated="2025-01-01")
    assert EVIL not in page
    assert "&lt;script&gt;" in page
    parsed = parse(page)
    assert "script" not in parsed.tags
    assert any(EVIL in text for text in parsed.text)  # shown to people, as text


def test_html_embeds_given_png_bytes_as_a_data_uri(result):
    page = html_report(result, charts={"VRAM <breakdown>": PNG_1X1})
    (image,) = parse(page).images
    prefix = "data:image/png;base64,"
    assert image["src"].startswith(prefix)
    assert base64.b64decode(image["src"][len(prefix):]) == PNG_1X1
    assert image["alt"] == "VRAM <breakdown>"
    assert "<breakdown>" not in page
    assert not re.search(r'(src|href)="(?!data:)', page)  # self-contained: nothing outside


def test_bytes_that_are_not_a_png_are_refused(result):
    with pytest.raises(ValueError, match="not PNG"):
        html_report(result, charts={"chart": b"GIF89a..."})


def test_the_report_shows_plan_memory_time_and_the_verdict(result):
    text = markdown_report(result, generated="2025-01-01 12:00")
    assert text.startswith("# gpuadvisor report: Llama 3.1 8B\n")
    for heading in ("## Plan", "## Memory per GPU", "## Time", "## Assumptions"):
        assert heading in text
    assert "QLoRA fine-tune" in text
    # nvidia-smi reports 24,564 MiB on an RTX 4090; CUDA allocates that less the driver's own
    usable = (24_564 - DRIVER_RESERVE_MIB) / 1024
    assert (f"NVIDIA GeForce RTX 4090 has {usable:.1f} GiB a process can allocate (the "
            f"driver's total 24,564 MiB less the driver's {DRIVER_RESERVE_MIB:.0f} MiB): "
            f"{result.verdict}.") in text
    assert "Generated 2025-01-01 12:00" in text


def test_markdown_escapes_table_breaking_and_html_characters(result):
    evil = replace(result, model=replace(result.model, name=f"a|b {EVIL}"))
    text = markdown_report(evil)
    assert EVIL not in text
    assert "a\\|b &lt;script&gt;" in text


def test_suggestions_rig_and_probes_are_shown_and_escaped(result):
    suggestions = [
        SuggestionRow("rent 1 x RTX 4090 on RunPod", True, 1, 9.5, 3.3, "cheapest that fits"),
        {"option": {"kind": "cloud", "name": "8 x A100 80GB <AWS>", "gpus": 8}, "fits": True,
         "time": {"seconds": 7200.0}, "cost": {"usd": 14.0}, "why": "fastest"},
    ]
    rig = {"backend": "simulated", "gpus": [{"name": "RTX <3090>", "memory_total_bytes": 24 * 2**30,
                                             "catalog_id": "rtx-3090"}],
           "host": {"cpu": "Ryzen", "ram_bytes": 64 * 2**30}}
    probes = [{"probe": "matmul", "figures": {"bf16_tflops": 71.2},
               "units": {"bf16_tflops": "TFLOPS"}}]
    page = html_report(result, rig=rig, probes=probes, suggestions=suggestions)
    text = " ".join(parse(page).text)
    for expected in ("rent 1 x RTX 4090 on RunPod", "cloud: 8 x A100 80GB <AWS>", "$14.00",
                     "2.00 h", "RTX <3090>", "24.0 GiB", "host.cpu", "71.2", "TFLOPS"):
        assert expected in text
    assert "<AWS>" not in page and "<3090>" not in page


def test_suggestion_rows_come_from_flat_dicts_and_to_json_objects():
    class Suggestion:
        def to_json(self):
            return {"name": "own rig", "fits": False, "gpus": 2, "hours": 3.0, "cost_usd": 0.5}

    assert suggestion_row(Suggestion()) == SuggestionRow("own rig", False, 2, 3.0, 0.5, "")
    with pytest.raises(ValueError):
        suggestion_row({"fits": True})
    with pytest.raises(ValueError):
        suggestion_row(42)


def test_advice_rows_give_time_and_cost_only_for_options_that_fit():
    from types import SimpleNamespace

    from gpuadvisor.export.report import advice_rows

    def suggestion(label, fits, gpus, hours, cost):
        return SimpleNamespace(option=SimpleNamespace(label=label), fits=fits, n_gpus=gpus,
                               hours=hours, cost_usd=cost, why=f"{label} because")

    items = [suggestion("rent A100", True, 1, 2.5, 4.0),
             suggestion("used RTX 3060", False, 1, 9.0, 300.0),
             suggestion("third", True, 2, 1.0, 9.0)]
    rows = advice_rows(items, limit=2)
    assert [(r.option, r.fits, r.gpus, r.hours, r.cost_usd) for r in rows] == [
        ("rent A100", True, 1, 2.5, 4.0), ("used RTX 3060", False, 1, None, None)]
    assert rows[1].why == "used RTX 3060 because"
