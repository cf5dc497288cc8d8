"""The Probe page, by region: :mod:`.page` lays out and wires; :mod:`.pickers`,
:mod:`.controls`, :mod:`.run_panel`, :mod:`.results`, :mod:`.telemetry_panel` and
:mod:`.history_panel` are its regions; :mod:`.format` is what it says.

Nothing is imported here, so that :mod:`.format` (Qt-free) imports without Qt; the page is
``gpuadvisor.gui.pages.probe.page.ProbePage`` (also ``gpuadvisor.gui.pages.probe_page``).
"""
