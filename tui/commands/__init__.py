"""One module per CLI command: parse nothing, load through the core, print."""
