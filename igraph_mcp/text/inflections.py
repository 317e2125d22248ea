"""Other inflections of an English word: a question says "equals" or "parsing" where the code says `equal` and `parse`.

Not a stemmer: the forms are spellings to look up, not one stem for all of them, so the index's terms stay as
written and retrieval keeps only the forms the index holds (a wrong guess such as "pars" is simply not there).
"""

from __future__ import annotations

import re

MIN_LENGTH = 4  # "is", "was", "bus" and "gas" are not plurals to undo
_WORD = re.compile(r"[a-z]+")
_VOWELS = frozenset("aeiou")


def _doubled(stem: str) -> bool:
    # "stopp" of "stopped", "runn" of "running": the consonant doubled before the ending
    return len(stem) >= 3 and stem[-1] == stem[-2] and stem[-1] not in _VOWELS and stem[-1] not in "lsz"


def word_forms(word: str) -> tuple[str, ...]:
    """The other inflections of a lower-case ASCII ``word`` (plural and singular, -ing, -ed and the base form),
    most likely first, without ``word`` itself; () for anything that is not such a word of ``MIN_LENGTH`` letters.

    Over-generation is cheap: a caller keeps only the forms its vocabulary holds."""
    if len(word) < MIN_LENGTH or not _WORD.fullmatch(word):
        return ()
    out: list[str] = []
    if word.endswith("ies"):
        out.append(word[:-3] + "y")
    elif word.endswith(("ses", "xes", "ches", "shes", "zes")):
        out += [word[:-2], word[:-1]]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        out.append(word[:-1])
    if word.endswith("ing") and len(word) >= 6:
        stem = word[:-3]
        out += [stem, stem + "e"]
        if _doubled(stem):
            out.append(stem[:-1])
    elif word.endswith("ied"):
        out.append(word[:-3] + "y")
    elif word.endswith("ed") and not word.endswith("eed"):  # "need", "speed" are base forms
        stem = word[:-2]
        out += [stem, stem + "e"]
        if _doubled(stem):
            out.append(stem[:-1])
    if not word.endswith(("s", "ing", "ed")) or word.endswith("eed"):
        # A base form: the code may say the plural ("equals", "values") or the -ing form ("encoding").
        if word.endswith(("x", "ch", "sh", "z")):
            out.append(word + "es")
        elif word.endswith("y") and word[-2] not in _VOWELS:
            out.append(word[:-1] + "ies")
        else:
            out.append(word + "s")
        out.append((word[:-1] if word.endswith("e") and not word.endswith("ee") else word) + "ing")
    return tuple(dict.fromkeys(f for f in out if f != word and len(f) >= MIN_LENGTH - 1))
