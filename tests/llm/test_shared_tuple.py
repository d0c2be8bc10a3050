"""`SharedTuple`: a tuple to every reader, whose appends share storage."""
# ruff: noqa: RUF005  (`+` is the append under test)

from __future__ import annotations

import pickle
import threading

import pytest

from cursor_byok.llm.shared_tuple import SharedTuple


def test_an_append_leaves_the_sequence_it_extends_as_it_was() -> None:
    a = SharedTuple(["x", "y"])
    b = a + ("z",)
    c = b + ("w",)
    assert a == ("x", "y") and b == ("x", "y", "z") and c == ("x", "y", "z", "w")
    assert list(a) == ["x", "y"] and len(a) == 2 and a[-1] == "y"
    assert list(c[1:3]) == ["y", "z"]
    assert list(reversed(b)) == ["z", "y", "x"]
    with pytest.raises(IndexError):
        a[2]


def test_two_different_extensions_of_one_sequence_do_not_see_each_other() -> None:
    base = SharedTuple(["x"])
    first = base + ("a",)
    second = base + ("b",)  # the list already holds "a" after "x": a copy of its own
    assert first == ("x", "a") and second == ("x", "b")
    assert first + ("c",) == ("x", "a", "c")
    assert second + ("d",) == ("x", "b", "d")
    assert base == ("x",)


def test_the_same_objects_appended_twice_share_the_storage() -> None:
    """The same step computed again (a refused commit, then the retry)
    extends by the very objects already there: no copy."""
    message = object()
    base = SharedTuple([object()])
    once, again = base + (message,), base + (message,)
    assert once == again and once.extends(base) and again.extends(once)


def test_it_compares_hashes_and_pickles_as_the_tuple_of_its_items() -> None:
    shared = SharedTuple([1, 2]) + (3,)
    assert shared == (1, 2, 3) and shared != (1, 2)
    assert (1, 2, 3) == shared  # noqa: SIM300 (the tuple's side first: its reflection)
    assert shared != [1, 2, 3]  # a tuple never equals a list
    assert hash(shared) == hash((1, 2, 3)) and repr(shared) == "(1, 2, 3)"
    assert pickle.loads(pickle.dumps(shared)) == (1, 2, 3)
    assert shared[1:] == (2, 3) and shared[::2] == (1, 3) and shared[5:1] == ()
    assert shared + () is shared


def test_a_slice_is_a_view_that_extends_like_the_rest() -> None:
    history = SharedTuple(range(5))
    window = history[2:]
    assert window == (2, 3, 4) and window[0] == 2
    longer = history + (5,)
    assert longer.extends(history) and not history.extends(longer)
    assert longer[2:].extends(window)
    items = ["".join("ab"), "".join("cd")]
    assert SharedTuple(items).extends((items[0],)) is True  # the same objects
    assert SharedTuple(items).extends(("".join("ab"),)) is False  # equal is not enough


def test_appends_from_many_threads_lose_nothing() -> None:
    base = SharedTuple[int]()
    grown: list[SharedTuple[int]] = []

    def extend(n: int) -> None:
        history = base
        for i in range(200):
            history = history + (n * 1000 + i,)
        grown.append(history)

    threads = [threading.Thread(target=extend, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(tuple(g) for g in grown) == [
        tuple(n * 1000 + i for i in range(200)) for n in range(4)
    ]
