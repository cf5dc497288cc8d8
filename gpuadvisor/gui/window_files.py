"""The main window's plan files: File → Open, Save, Save as, the recent plans, files dropped
on the window, and the question about unsaved changes (before closing, and before another
plan replaces this one).

Mixed into :class:`gpuadvisor.gui.main_window.MainWindow`, which provides ``state``,
``settings``, ``plan_path``, ``report``, ``status_label``, ``recent_menu``, ``show_page``,
``current_page`` and ``_interactive``. Texts are in the window's translation context.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QFileDialog, QMessageBox

from gpuadvisor.workspace.planfile import PLAN_SUFFIX, PlanFileError, load_plan, save_plan

from .edit_menu import update_edit_actions
from .local_models import (
    ModelFiles,
    cannot_open_title,
    dropped_kind,
    dropped_paths,
    not_openable,
    opened_model,
    reading,
)
from .menus import fill_recent_menu

#: Under this name lupdate finds the literal (context, text) calls below.
translate = QCoreApplication.translate


class PlanFiles:
    """File → Open/Save, recent plans, drops and unsaved changes (see the module)."""

    def ask_open_path(self) -> str | None:
        """Ask which plan file to open (tests replace this)."""
        path, _ = QFileDialog.getOpenFileName(
            self, translate("MainWindow", "Open plan"), self._dialog_folder(),
            translate("MainWindow", "gpuadvisor plans (*{suffix});;All files (*)").format(
                suffix=PLAN_SUFFIX))
        return path or None

    def ask_save_path(self) -> str | None:
        """Ask where to save the plan (tests replace this)."""
        suggested = str(self.plan_path) if self.plan_path else str(
            Path(self._dialog_folder()) / f"{self.state.model_id}{PLAN_SUFFIX}")
        path, _ = QFileDialog.getSaveFileName(
            self, translate("MainWindow", "Save plan"), suggested,
            translate("MainWindow", "gpuadvisor plans (*{suffix})").format(suffix=PLAN_SUFFIX))
        return path or None

    def ask_png_path(self) -> str | None:
        """Ask where to write the page's PNG (tests replace this)."""
        path, _ = QFileDialog.getSaveFileName(
            self, translate("MainWindow", "Export page as PNG"),
            str(Path(self._dialog_folder()) / f"{self.current_page()}.png"),
            translate("MainWindow", "PNG images (*.png)"))
        return path or None

    def _dialog_folder(self) -> str:
        if self.plan_path is not None:
            return str(self.plan_path.parent)
        if self.settings.recent_files:
            return str(Path(self.settings.recent_files[0]).parent)
        return str(Path.home())

    def open_plan_dialog(self) -> bool:
        """File → Open: ask about unsaved changes, then which file."""
        if not self.maybe_save():
            return False
        path = self.ask_open_path()
        return self.open_plan(path, confirm=False) if path else False

    def open_plan(self, path: str | Path, *, confirm: bool = True) -> bool:
        """Load a plan file into the shared plan; on any problem say what and change nothing.

        With ``confirm``, unsaved changes are asked about first (:meth:`maybe_save`); the
        opened plan starts a new undo history."""
        if confirm and not self.maybe_save():
            return False
        try:
            data = load_plan(path)
            self.state.from_dict(data)
        except PlanFileError as exc:
            self.report("error", translate("MainWindow", "Cannot open plan"), str(exc))
            return False
        self.plan_path = Path(path).resolve()
        self.settings.add_recent(self.plan_path)
        self._fill_recent_menu()
        self.setWindowModified(self.state.modified)
        self._update_title()
        # the file's name: a projector shows the status bar to the room, and the folders
        # are the presenter's own (File > Open Recent lists the whole path)
        self.status_label.setText(translate("MainWindow", "Opened {path}").format(
            path=self.plan_path.name))
        return True

    def save_plan(self) -> bool:
        """Save to the current file (asks for one when the plan is untitled)."""
        if self.plan_path is None:
            return self.save_plan_as()
        return self._save_to(self.plan_path)

    def save_plan_as(self) -> bool:
        path = self.ask_save_path()
        if not path:
            return False
        target = Path(path)
        if target.suffix != PLAN_SUFFIX:
            target = target.with_name(target.name + PLAN_SUFFIX)
        return self._save_to(target)

    def _save_to(self, path: Path) -> bool:
        try:
            written = save_plan(self.state, path)
        except PlanFileError as exc:
            self.report("error", translate("MainWindow", "Cannot save plan"), str(exc))
            return False
        self.plan_path = Path(written).resolve()
        self.settings.add_recent(self.plan_path)
        self._fill_recent_menu()
        self.state.mark_saved()
        self._update_title()
        self.status_label.setText(translate("MainWindow", "Saved {path}").format(
            path=self.plan_path))
        return True

    def _fill_recent_menu(self) -> None:
        fill_recent_menu(self.recent_menu, self.settings.recent_files, self._open_recent,
                         self._clear_recent)

    def _open_recent(self, path: str) -> None:
        if not self.open_plan(path) and not Path(path).exists():
            self.settings.remove_recent(path)
            self._fill_recent_menu()

    def _clear_recent(self) -> None:
        self.settings.recent_files = []
        self._fill_recent_menu()

    def _on_history_changed(self) -> None:
        # Undo back to the saved plan: unmodified again. (Runs on every change of the plan:
        # only what differs is set.)
        modified = self.state.modified
        if self.isWindowModified() != modified:
            self.setWindowModified(modified)
        update_edit_actions(self)

    def _update_title(self) -> None:
        name = self.plan_path.name if self.plan_path else translate("MainWindow", "Untitled plan")
        self.setWindowTitle(f"{name}[*] — gpuadvisor")

    # ------------------------------------------------------------------ unsaved changes
    def ask_unsaved(self) -> str:
        """Ask what to do with unsaved changes: ``"save"``, ``"discard"`` or ``"cancel"``
        (tests replace this). Without an interactive window the changes are discarded, as
        a screenshot or a test run asks no one."""
        if not self._interactive:
            return "discard"
        buttons = QMessageBox.StandardButton
        name = self.plan_path.name if self.plan_path else translate("MainWindow",
                                                                     "Untitled plan")
        box = QMessageBox(QMessageBox.Icon.Warning, translate("MainWindow", "Unsaved changes"),
                          translate("MainWindow", "Save the changes to {name}?").format(
                              name=name), buttons.Save | buttons.Discard | buttons.Cancel, self)
        box.setInformativeText(translate(
            "MainWindow", "Your changes to the plan are lost if you do not save them."))
        box.setDefaultButton(buttons.Save)
        # A question that must be answered before the window closes or another plan opens:
        # the caller needs the answer now (as the file dialogs are).
        answer = box.exec()
        return {buttons.Save: "save", buttons.Discard: "discard"}.get(
            buttons(answer), "cancel")

    def maybe_save(self) -> bool:
        """Before the plan is replaced or the window closes: True to go on (nothing unsaved,
        saved now, or discarded), False when the user cancelled or the save failed."""
        if not self.state.modified:
            return True
        answer = self.ask_unsaved()
        if answer == "save":
            return self.save_plan()
        return answer == "discard"

    # ------------------------------------------------------------------ drag and drop
    def _build_drops(self) -> None:
        # A model file is read off the GUI thread (a GGUF header can take a moment).
        self.setAcceptDrops(True)
        self.model_files = ModelFiles(self)
        self.model_files.loaded.connect(self._on_dropped_model)
        self.model_files.failed.connect(
            lambda message: self.report("error", cannot_open_title(), message))

    def dragEnterEvent(self, event) -> None:
        if any(dropped_kind(path) for path in dropped_paths(event.mimeData())):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event) -> None:
        paths = dropped_paths(event.mimeData())
        if not paths:
            event.ignore()
            return
        event.acceptProposedAction()
        # Several files: the first one that opens (else the first, to say why not).
        self.open_dropped(next((p for p in paths if dropped_kind(p)), paths[0]))

    def open_dropped(self, path: str | Path) -> bool:
        """Open what was dropped on the window: a plan as File → Open does; a config.json,
        a model folder or a GGUF file as the plan's model (read in the background, then
        the Plan page shows it). Anything else is reported; False when nothing opens."""
        path = Path(path)
        kind = dropped_kind(path)
        if kind == "plan":
            return self.open_plan(path)  # asks about unsaved changes first
        if kind is None:
            self.report("error", cannot_open_title(), not_openable(path))
            return False
        if kind == "log":
            return self.check_log(path)
        self.status_label.setText(reading(path))
        self.model_files.open_path(path)
        return True

    def check_log(self, path: Path) -> bool:
        """An engine log against the estimate of the plan it ran (``check-log``), shown in
        :class:`~gpuadvisor.gui.log_check.LogCheckDialog`; the model and GPU the log does
        not name are the current plan's. What it showed about the card is kept, and the
        estimates use it at once."""
        from gpuadvisor.core.limits import MAX_LOG_BYTES
        from gpuadvisor.gui.log_check import LogCheckDialog
        from gpuadvisor.userfiles import read_regular_file
        from gpuadvisor.workspace.logs import check_log

        title = QCoreApplication.translate("LogCheck", "Cannot check the log")
        try:
            text = read_regular_file(path, MAX_LOG_BYTES).decode("utf-8", "replace")
            checked = check_log(text, str(path), fallback_model=self.state.model,
                                fallback_gpu=self.state.gpu, fallback_plan=self.state.plan)
        except (OSError, ValueError) as exc:
            self.report("error", title, f"{path}: {getattr(exc, 'strerror', None) or exc}")
            return False
        self.load_measurements()
        self.log_dialog = LogCheckDialog(checked.result, bool(checked.kept), self,
                                         units=self.settings.units)
        if self._interactive:
            self.log_dialog.open()
        self.status_label.setText(self.log_dialog.heading.text())
        return True

    def _on_dropped_model(self, spec, _what: str) -> None:
        if self.state.set_model(spec):
            self.show_page("plan")
            self.status_label.setText(opened_model(spec.name))


__all__ = ["PlanFiles"]
