"""The window tells the user, once, that their own catalog file was set aside (and why)."""

from __future__ import annotations

from gpuadvisor.catalog import override_path
from gpuadvisor.gui.main_window import MainWindow
from gpuadvisor.workspace.settings import Settings


def test_a_user_catalog_file_set_aside_is_told_when_the_window_opens(qtbot):
    path = override_path("models")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('[my-model]\nname = "Mine"\nlayers = "many"\n', encoding="utf-8")
    window = MainWindow(settings=Settings(), persist=False, interactive=False)
    qtbot.addWidget(window)
    window.show()
    kind, title, text = window.last_message
    (backup,) = path.parent.glob("models.toml.bad-*")
    assert (kind, title) == ("warning", "Your catalog file was not used")
    assert text.startswith(f"{path} (your own entries) was not used")
    assert backup.name in text and "my-model" in text
    # The status bar shows its first line, the whole text on hover.
    assert window.status_label.text() == text.partition("\n")[0] + " …"
    assert window.status_label.toolTip() == text
    # Told once: showing the window again says nothing new.
    window.last_message = None
    window.hide()
    window.show()
    assert window.last_message is None
