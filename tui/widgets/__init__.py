"""Widgets of the browse screen: facet sidebar, examples table, detail tabs."""
