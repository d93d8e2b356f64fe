"""The keyboard stands in for the table buttons on a desktop.

Keys are matched by pygame's key *names* (``pygame.key.name(event.key)``), so this module needs
no pygame: Enter = DONE, R = ROLL, Backspace = BACK, Escape = the menu (BACK held).
"""

from __future__ import annotations

from hardware.buttons import BACK, DONE, MENU, ROLL

KEY_ACTIONS: dict[str, str] = {
    "return": DONE,
    "enter": DONE,  # the keypad's Enter
    "space": DONE,
    "r": ROLL,
    "backspace": BACK,
    "escape": MENU,
}


def action_for_key(key_name: str) -> str | None:
    """The button action of a key, or None for keys that are not stand-ins."""
    return KEY_ACTIONS.get(key_name.lower())
