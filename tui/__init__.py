"""The Textual app and the command line; imports the core, never the reverse."""
