"""The roles a cell can be highlighted in (`Instruction.highlights` values): plain names the
referee marks cells with and the display gives each a colour-blind-safe colour and pattern
(display.theme.HIGHLIGHTS), so the display needs no referee to know them."""

from companion.i18n import N_

TARGET = "target"  # where a piece may go / should be put
FROM = "from"  # where a piece came from
TO = "to"  # where a piece went
FLIP = "flip"  # turn this stone over
REMOVE = "remove"  # take this piece off the board
RESTORE = "restore"  # put the board back as it was here
ERROR = "error"  # the cell that makes the move illegal
UNCLEAR = "unclear"  # the camera cannot see this cell (a hand, a shadow, glare over it)
ASKED = "asked"  # the piece a question is about ("Which gold piece is on g2 now?")
PICKED = "picked"  # the piece tapped first, to swap with the next (Arimaa's Arrange)

ROLES = (TARGET, FROM, TO, FLIP, REMOVE, RESTORE, ERROR, UNCLEAR, ASKED, PICKED)

# What each role says to the players, in the display's key and the exported page's tooltips
# (English; translated where it is shown: `_(WORDS[role])`).
WORDS: dict[str, str] = {
    TARGET: N_("put here"),
    FROM: N_("moved from"),
    TO: N_("just moved"),
    FLIP: N_("turn over"),
    REMOVE: N_("take off"),
    RESTORE: N_("put back"),
    ERROR: N_("not allowed"),
    UNCLEAR: N_("cannot see"),
    ASKED: N_("asked about"),
    PICKED: N_("picked"),
}
