"""The roles a cell can be highlighted in (`Instruction.highlights` values): plain names the
referee marks cells with and the display gives each a colour-blind-safe colour and pattern
(display.theme.HIGHLIGHTS), so the display needs no referee to know them."""

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
