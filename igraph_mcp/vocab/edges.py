"""What an edge's stored confidence means: how sure the resolver is of each way of binding a reference.

Confidences are the precision measured for each method by benchmarks/graph_accuracy.py (Python; requests,
flask and click, jedi as the oracle); a method never measured keeps a conservative guess, noted as such.
"""

from __future__ import annotations

# An edge at or above this confidence is "certain": expansion, `related` and `node` prefer these.
CERTAIN = 0.9

# Resolution method -> confidence. Bound methods only; an unbound reference has confidence 0. The Python
# figures are the lowest precision per method over requests, flask, click and marshmallow (2026-11-30, jedi as
# the oracle, unknowns counted as wrong): import 0.999, inferred 1.000, same_file 0.996, self 0.949.
CONFIDENCE: dict[str, float] = {
    "same_file": 0.99,  # a definition in the caller's scope or file
    "import": 0.99,  # an import binding, followed through re-exports
    "self": 0.95,  # self/cls/super: a member of the enclosing class or of its bases, in MRO order
    "inferred": 0.99,  # receiver typed by an assignment, an annotation, a constructor or a return annotation
    "qualified_name": 0.9,  # `Type.member` where only one type of that name defines the member (not measured)
    # Name-only fallbacks, kept for languages whose receivers are not inferred. Measured on Python before
    # scope resolution: same directory 0.06-0.16, unique global name 0.84-0.92.
    "same_directory": 0.3,
    "unique_global": 0.6,
}
