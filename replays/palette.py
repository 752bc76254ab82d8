"""The bean colours: one per kind, told apart by people with the common colour-vision
deficiencies too.

``static/css/table.css`` paints cards with these (its ``--k-*`` variables; a test keeps
the two in step). Chosen by a search that maximised the smallest CIELAB distance (ΔE*ab,
CIE 1976) between any two colours as seen with normal vision and as simulated for
protanopia, deuteranopia and tritanopia (Machado, Oliveira and Fernandes 2009, severity
1.0, applied to linear sRGB), while staying near each bean's own colour (coffee brown,
wax yellow, chili red...). The smallest distance is about 17; the test fails below
:data:`MIN_DELTA_E`. Colour is never the only cue: each kind also has its pattern and
its initials on the card.
"""

from __future__ import annotations

from bohnanza_core.cards import BeanKind

BEAN_COLOURS: dict[BeanKind, str] = {
    BeanKind.COFFEE: "#6f4e37",
    BeanKind.WAX: "#f1d64e",
    BeanKind.BLUE: "#285ac8",
    BeanKind.CHILI: "#f35339",
    BeanKind.STINK: "#9678aa",
    BeanKind.GREEN: "#3a9634",
    BeanKind.SOY: "#d0cda5",
    BeanKind.BLACK_EYED: "#eaf5eb",
    BeanKind.RED: "#961409",
    BeanKind.GARDEN: "#a0d278",
    BeanKind.COCOA: "#3c2319",
}

MIN_DELTA_E = 15.0
"""The smallest ΔE*ab allowed between two bean colours under any simulated vision. About
2.3 is a just-noticeable difference; 10 or more reads as clearly different colours at a
glance, and small card faces need more than large patches (hence 15)."""

MACHADO_2009: dict[str, tuple[tuple[float, float, float], ...]] = {
    "protanopia": ((0.152286, 1.052583, -0.204868),
                   (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968),
                     (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779),
                   (-0.078411, 0.930809, 0.147602),
                   (0.004733, 0.691367, 0.303900)),
}
"""Machado et al. (2009) simulation matrices at severity 1.0, for linear sRGB."""


def linear_rgb(colour: str) -> tuple[float, float, float]:
    """ "#rrggbb" as linear sRGB components in 0..1."""
    values = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4 for v in values)
    return r, g, b


def simulate(rgb: tuple[float, float, float], vision: str) -> tuple[float, float, float]:
    """Linear sRGB as seen with ``vision`` ("normal" or a key of :data:`MACHADO_2009`)."""
    if vision == "normal":
        return rgb
    rows = MACHADO_2009[vision]
    r, g, b = (min(1.0, max(0.0, row[0] * rgb[0] + row[1] * rgb[1] + row[2] * rgb[2]))
               for row in rows)
    return r, g, b


def lab(rgb: tuple[float, float, float]) -> tuple[float, float, float]:
    """Linear sRGB to CIELAB (D65 white)."""
    r, g, b = rgb
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def delta_e(first: str, second: str, vision: str = "normal") -> float:
    """ΔE*ab (CIE 1976) between two colours as seen with ``vision``."""
    a = lab(simulate(linear_rgb(first), vision))
    b = lab(simulate(linear_rgb(second), vision))
    return float(sum((p - q) ** 2 for p, q in zip(a, b, strict=True)) ** 0.5)
