"""Functions a C macro defines by pasting its arguments into their names, at the macro's top-level uses in the same
file: definitions of their own, the bodies their header prototypes stand for."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from _factories import index_repo, make_repo
from parse_helpers import parse

pytestmark = pytest.mark.both_stores

WATCHER = r"""
    #include "../include/uv.h"

    #define WATCHER_DEFINE(name, type)                              \
      int uv_##name##_init(uv_loop_t* loop, uv_##name##_t* handle) { \
        handle->type_id = UV_##type;                                 \
        return 0;                                                    \
      }                                                              \
      static void uv__##name##_close(uv_##name##_t* handle) {        \
        uv_##name##_stop(handle);                                    \
      }

    int uv_check_init(uv_loop_t* loop, uv_check_t* handle);

    WATCHER_DEFINE(idle, IDLE)
    WATCHER_DEFINE(check, CHECK);
    WATCHER_DEFINE(too, many, args)

    void run_all(void) {
      WATCHER_DEFINE(inner, INNER)
    }
    """


def test_a_macro_use_at_the_top_level_defines_the_functions_it_pastes() -> None:
    pf = parse("c", WATCHER)
    made = {s.name: s for s in pf.symbols if s.docstring.startswith("Defined by")}
    assert sorted(made) == ["uv__check_close", "uv__idle_close", "uv_check_init", "uv_idle_init"]
    idle = made["uv_idle_init"]
    lines = textwrap.dedent(WATCHER).splitlines()
    assert idle.start_line == idle.end_line == next(i for i, t in enumerate(lines, 1) if "(idle, IDLE)" in t)
    assert idle.signature == "int uv_idle_init(uv_loop_t* loop, uv_idle_t* handle)"
    assert idle.docstring == "Defined by WATCHER_DEFINE(idle, IDLE)."
    assert (idle.kind, idle.exported, idle.min_args, idle.max_args) == ("function", True, 2, 2)
    assert not made["uv__idle_close"].exported  # `static` in the macro's head
    # a prototype of the same name in the file does not keep the body out; a use inside a function, or with
    # another number of arguments, defines nothing
    assert "uv_inner_init" not in {s.name for s in pf.symbols}
    assert "uv_too_init" not in {s.name for s in pf.symbols}


def test_a_call_binds_the_body_a_macro_defines(tmp_path: Path) -> None:
    svc = index_repo(
        make_repo(
            tmp_path,
            {
                "include/uv.h": """
                    typedef struct uv_loop_s uv_loop_t;
                    typedef struct uv_idle_s uv_idle_t;
                    int uv_idle_init(uv_loop_t* loop, uv_idle_t* handle);
                    """,
                "src/watcher.c": WATCHER,
                "app/main.c": """
                    #include "../include/uv.h"
                    int main(void) { return uv_idle_init(0, 0); }
                    """,
            },
            filler=False,
        )
    )
    try:
        rows = svc.db.rows(
            "SELECT ft.path, t.qualified_name, t.start_line FROM edges e JOIN nodes s ON s.id = e.source_id "
            "JOIN nodes t ON t.id = e.target_id JOIN files ft ON ft.id = t.file_id "
            "WHERE e.kind = 'calls' AND s.qualified_name = 'main' AND e.target_name = 'uv_idle_init'"
        )
        assert [(str(r[0]), str(r[1])) for r in rows] == [("src/watcher.c", "uv_idle_init")]
        # asked for by name, the answer is the body the macro defines, with its caller and the macro's use
        detail = svc.node("uv_idle_init")
        assert detail.found and detail.node is not None
        assert (detail.node.filePath, detail.node.kind) == ("src/watcher.c", "function")
        assert detail.docstring == "Defined by WATCHER_DEFINE(idle, IDLE)."
        assert "WATCHER_DEFINE(idle, IDLE)" in detail.source
        assert [c.name for c in detail.callers] == ["main"]
    finally:
        svc.close()
