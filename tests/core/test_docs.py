"""The documentation in docs/ stays true to the code.

docs/events.md has one section per event type (``### `Name` ``) with a field table
whose first column lists every field in backticks and whose "secret" column says
which are secret and to whom. docs/shuffle.md's JavaScript reference runs under
``node`` and agrees with :func:`bohnanza_core.seeded_shuffle`.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from bohnanza_core import Phase, command_for, seed_commitment, seeded_shuffle
from bohnanza_core.commitments import commit, value_salt
from bohnanza_core.events import EVENT_TYPES, Event
from bohnanza_core.export import FORMAT, VERSION
from tests.core.invariants import sample_events

DOCS = Path(__file__).resolve().parents[2] / "docs"
EVENTS_MD = DOCS / "events.md"
SHUFFLE_MD = DOCS / "shuffle.md"
EXPORT_MD = DOCS / "export.md"

_HEADING = re.compile(r"^### `(\w+)`\s*$", re.MULTILINE)
_ROW = re.compile(r"^\|\s*`(\w+)`\s*\|(.*)\|\s*$", re.MULTILINE)


def event_sections(text: str) -> dict[str, str]:
    """Each ``### `Name` `` section of events.md, by name."""
    matches = list(_HEADING.finditer(text))
    sections = {}
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(text)
        sections[match.group(1)] = text[match.end():end]
    return sections


def field_rows(section: str) -> dict[str, list[str]]:
    """Field name -> the other cells of its table row."""
    return {
        m.group(1): [cell.strip() for cell in re.split(r"(?<!\\)\|", m.group(2))]
        for m in _ROW.finditer(section)
    }


@pytest.fixture(scope="module")
def sections() -> dict[str, str]:
    return event_sections(EVENTS_MD.read_text(encoding="utf-8"))


@pytest.mark.parametrize("cls", EVENT_TYPES, ids=lambda c: c.__name__)
def test_every_event_and_field_is_documented(cls: type[Event],
                                             sections: dict[str, str]) -> None:
    assert cls.__name__ in sections, f"docs/events.md has no section ### `{cls.__name__}`"
    rows = field_rows(sections[cls.__name__])
    fields = [f.name for f in dataclasses.fields(cls)]
    missing = [name for name in fields if name not in rows]
    extra = [name for name in rows if name not in fields]
    assert not missing, f"{cls.__name__}: fields not documented: {missing}"
    assert not extra, f"{cls.__name__}: documented fields that do not exist: {extra}"


@pytest.mark.parametrize("cls", EVENT_TYPES, ids=lambda c: c.__name__)
def test_secret_fields_are_documented_as_secret(cls: type[Event],
                                                sections: dict[str, str]) -> None:
    rows = field_rows(sections[cls.__name__])
    for name, cells in rows.items():
        secret = cells[2]  # type | JSON | secret | meaning
        if name not in cls.SECRET:
            assert secret == "no", f"{cls.__name__}.{name} is public, the doc says {secret!r}"
        elif cls.OWNER is None:
            assert secret == "everything only", f"{cls.__name__}.{name}: {secret!r}"
        else:
            assert secret == f"owner: `{cls.OWNER}`", f"{cls.__name__}.{name}: {secret!r}"


def test_no_section_for_an_event_that_does_not_exist(sections: dict[str, str]) -> None:
    names = {cls.__name__ for cls in EVENT_TYPES}
    assert set(sections) - names == set()


@pytest.mark.parametrize("cls", EVENT_TYPES, ids=lambda c: c.__name__)
def test_decisions_name_their_command(cls: type[Event], sections: dict[str, str]) -> None:
    command = command_for(sample_events()[cls])
    section = sections[cls.__name__]
    if command is None:
        assert "Automatic" in section or "automatic" in section
    else:
        assert "decision" in section.lower()
        assert f"`{type(command).__name__}`" in section, (
            f"{cls.__name__} is caused by {type(command).__name__}; the doc does not say so"
        )


def test_every_phase_is_documented() -> None:
    text = EVENTS_MD.read_text(encoding="utf-8")
    for phase in Phase:
        assert f"| `{phase.name}` | `{phase.value}` |" in text, phase


# -- shuffle.md --------------------------------------------------------------------


DOC_SALT = "00112233445566778899aabbccddeeff"
"""The salt of docs/shuffle.md's worked example."""


def _javascript() -> str:
    text = SHUFFLE_MD.read_text(encoding="utf-8")
    found = re.search(r"```javascript\n(.*?)```", text, re.DOTALL)
    assert found, "docs/shuffle.md has no javascript reference implementation"
    return found.group(1)


def test_shuffle_doc_states_the_pinned_numbers() -> None:
    text = SHUFFLE_MD.read_text(encoding="utf-8")
    assert seed_commitment("table-42", DOC_SALT) in text
    assert "**`[5, 2, 4, 7, 1, 3, 6, 0]`**" in text
    assert "**`[5, 12, 33, 7, 40]`**" in text
    assert "`11, 32, 18, 7, 100, 45, 6, 35, 20,\n99`" in text


def test_javascript_reference_agrees_with_python(tmp_path: Path) -> None:
    # Node is a machine tool, not a project dependency: without it the cross-check
    # cannot run here, but CI (BOHNANZA_REQUIRE_SERVICES=1) must run it.
    if shutil.which("node") is None:
        reason = "node is not installed: the JavaScript reference cannot be cross-checked"
        if os.environ.get("BOHNANZA_REQUIRE_SERVICES") == "1":
            pytest.fail(f"{reason}; BOHNANZA_REQUIRE_SERVICES=1 requires it", pytrace=False)
        pytest.skip(reason)
    cases = [
        ([0, 1, 2, 3, 4, 5, 6, 7], "table-42", 0),
        ([12, 5, 40, 7, 33], "table-42", 1),
        (list(range(104)), "table-42", 0),
        (list(range(154)), "ünïcode seed: with colons", 3),
        (list(range(110)), "x", 17),
        ([], "empty", 1),
        ([9], "one", 2),
    ]
    script = tmp_path / "shuffle.js"
    script.write_text(_javascript(), encoding="utf-8")
    driver = tmp_path / "run.js"
    driver.write_text(
        'const s = require("./shuffle.js");\n'
        f"const cases = {json.dumps(cases)};\n"
        "console.log(JSON.stringify({\n"
        "  shuffles: cases.map(([items, seed, index]) => s.seededShuffle(items, seed, index)),\n"
        f'  commitment: s.seedCommitment("table-42", "{DOC_SALT}"),\n'
        f'  valueSalt: s.valueSalt("{DOC_SALT}", 3, "card"),\n'
        '  commit: s.commit("7429959253b84b358db3bf1cf9cbabd5", "[11,32,18]"),\n'
        "}));\n",
        encoding="utf-8",
    )
    out = subprocess.run(["node", str(driver)], capture_output=True, text=True, timeout=60,
                         check=True, cwd=tmp_path)
    result = json.loads(out.stdout)
    expected = [list(seeded_shuffle(items, seed, index)) for items, seed, index in cases]
    assert result["shuffles"] == expected
    assert result["commitment"] == seed_commitment("table-42", DOC_SALT)
    assert result["valueSalt"] == value_salt(DOC_SALT, 3, "card")
    assert result["commit"] == commit("7429959253b84b358db3bf1cf9cbabd5", "[11,32,18]")


# -- export.md ---------------------------------------------------------------------


def test_export_doc_names_the_format() -> None:
    text = EXPORT_MD.read_text(encoding="utf-8")
    assert f'"format":"{FORMAT}"' in text or f'"format": "{FORMAT}"' in text
    assert f'"version":{VERSION}' in text or f'"version": {VERSION}' in text
    assert "rederive" in text
