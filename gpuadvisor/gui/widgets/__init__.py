"""Small reusable widgets of the desktop app (inputs, panels) and their translated labels."""
