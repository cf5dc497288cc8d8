"""The user's working state: the shared plan and what hangs on it.

:mod:`.state` (``PlanState``: the plan every page shows, with its estimate from
:func:`gpuadvisor.core.resolve.resolve`), :mod:`.sweeps` (the charts' sweeps of that plan, a
collaborator of the state), :mod:`.history` (undo/redo), :mod:`.plan_changes` (how one
change couples others), :mod:`.rig` (the detected or simulated rig), :mod:`.planfile` (plan
files) and :mod:`.settings` (the user's settings). Qt-free: the GUI is a thin view over it,
and the command line reads plan files and settings through it. Arrows point one way:
``cli, gui -> workspace -> (hardware, probes, export, catalog) -> core``.
"""
