"""The desktop app: thin Qt views over the shared plan (``gpuadvisor.workspace.state``) and
the core.

Nothing here computes an estimate: pages write the user's choices to the plan state and draw
what the core returns. Entry points: ``gpuadvisor`` (no arguments), ``gpuadvisor gui``,
``gpuadvisor-gui`` and ``python -m gpuadvisor``, all through :func:`gpuadvisor.gui.app.run`.
"""
