"""The Rig page, by region: :mod:`.page` lays out and wires; :mod:`.demo_picker`,
:mod:`.host_panel` and :mod:`.tiles` are its regions; :mod:`.format` is what it says and
:mod:`.jobs` the blocking work it runs in the background (both Qt-free).

Nothing is imported here, so that the Qt-free modules import without Qt; the page is
``gpuadvisor.gui.pages.rig.page.RigPage`` (also ``gpuadvisor.gui.pages.rig_page``).
"""
