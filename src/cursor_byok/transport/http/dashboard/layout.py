"""The dashboard's page frame: a header with the pages and sign-out, inline
CSS, and the small formatters every page shares. Everything a page shows
from the database passes through `escape`."""

from __future__ import annotations

import time
from html import escape

from cursor_byok.store.usage import UsageRow

STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1d2330;color:#fff;padding:.6em 1.2em;display:flex;gap:1.2em;align-items:center}
header a{color:#cfe0ff;text-decoration:none}header .who{margin-left:auto}
header form{display:inline}header button{font:inherit}
main{padding:1em 1.5em;max-width:1100px}
table{border-collapse:collapse;background:#fff;margin:.5em 0 1.2em}
table.call{margin:.3em 0 .6em 1.5em;font-size:13px;border-left:3px solid #4a7bd0}
th,td{padding:.3em .7em;border-bottom:1px solid #e3e6ea;text-align:left}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
svg{background:#fff;font:12px system-ui,sans-serif;display:block;margin:.4em 0 1.2em}
svg .bar{fill:#4a7bd0}svg .axis{stroke:#333}svg .grid{stroke:#e3e6ea}
.token{font:15px monospace;background:#fff7d6;padding:.6em;border:1px solid #e0c050}
.error{color:#a01818}.empty{color:#667}.tool{color:#5a3e9b}.meta{color:#667;font-size:12px}
pre{white-space:pre-wrap;margin:.2em 0;background:#fff;padding:.4em;border:1px solid #e3e6ea}
"""


def page(title: str, body: str, who: str | None = None, csrf: str = "", admin: bool = False) -> str:
    """A whole HTML document; with `who`, the header of a signed-in page."""
    nav = ""
    if who is not None:
        users = '<a href="/ui/users">Users</a>' if admin else ""
        nav = (
            '<a href="/ui/">Overview</a><a href="/ui/conversations">Conversations</a>'
            f'{users}<span class="who">{escape(who)}'
            f"{' (administrator)' if admin else ''}</span>"
            '<form method="post" action="/ui/logout">'
            f'<input type="hidden" name="csrf" value="{escape(csrf)}">'
            '<button type="submit">Sign out</button></form>'
        )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>{escape(title)} - cursor-byok</title><style>{STYLE}</style></head>"
        f"<body><header><strong>cursor-byok</strong>{nav}</header>"
        f"<main><h1>{escape(title)}</h1>{body}</main></body></html>"
    )


def when(ms: int | None) -> str:
    """A time in UTC, to the minute; `never` for none."""
    if not ms:
        return "never"
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(ms / 1000))


def dollars(row: UsageRow) -> str:
    """A cost as `cursor-byok usage` writes it: unknown when no call had a
    price, a `*` when some had none."""
    if row.calls and row.unpriced_calls == row.calls:
        return "unknown"
    return f"${row.cost_usd:,.4f}" + ("*" if row.unpriced_calls else "")


def cache_share(row: UsageRow) -> str:
    """Cache reads over all prompt tokens (input, cache read and write)."""
    prompt = row.input + row.cache_read + row.cache_write
    return f"{row.cache_read / prompt:.1%}" if prompt else "n/a"


def usage_table(first: str, rows: list[UsageRow], key: list[str]) -> str:
    """One row per group (`key` names each), with every token count and cost."""
    head = (
        f"<tr><th>{escape(first)}</th><th class=n>Calls</th><th class=n>Input</th>"
        "<th class=n>Output</th><th class=n>Cache read</th><th class=n>Cache write</th>"
        "<th class=n>Cache hits</th><th class=n>Cost</th></tr>"
    )
    body = "".join(
        f"<tr><td>{escape(name)}</td><td class=n>{r.calls:,}</td><td class=n>{r.input:,}</td>"
        f"<td class=n>{r.output:,}</td><td class=n>{r.cache_read:,}</td>"
        f"<td class=n>{r.cache_write:,}</td><td class=n>{cache_share(r)}</td>"
        f"<td class=n>{dollars(r)}</td></tr>"
        for name, r in zip(key, rows, strict=True)
    )
    return f"<table>{head}{body}</table>"


def total(rows: list[UsageRow]) -> UsageRow:
    """The sum of usage rows."""
    return UsageRow(
        "",
        0,
        "",
        calls=sum(r.calls for r in rows),
        input=sum(r.input for r in rows),
        output=sum(r.output for r in rows),
        cache_read=sum(r.cache_read for r in rows),
        cache_write=sum(r.cache_write for r in rows),
        reasoning=sum(r.reasoning for r in rows),
        cost_usd=sum(r.cost_usd for r in rows),
        unpriced_calls=sum(r.unpriced_calls for r in rows),
    )


def hidden_csrf(csrf: str) -> str:
    return f'<input type="hidden" name="csrf" value="{escape(csrf)}">'
