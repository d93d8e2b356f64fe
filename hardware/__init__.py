"""GPIO buttons and buzzer (gpiozero), and the keyboard stand-in on a desktop."""
