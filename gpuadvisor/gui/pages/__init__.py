"""The app's pages: Rig, Probe, Plan and Compare."""
