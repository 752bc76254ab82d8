"""Compile gettext catalogues (``locale/*/LC_MESSAGES/django.po``) to ``.mo`` in pure
Python, for machines without GNU gettext.

The compiled ``.mo`` files are committed beside their ``.po`` files, so a checkout
serves every language with nothing to build: GNU ``msgfmt`` (behind Django's
``compilemessages``) is on the development machines but need not be anywhere else.
After editing a ``.po`` file, recompile with either::

    python manage.py compilemessages          # where GNU gettext is installed
    python -m config.pocompile                # anywhere: this module

``tests/config/test_i18n.py`` fails when a committed ``.mo`` no longer says what its
``.po`` says. Fuzzy entries are left out, as ``msgfmt`` leaves them out.
"""

from __future__ import annotations

import ast
import struct
import sys
from dataclasses import dataclass, field
from pathlib import Path

LOCALE = Path(__file__).resolve().parent.parent / "locale"


@dataclass
class _Entry:
    context: str | None = None
    msgid: str | None = None
    plural: str | None = None
    strings: dict[int, str] = field(default_factory=dict)
    fuzzy: bool = False


def _unquote(text: str) -> str:
    value = ast.literal_eval(text)
    if not isinstance(value, str):
        raise ValueError(f"not a string: {text!r}")
    return value


def read_po(path: Path) -> dict[str, str]:
    """The catalogue of a ``.po`` file as ``.mo`` keys and values: ``context\\x04msgid``
    for a message with a context, ``msgid\\x00plural`` with its forms joined by NUL."""
    entries: list[_Entry] = []
    entry = _Entry()
    target: tuple[str, int] = ("", 0)

    def finish() -> None:
        nonlocal entry
        if entry.msgid is not None:
            entries.append(entry)
        entry = _Entry()

    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            if line.startswith("#,") and "fuzzy" in line:
                if entry.msgid is not None:
                    finish()
                entry.fuzzy = True
            continue
        keyword, _, rest = line.partition(" ")
        if keyword.startswith('"'):
            text = _unquote(line)
        else:
            text = _unquote(rest)
            if keyword in ("msgctxt", "msgid") and entry.msgid is not None:
                finish()  # a new entry begins
        if keyword == "msgctxt":
            entry.context, target = text, ("context", 0)
        elif keyword == "msgid":
            entry.msgid, target = text, ("msgid", 0)
        elif keyword == "msgid_plural":
            entry.plural, target = text, ("plural", 0)
        elif keyword.startswith("msgstr"):
            index = int(keyword[7:-1]) if keyword.startswith("msgstr[") else 0
            entry.strings[index] = text
            target = ("msgstr", index)
        elif keyword.startswith('"'):
            kind, index = target
            if kind == "context":
                entry.context = (entry.context or "") + text
            elif kind == "msgid":
                entry.msgid = (entry.msgid or "") + text
            elif kind == "plural":
                entry.plural = (entry.plural or "") + text
            else:
                entry.strings[index] = entry.strings.get(index, "") + text
    finish()

    catalogue: dict[str, str] = {}
    for item in entries:
        if item.fuzzy and item.msgid:
            continue
        if not any(item.strings.values()) and item.msgid:
            continue  # untranslated: gettext falls back on the msgid itself
        key = item.msgid or ""
        if item.plural is not None:
            key += "\0" + item.plural
        if item.context is not None:
            key = item.context + "\x04" + key
        catalogue[key] = "\0".join(item.strings[i] for i in sorted(item.strings))
    return catalogue


def write_mo(catalogue: dict[str, str]) -> bytes:
    """The GNU ``.mo`` bytes of a catalogue (little-endian, no hash table)."""
    keys = sorted(catalogue)
    ids = [key.encode("utf-8") for key in keys]
    strs = [catalogue[key].encode("utf-8") for key in keys]
    header = 7 * 4
    ids_table = header
    strs_table = ids_table + 8 * len(keys)
    data = strs_table + 8 * len(keys)
    offsets: list[int] = []
    blob = b""
    for chunk in (*ids, *strs):
        offsets += [len(chunk), data + len(blob)]
        blob += chunk + b"\0"
    out = struct.pack("<7I", 0x950412DE, 0, len(keys), ids_table, strs_table, 0, data)
    out += struct.pack(f"<{len(offsets)}I", *offsets)
    return out + blob


def compile_all(locale: Path = LOCALE) -> list[Path]:
    """Compile every ``.po`` under ``locale``; the ``.mo`` files written."""
    written = []
    for po in sorted(locale.glob("*/LC_MESSAGES/*.po")):
        mo = po.with_suffix(".mo")
        mo.write_bytes(write_mo(read_po(po)))
        written.append(mo)
    return written


if __name__ == "__main__":
    for path in compile_all():
        print(f"wrote {path.relative_to(LOCALE.parent)}")
    sys.exit(0)
