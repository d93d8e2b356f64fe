"""Reading the board off a camera. Knows no rules: it emits observations (cell -> class +
confidence) of a board that is still and free of hands."""
