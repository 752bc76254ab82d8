"""The bean colours stay apart for colour-blind people: every pair, under simulated
protanopia, deuteranopia and tritanopia (Machado et al. 2009) and normal vision, at
least MIN_DELTA_E apart in CIELAB (replays/palette.py says why that threshold); the
stylesheet paints exactly these colours; each kind has its own pattern."""

from __future__ import annotations

import itertools
import re

import pytest
from django.conf import settings

from bohnanza_core.cards import BeanKind
from replays.palette import BEAN_COLOURS, MACHADO_2009, MIN_DELTA_E, delta_e

VISIONS = ("normal", *MACHADO_2009)
STYLESHEET = settings.BASE_DIR / "static" / "css" / "table.css"


@pytest.mark.parametrize("vision", VISIONS)
def test_every_pair_of_bean_colours_is_told_apart(vision: str) -> None:
    close = []
    for (a, colour_a), (b, colour_b) in itertools.combinations(BEAN_COLOURS.items(), 2):
        distance = delta_e(colour_a, colour_b, vision)
        if distance < MIN_DELTA_E:
            close.append(f"{a.value}/{b.value}: {distance:.1f}")
    assert not close, f"too close under {vision} (ΔE*ab < {MIN_DELTA_E}): {close}"


def test_the_simulation_is_machados() -> None:
    # Known points: white and black stay; pure red and green collapse for deuteranopes.
    assert delta_e("#ffffff", "#ffffff", "deuteranopia") == 0
    assert delta_e("#ff0000", "#00ff00", "normal") > 80
    assert delta_e("#ff0000", "#00ff00", "deuteranopia") < delta_e("#ff0000", "#00ff00")
    # Chili and Red were both red before this palette: now far apart in every vision.
    assert all(delta_e(BEAN_COLOURS[BeanKind.CHILI], BEAN_COLOURS[BeanKind.RED], v) > 20
               for v in VISIONS)


def test_the_stylesheet_paints_the_palette_and_a_pattern_for_each_kind() -> None:
    css = STYLESHEET.read_text(encoding="utf-8")
    painted = dict(re.findall(r"--k-([a-z-]+):\s*(#[0-9a-f]{6});", css))
    assert painted == {kind.value: colour for kind, colour in BEAN_COLOURS.items()}
    patterns = {}
    for kind in BeanKind:
        rule = re.search(rf"\.kind-{kind.value} \{{ background: (.*?); \}}", css)
        assert rule is not None, kind
        patterns[kind] = rule.group(1).replace(f"var(--k-{kind.value})", "")
    assert len(set(patterns.values())) == len(BeanKind), "two kinds share a pattern"
