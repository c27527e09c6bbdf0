"""SQL analysis: parsing, categories, exact-set and partial match, diff."""
