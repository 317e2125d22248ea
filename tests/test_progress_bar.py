"""The index progress bar: fits the terminal, shows the fraction done, redraws in place and erases itself."""

from __future__ import annotations

import io

import pytest

from igraph_mcp.progress_bar import ProgressBar


@pytest.mark.parametrize(("done", "total", "fraction"), [(0, 10, 0.0), (5, 10, 0.5), (10, 10, 1.0), (15, 10, 1.0)])
def test_the_bar_fills_with_the_fraction_done(done: int, total: int, fraction: float) -> None:
    line = ProgressBar.line("embed", done, total, 75.0, width=80)
    assert line.startswith("embed    [") and line.endswith(f"] {done}/{total} 1:15")
    inside = line[line.index("[") + 1 : line.index("]")]
    assert set(inside) <= {"#", "-"} and len(inside) > 40
    assert inside.count("#") == int(len(inside) * fraction) and inside == "#" * inside.count("#") + "-" * inside.count(
        "-"
    )
    assert len(line) == 79  # one column left free: no wrap at the edge


def test_a_narrow_terminal_drops_the_bar_and_never_wraps() -> None:
    assert "[" not in ProgressBar.line("parse", 3, 9, 1.0, width=24)
    assert len(ProgressBar.line("a-very-long-phase-name", 3, 9, 1.0, width=10)) == 9
    assert ProgressBar.line("walk", 7, 0, 0.0, width=40).endswith(" 7 0:00")  # total unknown: a count only


def test_updates_redraw_one_line_and_close_erases_it() -> None:
    out = io.StringIO()
    bar = ProgressBar(out)
    bar.update("parse", 1, 3)
    bar.update("parse", 2, 3)  # within the redraw interval: skipped
    bar.update("parse", 3, 3)  # the last step always draws
    bar.update("embed", 0, 2)  # so does a new phase
    drawn = out.getvalue().split("\r")[1:]
    assert [d.split()[0] + " " + d.split()[-2] for d in drawn] == ["parse 1/3", "parse 3/3", "embed 0/2"]
    assert "\n" not in out.getvalue()
    bar.close()
    assert out.getvalue().endswith("\r\x1b[K")
    bar.close()  # closing twice writes nothing more
    assert out.getvalue().count("\r\x1b[K") == 1
