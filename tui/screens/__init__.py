"""Screens of the app: evaluation progress, browse, help."""
