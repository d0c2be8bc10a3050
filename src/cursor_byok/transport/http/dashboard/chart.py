"""Bar charts as inline SVG, drawn on the server: no script, no CDN, and
a person reads them at a glance (axes, a scale, a label on every bar)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from html import escape

WIDTH = 720
BAR_HEIGHT = 22
LABEL_WIDTH = 180
VALUE_WIDTH = 110


def bars(title: str, rows: Sequence[tuple[str, float]], shown: Callable[[float], str]) -> str:
    """Horizontal bars, one per (label, value), longest scaled to the width."""
    if not rows:
        return f'<p class="empty">{escape(title)}: nothing yet.</p>'
    top = max((value for _, value in rows), default=0.0) or 1.0
    span = WIDTH - LABEL_WIDTH - VALUE_WIDTH
    height = BAR_HEIGHT * len(rows) + 30
    parts = [
        f'<svg role="img" aria-label="{escape(title)}" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title>",
        f'<line x1="{LABEL_WIDTH}" y1="0" x2="{LABEL_WIDTH}" y2="{height - 24}" class="axis"/>',
    ]
    for index, (label, value) in enumerate(rows):
        y = index * BAR_HEIGHT
        length = max(1.0, span * value / top) if value > 0 else 0.0
        parts.append(
            f'<text x="{LABEL_WIDTH - 6}" y="{y + 15}" text-anchor="end">{escape(label)}</text>'
            f'<rect x="{LABEL_WIDTH}" y="{y + 3}" width="{length:.1f}" height="{BAR_HEIGHT - 6}"'
            f' class="bar"><title>{escape(label)}: {escape(shown(value))}</title></rect>'
            f'<text x="{LABEL_WIDTH + length + 6:.1f}" y="{y + 15}">{escape(shown(value))}</text>'
        )
    axis_y = height - 24
    parts.append(
        f'<line x1="{LABEL_WIDTH}" y1="{axis_y}" x2="{LABEL_WIDTH + span}" y2="{axis_y}"'
        ' class="axis"/>'
        f'<text x="{LABEL_WIDTH}" y="{axis_y + 16}">0</text>'
        f'<text x="{LABEL_WIDTH + span}" y="{axis_y + 16}" text-anchor="end">'
        f"{escape(shown(top))}</text></svg>"
    )
    return f'<p class="meta">{escape(title)}</p>' + "".join(parts)


def columns(title: str, rows: Sequence[tuple[str, float]], shown: Callable[[float], str]) -> str:
    """Vertical bars over time (one per day, oldest left), with a y scale
    and the first, middle and last day named under the axis."""
    if not rows:
        return f'<p class="empty">{escape(title)}: nothing yet.</p>'
    top = max(value for _, value in rows) or 1.0
    left, bottom, plot_height = 80, 30, 180
    step = (WIDTH - left - 10) / len(rows)
    height = plot_height + bottom + 10
    parts = [
        f'<svg role="img" aria-label="{escape(title)}" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title>",
    ]
    for fraction in (0.0, 0.5, 1.0):
        y = 10 + plot_height * (1 - fraction)
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{WIDTH - 10}" y2="{y:.1f}" class="grid"/>'
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">'
            f"{escape(shown(top * fraction))}</text>"
        )
    named = {0, len(rows) // 2, len(rows) - 1}
    for index, (label, value) in enumerate(rows):
        bar = plot_height * value / top
        x = left + index * step
        parts.append(
            f'<rect x="{x + 1:.1f}" y="{10 + plot_height - bar:.1f}" width="{max(step - 2, 1):.1f}"'
            f' height="{bar:.1f}" class="bar"><title>{escape(label)}: {escape(shown(value))}'
            "</title></rect>"
        )
        if index in named:
            anchor = "start" if index == 0 else "end" if index == len(rows) - 1 else "middle"
            at = x if index == 0 else x + step if index == len(rows) - 1 else x + step / 2
            parts.append(
                f'<text x="{at:.1f}" y="{height - 8}" text-anchor="{anchor}">{escape(label)}</text>'
            )
    parts.append(
        f'<line x1="{left}" y1="{10 + plot_height}" x2="{WIDTH - 10}" y2="{10 + plot_height}"'
        ' class="axis"/></svg>'
    )
    return "".join(parts)
