"""The pygame-ce touchscreen screens."""
