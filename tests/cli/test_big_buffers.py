"""Big buffers are mapped on their own where the C library allows it."""

from __future__ import annotations

import platform

import pytest

from cursor_byok.cli.tuning import map_big_buffers


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")
def test_glibc_takes_the_fixed_threshold() -> None:
    assert map_big_buffers() is True
