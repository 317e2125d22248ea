"""Rust types and paths as text: what a type written in a signature stands for, what a receiver path reads.

Receivers (index/receivers.py) type Rust values from these: `&'a mut dense::DFA<T>` is the repository's
`dense.DFA`, `Box<dyn Foo>` a Foo, `Result<T, E>` holds a T for `?`, a `Vec<T>` yields Ts to a `for` loop, and
`dense::DFA::new(x).f()` starts at the type `dense.DFA`. Pure functions of text; the resolver looks the names up.
"""

from __future__ import annotations

import re

SELF = "Self"
# What a `for` loop or an adaptor's closure iterates: `.iter()` and its kin yield what the collection holds, and
# adaptors that keep the elements (`.filter(..)`, `.rev()`, `.cloned()`) yield them too.
ITERATION = re.compile(
    r"\.(?:iter|iter_mut|into_iter)\(\)"
    r"(?:\.(?:filter|skip|take|rev|cloned|copied|peekable|skip_while|take_while|step_by|fuse|inspect)\([^()]*\))*$"
)

# A borrow, a raw pointer, `dyn` or `impl` before a type: a call through it is a call on the type.
BORROW = re.compile(r"^(?:&\s*(?:'\w+\s*)?|\*\s*(?:const|mut)\s+|mut\s+|dyn\s+|impl\s+)+")
# Rust's owning pointers of one value: a call through one is a call on that value.
_WRAPPER = re.compile(r"^(?:(?:std|alloc|core)::(?:boxed|rc|sync|borrow)::)?(?:Box|Rc|Arc|Cow)<(.+)>$")
_TURBOFISH = re.compile(r"::<[^<>]*(?:<[^<>]*>[^<>]*)*>")
_COLLECTION = re.compile(
    r"^(?:(?:std|alloc)::(?:vec|collections)::)?(?:Vec|VecDeque|BTreeSet|HashSet|BinaryHeap|Box)<(.+)>$"
)
_WRAPPED = re.compile(r"^(?:[\w:]*::)?(?:Result|Option)<(.+)>$")
_SLICE = re.compile(r"^\[(.+?)(?:;[^\]]*)?\]$")
_GENERIC = re.compile(r"[A-Z][0-9]*")
_TYPE_PATH = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def _dotted(segments: list[str]) -> str:
    """A Rust path's type as the resolver looks it up, with every module written before it (``crate::dfa::DFA``
    -> ``crate.dfa.DFA``: another module's DFA is another type; _nested finds the modules' files)."""
    return ".".join(w for w in segments if w)


def type_name(text: str) -> str:
    """A Rust type as the repository would define it: ``&'a mut dense::DFA<T>`` -> ``dense.DFA<T>``,
    ``Box<dyn Foo>`` -> ``Foo``; "" for the standard library's (``std::vec::Vec<u8>``)."""
    text = text.strip()
    while True:
        bare = BORROW.sub("", text).strip()
        wrapped = _WRAPPER.match(bare)
        if wrapped is None:
            break
        text = wrapped.group(1)
    text = bare
    if text.startswith(("std::", "core::", "alloc::", "::std::", "::core::")):
        return ""
    angle = text.find("<")
    head, args = (text, "") if angle < 0 else (text[:angle], text[angle:])
    return _dotted(head.split("::")) + args


def element_type(text: str) -> str | None:
    """The element type of a Rust collection the standard library defines: ``Vec<State>``, ``&[State]``,
    ``[u8; 4]``, ``BTreeSet<Id>`` -> the element; None for anything else."""
    text = BORROW.sub("", text.strip())
    held = _COLLECTION.match(text) or _SLICE.match(text)
    return held.group(1).strip() if held is not None else None


def unwrapped(text: str) -> str | None:
    """What a Rust `Result<T, E>` or `Option<T>` holds (`io::Result<T>`, a crate's `Result<T>` alias too), as `?`
    and `Some(x)` / `Ok(x)` take it out; None for any other type."""
    held = _WRAPPED.match(text.strip())
    if held is None:
        return None
    inner, depth = held.group(1), 0
    for i, ch in enumerate(inner):  # `Result<Vec<(A, B)>, E>`: up to the first comma outside brackets
        depth += 1 if ch in "<([" else -1 if ch in ">)]" else 0
        if ch == "," and depth == 0:
            return inner[:i].strip()
    return inner.strip()


def receiver_path(path: str) -> tuple[str, str]:
    """A Rust receiver or value path as (the dotted path of_path reads, the type it starts from, "" for none):
    ``dense::DFA::new(x).f()`` -> (``new(x).f()``, ``dense.DFA``); ``util::parse()`` -> (``util.parse()``, "");
    ``Self::new()`` -> (``new()``, ``Self``)."""
    path = _TURBOFISH.sub("", path)
    if "::" not in path:
        return path, ""
    head, paren, tail = path.partition("(")
    segments = head.split("::")
    # a path with a call ends in a function (`dense::DFA::new(`); one without is a type (`dense::DFA`), a call's
    # qualifier
    typed = max(
        (i for i, seg in enumerate(segments if not paren else segments[:-1]) if seg[:1].isupper()), default=None
    )
    if typed is None:
        words = [w for w in segments if w not in ("crate", "self", "super")] or segments[-1:]
        return ".".join(words[-2:]) + paren + tail, ""
    return ".".join(segments[typed + 1 :]) + paren + tail, _dotted(segments[: typed + 1])


def is_generic(name: str) -> bool:
    """Whether a type's name reads as a generic parameter (`T`, `D2`): a value of any type."""
    return _GENERIC.fullmatch(name) is not None


def is_type_path(dotted: str) -> bool:
    """Whether ``dotted`` is a path of names (`regex_syntax.hir.Hir`), not a tuple, a slice or a function type."""
    return _TYPE_PATH.fullmatch(dotted) is not None
