"""The table's language: English or German, from gettext message catalogues.

The `.po` sources live in companion/locale/<lang>/LC_MESSAGES/companion.po and are compiled
(Babel) to a `.mo` next to them on first use, or whenever the `.po` is newer; when that folder
is read-only the catalogue is compiled in memory instead. English is the source language (no
catalogue needed). Everything the table shows goes through `_`, `ngettext` or `pgettext` at
the moment it is shown or said, so a language change applies to the next sentence.

A thread can make its words in another language for a while (`speaking("de")`: a page exported
in the language asked for, while the table goes on in its own); `language()` says the one in use.

Colours and pieces are named per language: `colour_noun("black")` is the player ("Schwarz"),
`colour_adj("black")` the stem a German text declines ("den {colour}en Stein" -> "den
schwarzen Stein"); both follow the table's own colour words (Settings -> colour names).
"""

from __future__ import annotations

import gettext as _gettext
import io
import locale
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LANGUAGES = ("en", "de")
LANGUAGE_NAMES = {"en": "English", "de": "Deutsch"}
DOMAIN = "companion"
LOCALE_DIR = Path(__file__).parent / "locale"

_lock = threading.Lock()
_translations: dict[str, _gettext.NullTranslations] = {}
_current = "en"
_speaking = threading.local()  # a thread's own language for a while (`speaking`)
_colour_names: dict[str, str] = {}


def po_path(language: str) -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def compile_catalogue(language: str) -> bytes:
    """The `.mo` bytes of a language's `.po` (Babel's compiler)."""
    # Babel only when a catalogue is compiled (once, on first use), never at each start
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po_path(language).open("rb") as f:
        catalog = read_po(f, locale=language)
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def _load(language: str) -> _gettext.NullTranslations:
    if language == "en":
        return _gettext.NullTranslations()
    po = po_path(language)
    mo = po.with_suffix(".mo")
    try:
        fresh = mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime
    except OSError:
        fresh = False
    if fresh:
        with mo.open("rb") as f:
            return _gettext.GNUTranslations(f)
    data = compile_catalogue(language)
    try:
        tmp = mo.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, mo)
    except OSError:
        pass  # a read-only install: the catalogue compiled in memory serves
    return _gettext.GNUTranslations(io.BytesIO(data))


def translations(language: str | None = None) -> _gettext.NullTranslations:
    language = language or _in_use()
    with _lock:
        if language not in _translations:
            _translations[language] = _load(language)
        return _translations[language]


def capitalise(text: str) -> str:
    """`text` with its first letter in capitals: a line that starts with a word the table's
    words fill in ("black pieces are called", a problem the command line prints in lower case)
    as a sentence on the screen.

    >>> capitalise("black pieces are called"), capitalise("")
    ('Black pieces are called', '')
    """
    return text[:1].upper() + text[1:]


def check_language(language: str) -> str:
    """`language` if it is one of LANGUAGES, else a ValueError with one clear line."""
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}: choose one of {', '.join(LANGUAGES)}")
    return language


def set_language(language: str) -> None:
    global _current
    check_language(language)
    translations(language)  # compile now, not mid-game
    _current = language


def language() -> str:
    """The language words are made in now: the table's, or this thread's for a while
    (`speaking`)."""
    return _in_use()


def _in_use() -> str:
    own: str | None = getattr(_speaking, "language", None)
    return own or _current


@contextmanager
def speaking(language: str) -> Iterator[None]:
    """This thread's words in `language` until the block ends (then as before), every other
    thread's in the table's: an exported page in the language asked for, made while the table
    goes on speaking its own. A language not in LANGUAGES is a ValueError (`check_language`).

        >>> with speaking("de"):
        ...     language(), _("Settings")
        ('de', 'Einstellungen')
        >>> language(), _("Settings")
        ('en', 'Settings')
    """
    check_language(language)
    translations(language)  # compiled before the first word
    before = getattr(_speaking, "language", None)
    _speaking.language = language
    try:
        yield
    finally:
        _speaking.language = before


def system_language() -> str:
    """The system locale's language when the table speaks it (LANGUAGE, LC_ALL, LC_MESSAGES,
    LANG), else English."""
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var, "")
        if value:
            code = value.split(":")[0].split("_")[0].split(".")[0].lower()
            return code if code in LANGUAGES else "en"
    try:
        code = (locale.getlocale()[0] or "").split("_")[0].lower()
    except ValueError:
        code = ""
    return code if code in LANGUAGES else "en"


def set_colour_names(names: dict[str, str]) -> None:
    """The table's own colour words (class -> word, e.g. "black" -> "dark")."""
    global _colour_names
    _colour_names = dict(names)


def compile_all() -> list[Path]:
    """Write every language's `.mo` next to its `.po` (the install does this once)."""
    written = []
    for language in LANGUAGES:
        if language == "en":
            continue
        mo = po_path(language).with_suffix(".mo")
        mo.write_bytes(compile_catalogue(language))
        written.append(mo)
    return written


def _(message: str) -> str:
    return translations().gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return translations().ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    return translations().pgettext(context, message)


def npgettext(context: str, singular: str, plural: str, n: int) -> str:
    return translations().npgettext(context, singular, plural, n)


def N_(message: str) -> str:
    """Marks a message for extraction; translated later, where it is shown."""
    return message


def _table_word(cls: str, renamed: bool) -> str:
    return _colour_names.get(cls, cls) if renamed else cls


# The colour words the table can use (Settings -> colour names); `_mark_colours` below marks
# both forms of each for the catalogue: the player's name and the adjective's stem.
COLOUR_NOUNS = (
    "black",
    "white",
    "dark",
    "light",
    "gold",
    "silver",
    "amber",
    "blue",
    "green",
    "red",
    "yellow",
    "brown",
    "orange",
    "purple",
)


def colour_noun(cls: str, renamed: bool | None = None) -> str:
    """The player of a colour, capitalised where German capitalises it ("Schwarz"); English
    keeps the class word (the play screen applies the table's words to English text).
    `renamed` (default: in German) applies the table's colour words here."""
    if renamed is None:
        renamed = _in_use() != "en"
    word = _table_word(cls, renamed)
    if word not in COLOUR_NOUNS:
        return word
    return pgettext("colour as a noun", word)


def colour_adj(cls: str, renamed: bool | None = None) -> str:
    """A colour's adjective stem for German declension ("schwarz", "dunkl", "golden")."""
    if renamed is None:
        renamed = _in_use() != "en"
    word = _table_word(cls, renamed)
    if word not in COLOUR_NOUNS:
        return word
    return pgettext("colour adjective stem", word)


def player(cls: str | None) -> str:
    """The player's name at the start of a sentence: "Black", "Schwarz"."""
    if not cls:
        return ""
    return capitalise(colour_noun(cls))


# Marked for extraction with their contexts (babel finds pgettext calls with literal args).
def _mark_colours() -> None:  # pragma: no cover - never called, only read by the extractor
    pgettext("colour as a noun", "black")
    pgettext("colour as a noun", "white")
    pgettext("colour as a noun", "dark")
    pgettext("colour as a noun", "light")
    pgettext("colour as a noun", "gold")
    pgettext("colour as a noun", "silver")
    pgettext("colour as a noun", "amber")
    pgettext("colour as a noun", "blue")
    pgettext("colour as a noun", "green")
    pgettext("colour as a noun", "red")
    pgettext("colour as a noun", "yellow")
    pgettext("colour as a noun", "brown")
    pgettext("colour as a noun", "orange")
    pgettext("colour as a noun", "purple")
    pgettext("colour adjective stem", "black")
    pgettext("colour adjective stem", "white")
    pgettext("colour adjective stem", "dark")
    pgettext("colour adjective stem", "light")
    pgettext("colour adjective stem", "gold")
    pgettext("colour adjective stem", "silver")
    pgettext("colour adjective stem", "amber")
    pgettext("colour adjective stem", "blue")
    pgettext("colour adjective stem", "green")
    pgettext("colour adjective stem", "red")
    pgettext("colour adjective stem", "yellow")
    pgettext("colour adjective stem", "brown")
    pgettext("colour adjective stem", "orange")
    pgettext("colour adjective stem", "purple")


if __name__ == "__main__":  # python -m companion.i18n: compile the catalogues
    for path in compile_all():
        print(f"compiled {path}")
