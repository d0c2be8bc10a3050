"""Editing JSON with comments: values set, everything else byte for byte."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cursor_byok.ide.jsonc import JsoncError, loads, set_values

WANTED = {"http.proxy": "http://127.0.0.1:8418", "cursor.general.disableHttp2": True}

USER_FILE = """{
\t// Editor
\t"editor.fontSize": 14, // big enough
\t/* a block
\t   comment */
\t"files.exclude": {"**/.git": true, "**/node_modules": true,},
\t"url": "http://example.com/*not a comment*/ // nor this",
\t"http.proxy": "http://old:3128",
\t"list": [1, 2, 3,],
}
"""


def test_comments_trailing_commas_and_order_are_kept() -> None:
    out = set_values(USER_FILE, WANTED)
    assert out == USER_FILE.replace('"http://old:3128"', '"http://127.0.0.1:8418"').replace(
        '\t"list": [1, 2, 3,],\n',
        '\t"list": [1, 2, 3,],\n\t"cursor.general.disableHttp2": true,\n',
    )
    document = loads(out)
    assert document["url"] == "http://example.com/*not a comment*/ // nor this"
    assert document["files.exclude"] == {"**/.git": True, "**/node_modules": True}


def test_setting_again_changes_nothing() -> None:
    once = set_values(USER_FILE, WANTED)
    assert set_values(once, WANTED) == once


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("", '{\n    "a": 1\n}\n'),
        (" \n", '{\n    "a": 1\n}\n'),
        ("// nothing yet", '// nothing yet\n{\n    "a": 1\n}\n'),
        ("{}", '{"a": 1}'),
        ("{\n}\n", '{\n    "a": 1\n}\n'),
        ('{\n  "x": 2\n}', '{\n  "x": 2,\n  "a": 1\n}'),
        ('{\n  "x": 2 // note\n}', '{\n  "x": 2, // note\n  "a": 1\n}'),
        ('{\r\n\t"x": 2\r\n}\r\n', '{\r\n\t"x": 2,\r\n\t"a": 1\r\n}\r\n'),
        ('\ufeff{"x": [1, {"y": 2}]}', '\ufeff{"x": [1, {"y": 2}], "a": 1}'),
        ('{"x": 2,}', '{"x": 2, "a": 1,}'),
        ('{"a": 5, "a": 7}', '{"a": 5, "a": 1}'),
    ],
)
def test_shapes(before: str, after: str) -> None:
    assert set_values(before, {"a": 1}) == after


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"a": 1', "line 1 column 8"),
        ('{"a": 1}}', "Extra data"),
        ('{"a": /* open', "never closed"),
        ('{"a": "open}', "never closed"),
        ("[1, 2]", "not a JSON object"),
        ('{"a": 1 "b": 2}', "delimiter"),
        ("{'a': 1}", "line 1 column 2"),
        ('{"a": @}', "line 1 column 7: Expecting value"),
        ('{"a": 1 / 2}', "line 1 column 9: unexpected '/'"),
    ],
)
def test_unparseable_text_is_refused_with_where(text: str, message: str) -> None:
    with pytest.raises(JsoncError, match=message):
        set_values(text, {"a": 1})


values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


@given(
    st.dictionaries(st.text(max_size=6), values, max_size=5),
    st.dictionaries(st.text(max_size=6), values, min_size=1, max_size=3),
    st.sampled_from([None, 1, 4, "\t"]),
)
def test_any_document_any_values(
    document: dict[str, object], wanted: dict[str, object], indent: int | str | None
) -> None:
    text = json.dumps(document, indent=indent)
    out = set_values(text, wanted)
    assert loads(out) == {**document, **wanted}
    assert set_values(out, wanted) == out
    untouched = {k: v for k, v in document.items() if k not in wanted}
    for key in untouched:  # other members keep their exact text
        assert json.dumps(key) in out
