"""The Pi's physical side: GPIO buttons, buzzer/LED (gpiozero), the keyboard stand-in on a
desktop, and the systemd notify/watchdog protocol (`hardware.sdnotify`)."""
