"""Sub-commands of `companion`; one module each, found by `companion.cli` (see there)."""
