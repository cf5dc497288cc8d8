"""The Rig page: the GPUs of this machine (or a demo rig), the host, warnings, live readings.

Threading: detection, the torch check and every live sample run on a page-owned
``QThreadPool``; each job always delivers ``result`` or ``error`` back to the GUI thread
through a relay QObject (Picard's ``run_task``), tagged with the generation of the detection
it belongs to, and results of an older generation are dropped (napari's histogram). At most
one sample is in flight. The sampling timer runs only while the page is shown and is stopped
in ``hideEvent``/``closeEvent``; :meth:`RigPage.shutdown` waits for the pool, so no job
outlives the page.

A backend belongs to one detection: when a new one replaces it, it is closed at once, or
after the sample still reading it comes back.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from PySide6.QtCore import QCoreApplication, QObject, Qt, QThreadPool, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from gpuadvisor.core.units import format_bytes
from gpuadvisor.gui.background import Job, Relay
from gpuadvisor.hardware import (
    DetectionResult,
    GpuInfo,
    HostInfo,
    describe_scenarios,
    health_warnings,
    open_backend,
    with_catalog_match,
)
from gpuadvisor.hardware.base import WARNING_CONTEXT

#: Under this name lupdate finds the literal (context, text) calls below.
translate = QCoreApplication.translate

#: Live readings per second.
SAMPLE_INTERVAL_MS = 500
#: Catalog rigs offered in the demo picker besides the named scenarios.
DEMO_CATALOG_RIGS = ("rtx-4090", "2x rtx-3090", "h100-sxm", "8x h100-sxm")
#: Warning codes shown as errors (red); the rest are warnings (amber).
ERROR_CODES = frozenset({"gpu_lost", "ecc_errors"})

_STYLE = """
QLabel[severity="error"] { color: #B3261E; font-weight: bold; }
QLabel[severity="warning"] { color: #8A4B00; }
QLabel[role="lostBadge"] { background: #D55E00; color: #FFFFFF; padding: 1px 8px;
    border-radius: 3px; font-weight: bold; }
QLabel[role="fieldName"] { color: #555555; }
QFrame#gpuTile { border: 1px solid #B0B0B0; border-radius: 4px; }
"""


def _matched(gpus: list[GpuInfo], catalog: Mapping) -> list[GpuInfo]:
    return [g if g.catalog_id is not None or not catalog else with_catalog_match(g, catalog)
            for g in gpus]


def detect_open(spec: str | None, catalog: Mapping, host: HostInfo | None,
                options: Mapping | None = None):
    """Open a backend for ``spec`` (None: this machine) and read it once.

    Returns:
        ``(backend or None, DetectionResult)``; the caller owns (and closes) the backend.
    """
    backend, hints = open_backend(spec, **dict(options or {}))
    try:
        gpus = _matched(backend.devices(), catalog) if backend is not None else []
    except Exception:
        if backend is not None:
            backend.close()
        raise
    if host is None:
        from gpuadvisor.hardware.host import collect_host

        host = collect_host(probe_torch=False)
    warnings = tuple(w for g in gpus for w in health_warnings(g))
    result = DetectionResult(backend=backend.name if backend is not None else "none",
                             gpus=tuple(gpus), host=host, hints=tuple(hints),
                             warnings=warnings)
    return backend, result


def sample_backend(backend, catalog: Mapping) -> list[GpuInfo]:
    """Refresh ``backend`` and return its cards, matched to the catalog."""
    backend.refresh()
    return _matched(backend.devices(), catalog)


# ================================================================== text helpers
class RigFields(QObject):
    """Formats fields for people; a QObject only for ``self.tr``'s context."""

    def na(self) -> str:
        return self.tr("n/a")

    def v(self, value, unit: str = "", digits: int = 0) -> str:
        if value is None:
            return self.na()
        if isinstance(value, bool):
            return self.tr("on") if value else self.tr("off")
        text = f"{value:.{digits}f}" if isinstance(value, float) else str(value)
        return f"{text} {unit}".strip()

    def lanes(self, n) -> str:
        return self.na() if n is None else f"x{n}"

    def b(self, n, units: str) -> str:
        return self.na() if n is None else format_bytes(n, units)


def gpu_rows(gpu: GpuInfo, units: str, catalog: Mapping) -> list[tuple[str, str]]:
    """(label, value) rows of one tile, "n/a" where the driver does not say."""
    f = RigFields()
    na = f.na()
    vram = translate("RigFields", "{total} total · {free} free · {used} used").format(
        total=f.b(gpu.memory_total_bytes, units), free=f.b(gpu.memory_free_bytes, units),
        used=f.b(gpu.memory_used_bytes, units))
    if gpu.unified_memory:
        vram += " " + translate("RigFields", "(unified: shared with the CPU)")
    compute = f.v(gpu.compute_capability)
    if gpu.sm_count:
        compute += " · " + translate("RigFields", "{n} SMs").format(n=gpu.sm_count)
    if gpu.gpu_cores:
        compute += " · " + translate("RigFields", "{n} GPU cores").format(n=gpu.gpu_cores)
    pcie = translate("RigFields", "gen {gen} / {gen_max} · {width} / {width_max}").format(
        gen=f.v(gpu.pcie_gen_current), gen_max=f.v(gpu.pcie_gen_max),
        width=f.lanes(gpu.pcie_width_current), width_max=f.lanes(gpu.pcie_width_max))
    nvlink = na if gpu.nvlink_links_active is None else translate(
        "RigFields", "{n} links active").format(n=gpu.nvlink_links_active)
    power = translate("RigFields", "{draw} of {limit} limit (default {default})").format(
        draw=f.v(gpu.power_draw_w, "W"), limit=f.v(gpu.power_limit_w, "W"),
        default=f.v(gpu.power_default_limit_w, "W"))
    temperature = translate("RigFields", "{now} (slowdown at {limit})").format(
        now=f.v(gpu.temperature_c, "°C"), limit=f.v(gpu.temperature_slowdown_c, "°C"))
    clocks = translate("RigFields", "{sm} of {sm_max} · {mem} of {mem_max}").format(
        sm=f.v(gpu.sm_clock_mhz, "MHz"), sm_max=f.v(gpu.sm_clock_max_mhz, "MHz"),
        mem=f.v(gpu.mem_clock_mhz, "MHz"), mem_max=f.v(gpu.mem_clock_max_mhz, "MHz"))
    utilization = translate("RigFields", "GPU {gpu} · memory {mem}").format(
        gpu=f.v(gpu.utilization_gpu_pct, "%"), mem=f.v(gpu.utilization_mem_pct, "%"))
    none = translate("RigFields", "none")
    throttle = na if gpu.throttle_reasons is None else ", ".join(gpu.throttle_reasons) or none
    ecc = translate("RigFields", "{mode} · {errors} uncorrected errors").format(
        mode=f.v(gpu.ecc_enabled), errors=f.v(gpu.ecc_errors_uncorrected))
    processes = na if gpu.processes is None else "; ".join(
        translate("RigFields", "{name} (pid {pid}, {used})").format(
            name=p.name or "?", pid=p.pid, used=f.b(p.used_bytes, units))
        for p in gpu.processes) or none
    return [
        (translate("RigFields", "VRAM"), vram),
        (translate("RigFields", "Driver / CUDA"),
         f"{f.v(gpu.driver_version)} / {f.v(gpu.cuda_driver_version)}"),
        (translate("RigFields", "Compute capability"), compute),
        (translate("RigFields", "PCIe now / max"), pcie),
        (translate("RigFields", "NVLink"), nvlink),
        (translate("RigFields", "Power"), power),
        (translate("RigFields", "Temperature"), temperature),
        (translate("RigFields", "SM / memory clock"), clocks),
        (translate("RigFields", "Utilization"), utilization),
        (translate("RigFields", "Throttle reasons"), throttle),
        (translate("RigFields", "ECC"), ecc),
        (translate("RigFields", "MIG"), f.v(gpu.mig_enabled)),
        (translate("RigFields", "Processes"), processes),
    ]


def catalog_text(gpu: GpuInfo, catalog: Mapping) -> str:
    """The matched catalog entry and its peaks, or that the card is unmatched."""
    f = RigFields()
    spec = catalog.get(gpu.catalog_id) if gpu.catalog_id else None
    if spec is None:
        return translate("RigFields", "Unmatched — memory from the driver; no catalog peaks")

    def tflops(value) -> str:
        return f.na() if value is None else f"{value:g}"

    return translate("RigFields", "Catalog: {name} ({id}) · peak bf16 {bf16} / fp16 {fp16} / "
                     "fp8 {fp8} TFLOPS · {bw} GB/s").format(
        name=spec.name, id=spec.id, bf16=tflops(spec.bf16_tensor_tflops),
        fp16=tflops(spec.fp16_tensor_tflops), fp8=tflops(spec.fp8_tensor_tflops),
        bw=f"{spec.memory_bandwidth_gb_s:g}")


def host_rows(host: HostInfo, units: str) -> list[tuple[str, str]]:
    """(label, value) rows of the host box."""
    f = RigFields()
    if host.torch_available:
        extra = [f"CUDA {host.torch_cuda_version}" if host.torch_cuda_version else None,
                 translate("RigFields", "GPU usable") if host.torch_cuda_available else None,
                 translate("RigFields", "MPS usable") if host.torch_mps_available else None]
        found = ", ".join(e for e in extra if e) or translate("RigFields", "CPU only")
        torch = f"{host.torch_version} ({found})"
    elif host.torch_available is False:
        torch = (translate("RigFields", "not usable: {error}").format(error=host.torch_error)
                 if host.torch_error else translate("RigFields", "not installed"))
    elif host.torch_error:
        torch = translate("RigFields", "not checked: {error}").format(error=host.torch_error)
    else:
        torch = translate("RigFields", "checking…")
    cpu = translate("RigFields", "{model} ({cores} cores, {threads} threads)").format(
        model=f.v(host.cpu_model), cores=f.v(host.cpu_cores_physical),
        threads=f.v(host.cpu_cores_logical))
    ram = translate("RigFields", "{total} total, {available} available").format(
        total=f.b(host.ram_total_bytes, units), available=f.b(host.ram_available_bytes, units))
    disk = translate("RigFields", "{free} on {path}").format(
        free=f.b(host.disk_free_bytes, units), path=f.v(host.disk_path))
    return [
        (translate("RigFields", "CPU"), cpu),
        (translate("RigFields", "RAM"), ram),
        (translate("RigFields", "Disk free"), disk),
        (translate("RigFields", "OS / Python"), f"{f.v(host.os)} / {f.v(host.python_version)}"),
        (translate("RigFields", "PyTorch"), torch),
    ]


def _fill_grid(grid: QGridLayout, labels: list[tuple[QLabel, QLabel]], rows, parent,
               columns: int = 1) -> list[tuple[QLabel, QLabel]]:
    """Set ``rows`` into (name, value) label pairs laid out in ``columns`` pairs per line."""
    while len(labels) < len(rows):
        name, value = QLabel(parent), QLabel(parent)
        name.setProperty("role", "fieldName")
        name.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        value.setWordWrap(True)
        value.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        k = len(labels)
        grid.addWidget(name, k // columns, 2 * (k % columns))
        grid.addWidget(value, k // columns, 2 * (k % columns) + 1)
        labels.append((name, value))
    for (name, value), (label, text) in zip(labels, rows, strict=False):
        name.setText(label)
        value.setText(text)
    return labels


# ================================================================== a GPU tile
class GpuTile(QFrame):
    """One GPU: name, fields, catalog match, warnings and a live chart."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("gpuTile")
        layout = QVBoxLayout(self)
        head = QHBoxLayout()
        self.title = QLabel(self)
        self.title.setProperty("role", "subheading")
        self.title.setWordWrap(True)
        self.badge = QLabel(self)
        self.badge.setProperty("role", "lostBadge")
        self.badge.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
        self.badge.hide()
        head.addWidget(self.title, 1)
        head.addWidget(self.badge)
        layout.addLayout(head)
        self.catalog = QLabel(self)
        self.catalog.setWordWrap(True)
        self.catalog.setProperty("role", "note")
        layout.addWidget(self.catalog)
        self._grid = QGridLayout()
        self._grid.setHorizontalSpacing(10)
        self._grid.setVerticalSpacing(2)
        self._grid.setColumnStretch(1, 1)
        self._labels: list[tuple[QLabel, QLabel]] = []
        layout.addLayout(self._grid)
        self.warnings = QVBoxLayout()
        layout.addLayout(self.warnings)
        self.warning_labels: list[QLabel] = []
        self.chart = None
        self.gpu: GpuInfo | None = None
        self._chart_box = QVBoxLayout()
        layout.addLayout(self._chart_box)
        layout.addStretch(1)

    def ensure_chart(self):
        """The live chart (built on first use: pyqtgraph is imported lazily)."""
        if self.chart is None:
            from gpuadvisor.gui.charts.live import LiveGpuChart

            self.chart = LiveGpuChart(self)
            self.chart.setObjectName("liveChart")
            self.chart.setMinimumHeight(150)
            self.chart.setMaximumHeight(230)
            self._chart_box.addWidget(self.chart)
        return self.chart

    def set_gpu(self, gpu: GpuInfo, warnings, units: str, catalog: Mapping) -> None:
        """Show ``gpu`` and its warnings."""
        self.gpu = gpu
        tags = []
        if gpu.integrated:
            tags.append(self.tr("integrated"))
        self.title.setText(self.tr("GPU {index}: {name}").format(index=gpu.index, name=gpu.name)
                           + (f" ({', '.join(tags)})" if tags else ""))
        self.badge.setText(self.tr("LOST"))
        self.badge.setVisible(gpu.lost)
        self.catalog.setText(catalog_text(gpu, catalog))
        _fill_grid(self._grid, self._labels, gpu_rows(gpu, units, catalog), self)
        # Templates are marked in gpuadvisor.hardware (QT_TRANSLATE_NOOP): translate, then fill.
        texts = [(w.code, QCoreApplication.translate(WARNING_CONTEXT, w.template)
                  .format(**dict(w.params))) for w in warnings]
        while len(self.warning_labels) < len(texts):
            label = QLabel(self)
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.warnings.addWidget(label)
            self.warning_labels.append(label)
        for label, item in zip(self.warning_labels, [*texts, *[None] * len(self.warning_labels)],
                               strict=False):
            if item is None:
                label.hide()
                continue
            code, message = item
            severity = "error" if code in ERROR_CODES else "warning"
            label.setText("⚠ " + message)
            if label.property("severity") != severity:
                label.setProperty("severity", severity)
                label.style().unpolish(label)
                label.style().polish(label)
            label.show()

    def text(self) -> str:
        """Everything the tile says (for tests)."""
        parts = [self.title.text(), self.badge.text() if self.badge.isVisibleTo(self) else "",
                 self.catalog.text()]
        parts += [f"{n.text()}: {v.text()}" for n, v in self._labels]
        parts += [w.text() for w in self.warning_labels if not w.isHidden()]
        return "\n".join(p for p in parts if p)


# ================================================================== the page
class RigPage(QWidget):
    """GPU tiles, host, hints, Refresh and the Demo rig picker.

    Signals:
        go_to_plan: the user asks for the Plan page.
        status(str): a line for the status bar.
        detection_finished(object): a DetectionResult was shown.
        detection_failed(str): detection failed; the message is shown on the page.
        sampled(): a live sample was shown.
    """

    go_to_plan = Signal()
    status = Signal(str)
    detection_finished = Signal(object)
    detection_failed = Signal(str)
    sampled = Signal()
    first_shown = Signal()

    def __init__(self, state, units: str = "GiB", parent: QWidget | None = None, *,
                 simulate: str | None = None, backend_options: Mapping | None = None,
                 host: HostInfo | None = None, check_torch: bool = True) -> None:
        """Build the page (detection starts with :meth:`refresh`).

        Args:
            state: the shared PlanState (detected cards go to ``state.set_detected``).
            units: "GiB" or "GB".
            parent: Qt parent.
            simulate: the demo rig to start with (None: this machine).
            backend_options: extra arguments for ``hardware.open_backend`` (tests).
            host: a host record to use instead of collecting one (tests).
            check_torch: ask a subprocess whether torch works (once per page).
        """
        super().__init__(parent)
        self.setObjectName("rigPage")
        self.setStyleSheet(_STYLE)
        self.state = state
        self._units = units
        self._presentation = False
        self._catalog = dict(state.gpus)
        self._options = dict(backend_options or {})
        self._host = host
        self._check_torch = check_torch and host is None
        self._torch_asked = False
        self._spec = simulate
        self._generation = 0
        self._backend = None
        self._sampling_backend = None
        self._close_after_sample: list = []
        self._samples = 0  # live samples shown; x of the charts is samples x interval
        self.result: DetectionResult | None = None
        self.tiles: list[GpuTile] = []
        self.busy = False
        self._closed = False
        self._shown_once = False

        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(2)
        self._relay = Relay(self)
        self._relay.done.connect(self._on_done)
        # Owned by the page; runs only while the page is shown (see hideEvent/closeEvent).
        self.sample_timer = QTimer(self)
        self.sample_timer.setInterval(SAMPLE_INTERVAL_MS)
        self.sample_timer.timeout.connect(self.tick)
        self._build()
        self._fill_demo_combo()

    # ------------------------------------------------------------------ layout
    def _build(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(12, 10, 12, 6)
        bar = QHBoxLayout()
        self.title = QLabel(self.tr("Rig"), self)
        self.title.setProperty("role", "pageTitle")
        bar.addWidget(self.title)
        bar.addSpacing(16)
        bar.addWidget(QLabel(self.tr("Demo rig:"), self))
        self.demo_combo = QComboBox(self)
        self.demo_combo.setObjectName("demoRig")
        self.demo_combo.setToolTip(self.tr("Show a simulated rig instead of this machine "
                                           "(for demos on a laptop without a GPU)"))
        # Moderate in the bar (long scenario descriptions are clipped there), whole in the list.
        self.demo_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.demo_combo.setMinimumContentsLength(30)
        bar.addWidget(self.demo_combo)
        self.spec_edit = QLineEdit(self)
        self.spec_edit.setObjectName("demoSpec")
        self.spec_edit.setPlaceholderText(self.tr("or type a rig, e.g. 2x rtx-3090"))
        self.spec_edit.setToolTip(self.tr("Catalog ids joined by +, each with an optional "
                                          "count: rtx-3090+rtx-3060-12gb, 4x a100-sxm-80gb"))
        self.spec_edit.setMinimumWidth(180)
        bar.addWidget(self.spec_edit, 1)
        self.refresh_button = QPushButton(self.tr("Refresh"), self)
        self.refresh_button.setToolTip(self.tr("Detect again"))
        bar.addWidget(self.refresh_button)
        outer.addLayout(bar)

        self.backend_label = QLabel(self)
        self.backend_label.setObjectName("rigBackend")
        self.backend_label.setWordWrap(True)
        outer.addWidget(self.backend_label)
        self.hint_label = QLabel(self)
        self.hint_label.setObjectName("rigHint")
        self.hint_label.setWordWrap(True)
        self.hint_label.setProperty("severity", "warning")
        self.hint_label.hide()
        outer.addWidget(self.hint_label)
        self.error_label = QLabel(self)
        self.error_label.setObjectName("rigError")
        self.error_label.setWordWrap(True)
        self.error_label.setProperty("severity", "error")
        self.error_label.hide()
        outer.addWidget(self.error_label)

        self.scroll = QScrollArea(self)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        body = QWidget()
        body.setObjectName("rigBody")
        self._body = QVBoxLayout(body)
        self._body.setContentsMargins(0, 0, 0, 0)
        self.host_box = QGroupBox(self.tr("Host"), body)
        self._host_grid = QGridLayout(self.host_box)
        self._host_grid.setHorizontalSpacing(10)
        self._host_grid.setVerticalSpacing(2)
        self._host_grid.setColumnStretch(1, 1)
        self._host_grid.setColumnStretch(3, 1)
        self._host_labels: list[tuple[QLabel, QLabel]] = []
        self._body.addWidget(self.host_box)
        self.empty_label = QLabel(body)
        self.empty_label.setObjectName("rigEmpty")
        self.empty_label.setWordWrap(True)
        self.empty_label.setProperty("role", "note")
        self.empty_label.hide()
        self._body.addWidget(self.empty_label)
        self._tiles_grid = QGridLayout()
        self._tiles_grid.setSpacing(10)
        self._body.addLayout(self._tiles_grid)
        self._body.addStretch(1)
        self.scroll.setWidget(body)
        outer.addWidget(self.scroll, 1)

        self.refresh_button.clicked.connect(lambda: self.refresh())
        self.demo_combo.activated.connect(self._on_demo_picked)
        self.spec_edit.returnPressed.connect(self._on_spec_entered)

    def _fill_demo_combo(self) -> None:
        combo = self.demo_combo
        combo.clear()
        combo.addItem(self.tr("This machine"), None)
        for name, description in describe_scenarios().items():
            combo.addItem(self.tr("Demo: {name} — {description}").format(
                name=name, description=description), name)
        for spec in DEMO_CATALOG_RIGS:
            combo.addItem(self.tr("Demo: {spec}").format(spec=spec), spec)
        self._select_spec_in_combo()
        view = combo.view()
        view.setMinimumWidth(view.sizeHintForColumn(0) + 2 * view.frameWidth() + 24)

    def _select_spec_in_combo(self) -> None:
        index = self.demo_combo.findData(self._spec)
        if index < 0 and self._spec is not None:
            self.demo_combo.addItem(self.tr("Demo: {spec}").format(spec=self._spec), self._spec)
            index = self.demo_combo.count() - 1
        self.demo_combo.setCurrentIndex(max(index, 0))

    # ------------------------------------------------------------------ public API
    @property
    def spec(self) -> str | None:
        """The demo rig shown (None: this machine)."""
        return self._spec

    def set_demo_rig(self, spec: str | None) -> None:
        """Show a simulated rig (a scenario or catalog SPEC), or this machine (None)."""
        spec = spec.strip() if isinstance(spec, str) and spec.strip() else None
        self._spec = spec
        self._select_spec_in_combo()
        self.refresh()

    def refresh(self) -> int:
        """Detect again in the background; returns the new generation."""
        if self._closed:
            return self._generation
        self._generation += 1
        generation = self._generation
        self.busy = True
        self.refresh_button.setEnabled(False)
        self.backend_label.setText(self.tr("Detecting…"))
        spec, catalog, host, options = self._spec, self._catalog, self._host, self._options
        self._start(generation, "detect", lambda: detect_open(spec, catalog, host, options))
        if self._check_torch and not self._torch_asked:
            self._torch_asked = True
            from gpuadvisor.hardware.host import check_torch

            self._start(generation, "torch", check_torch)
        return generation

    def wait(self, timeout_ms: int = 60000) -> bool:
        """Block until background jobs finish and deliver their results (screenshots)."""
        from PySide6.QtCore import QCoreApplication

        done = self._pool.waitForDone(timeout_ms)
        QCoreApplication.sendPostedEvents(self._relay)
        QCoreApplication.processEvents()
        return done

    def tick(self) -> bool:
        """Take one live sample in the background (the timer's slot); False when one is
        already in flight or there is nothing to sample."""
        backend = self._backend
        if backend is None or self._sampling_backend is not None or self._closed:
            return False
        self._sampling_backend = backend
        catalog = self._catalog
        self._start(self._generation, "sample", lambda: sample_backend(backend, catalog))
        return True

    def sample_now(self) -> bool:
        """Take one live sample on this thread (screenshots; tests use :meth:`tick`)."""
        if self._backend is None or self._sampling_backend is not None or self._closed:
            return False
        self._sampling_backend = self._backend
        try:
            gpus, error = sample_backend(self._backend, self._catalog), None
        except Exception as exc:  # same path as a background sample
            gpus, error = None, exc
        self._on_sample(self._generation, gpus, error)
        return error is None

    @property
    def sampling(self) -> bool:
        """Whether the live timer runs."""
        return self.sample_timer.isActive()

    @property
    def units(self) -> str:
        return self._units

    def set_units(self, units: str) -> None:
        self._units = units
        self._show_result()

    def set_presentation(self, enabled: bool) -> None:
        self._presentation = enabled
        for tile in self.tiles:
            if tile.chart is not None:
                tile.chart.set_presentation(enabled)

    def text(self) -> str:
        """Everything the page says (tests, clipboard)."""
        parts = [self.backend_label.text(), self.hint_label.text() if not
                 self.hint_label.isHidden() else "", self.error_label.text() if not
                 self.error_label.isHidden() else "", self.empty_label.text() if not
                 self.empty_label.isHidden() else ""]
        parts += [f"{n.text()}: {v.text()}" for n, v in self._host_labels]
        parts += [tile.text() for tile in self.tiles if not tile.isHidden()]
        return "\n".join(p for p in parts if p)

    def shutdown(self) -> None:
        """Stop sampling, wait for the jobs, close the backend (the page is closing)."""
        self._closed = True
        self.sample_timer.stop()
        self._pool.waitForDone()
        for backend in {id(b): b for b in (self._backend, self._sampling_backend,
                                           *self._close_after_sample) if b}.values():
            backend.close()
        self._backend = self._sampling_backend = None
        self._close_after_sample = []

    # ------------------------------------------------------------------ jobs
    def _start(self, generation: int, kind: str, fn) -> None:
        self._pool.start(Job(self._relay, generation, kind, fn))

    def _on_done(self, generation: int, kind: str, result, error) -> None:
        if kind == "torch":
            self._on_torch(result, error)
        elif kind == "sample":
            self._on_sample(generation, result, error)
        elif generation != self._generation or self._closed:
            if error is None and result[0] is not None:
                result[0].close()  # a stale detection's backend
        elif error is not None:
            self._on_detect_error(error)
        else:
            self._on_detected(*result)

    def _retire_backend(self) -> None:
        old, self._backend = self._backend, None
        if old is None:
            return
        if old is self._sampling_backend:
            self._close_after_sample.append(old)
        else:
            old.close()

    def _on_detected(self, backend, result: DetectionResult) -> None:
        self._retire_backend()
        self._backend = backend
        if self._host is not None and self._host.torch_available is not None:
            result = dataclasses.replace(result, host=self._host)
        elif self._host is None:
            self._host = result.host
        self.result = result
        self.busy = False
        self.refresh_button.setEnabled(True)
        self.error_label.hide()
        self._show_result(rebuild=True)
        self.state.set_detected(list(result.gpus))
        self._update_timer()
        self.detection_finished.emit(result)

    def _on_detect_error(self, error: Exception) -> None:
        self.busy = False
        self.refresh_button.setEnabled(True)
        message = str(error)
        self.error_label.setText(self.tr("Cannot show that rig: {error}").format(error=message))
        self.error_label.show()
        self.backend_label.setText(self.tr("Detection failed"))
        self.status.emit(message)
        self.detection_failed.emit(message)

    def _on_torch(self, result, error) -> None:
        fields = result if error is None else {"torch_available": None,
                                                "torch_error": str(error)}
        host = self._host or (self.result.host if self.result else HostInfo())
        self._host = dataclasses.replace(host, **fields)
        if self.result is not None:
            self.result = dataclasses.replace(self.result, host=self._host)
            self._show_host()

    def _on_sample(self, generation: int, gpus, error) -> None:
        backend, self._sampling_backend = self._sampling_backend, None
        if backend is not None and any(b is backend for b in self._close_after_sample):
            self._close_after_sample = [b for b in self._close_after_sample if b is not backend]
            backend.close()
        if self._closed or generation != self._generation or self.result is None:
            return
        if error is not None:
            self.status.emit(self.tr("Live reading failed: {error}").format(error=error))
            return
        warnings = tuple(w for g in gpus for w in health_warnings(g))
        self.result = dataclasses.replace(self.result, gpus=tuple(gpus), warnings=warnings)
        self._samples += 1
        t = self._samples * SAMPLE_INTERVAL_MS / 1000
        for tile, gpu in zip(self.tiles, gpus, strict=False):
            tile.set_gpu(gpu, self.result.warnings_for(gpu.index), self._units, self._catalog)
            if not gpu.lost:
                tile.ensure_chart().add_sample(t, gpu)
        self.sampled.emit()

    # ------------------------------------------------------------------ showing
    def _show_result(self, rebuild: bool = False) -> None:
        result = self.result
        if result is None:
            return
        names = {"nvml": "NVIDIA NVML", "sysfs": self.tr("Linux sysfs (AMD/Intel)"),
                 "apple": "Apple", "simulated": self.tr("simulated"),
                 "torch": "PyTorch", "none": self.tr("none")}
        where = (self.tr("Demo rig “{spec}”").format(spec=self._spec) if self._spec
                 else self.tr("This machine"))
        self.backend_label.setText(self.tr("{where} · backend: {backend} · {n} GPU(s)").format(
            where=where, backend=names.get(result.backend, result.backend), n=len(result.gpus)))
        # One actionable hint: the first (the most specific, from the backend that failed).
        if result.hints:
            self.hint_label.setText(self.tr("Hint: {hint}").format(hint=result.hints[0]))
            self.hint_label.setToolTip("\n".join(result.hints))
        self.hint_label.setVisible(bool(result.hints))
        self.empty_label.setText(self.tr(
            "No GPU found. Plans use a catalog GPU; pick a Demo rig above to see what this "
            "page shows for one.") if not result.gpus else "")
        self.empty_label.setVisible(not result.gpus)
        self._show_host()
        if rebuild:
            for tile in self.tiles:
                self._tiles_grid.removeWidget(tile)
                tile.deleteLater()
            self.tiles = []
            columns = 1 if len(result.gpus) <= 1 else 2
            for k, gpu in enumerate(result.gpus):
                tile = GpuTile(self.scroll.widget())
                self._tiles_grid.addWidget(tile, k // columns, k % columns)
                self.tiles.append(tile)
                chart = tile.ensure_chart()
                chart.set_presentation(self._presentation)
                if not gpu.lost:
                    chart.add_sample(self._samples * SAMPLE_INTERVAL_MS / 1000, gpu)
        for tile, gpu in zip(self.tiles, result.gpus, strict=False):
            tile.set_gpu(gpu, result.warnings_for(gpu.index), self._units, self._catalog)

    def _show_host(self) -> None:
        if self.result is None:
            return
        rows = host_rows(self.result.host, self._units)
        _fill_grid(self._host_grid, self._host_labels, rows, self.host_box, columns=2)

    def _on_demo_picked(self, index: int) -> None:
        self.spec_edit.clear()
        self.set_demo_rig(self.demo_combo.itemData(index))

    def _on_spec_entered(self) -> None:
        text = self.spec_edit.text().strip()
        if text:
            self.set_demo_rig(text)

    # ------------------------------------------------------------------ timer lifetime
    def _update_timer(self) -> None:
        if self.isVisible() and self._backend is not None and not self._closed:
            if not self.sample_timer.isActive():
                self.sample_timer.start()
        else:
            self.sample_timer.stop()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not self._shown_once:
            self._shown_once = True
            self.first_shown.emit()
        self._update_timer()

    def hideEvent(self, event) -> None:
        # Not shown, not sampled: NVML queries cost the GPU's driver time too.
        self.sample_timer.stop()
        super().hideEvent(event)

    def closeEvent(self, event) -> None:
        self.shutdown()
        super().closeEvent(event)


__all__ = ["RigPage", "detect_open", "gpu_rows", "sample_backend"]
