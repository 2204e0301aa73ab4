"""The pseudo-Boolean track: the same puzzles as linear constraints over 0-1 variables in the
Pseudo-Boolean Competition's OPB format (``generate --format opb``, a group's
``format = "opb"``), in a decision form whose answer is known by construction (planted: SAT
with the planted solution; a parity variant: UNSAT, with the cutting-planes proof the generator
derives from the certificate, in VeriPB's format) or an optimisation form (``min:``) whose
optimum the MaxSAT track already certifies.

A family's PB module (``<family>/pb.py``, named on its card) defines ``ENCODINGS``,
``OBJECTIVES`` (the optimisation encodings and what they minimise), ``HARD_SATISFIABLE`` (why
an optimisation encoding's constraints have a model),
``estimate(params, encoding, puzzle=None) -> Estimate``, ``encode_opb(puzzle, encoding) ->
Opb``, ``bounds(puzzle, params, rng) -> Bounds`` (for the optimisation encodings),
``refutation(puzzle, encoding) -> bytes | None`` (the VeriPB proof of an UNSAT variant),
``decode_opb(puzzle, encoding, model)``, ``assignment_opb(puzzle, encoding, solution)`` and
``referee(puzzle, solution) -> (broken rules, cost)``.

The proof goes where a known solution goes: the instance's witness file (``generate
--witness``, a suite's ``witnesses/<name>.json``) holds ``proof`` (the VeriPB text) and
``proof-format``, and the competition bundle writes it as ``<name>.pbp`` beside the instance.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterator
from typing import Any

import numpy as np

from puzzlesat.generator.core.files import BY_EXTENSION, Compression
from puzzlesat.generator.core.opb import (
    MAX_OPB_BYTES,
    Opb,
    OpbFile,
    opb_body,
    opb_bytes,
    opb_head,
    opb_pieces,
    opb_text_limit,
    parse_opb,
    read_opb,
)
from puzzlesat.generator.core.save import write_opb_instance
from puzzlesat.generator.core.seeds import Rng
from puzzlesat.generator.core.solving import Solving
from puzzlesat.generator.core.version import VERSION
from puzzlesat.generator.core.writer import gbd_hash_of_body
from puzzlesat.generator.families.params import Estimate
from puzzlesat.generator.tracks import sat
from puzzlesat.generator.tracks.parts import (
    HEADER_HOLDS,
    Made,
    card_module,
    header_limit,
)
from puzzlesat.generator.tracks.table import instance_rows, latex_table, markdown_table

NAME = "pb"
FORMAT = "opb"
COUNT = False
#: the format in words, for ``generate --format``
FORMAT_TEXT = ("OPB for the Pseudo-Boolean Competition (linear constraints; a parity UNSAT "
               "comes with its cutting-planes proof in the witness file)")
TITLE = "pseudo-Boolean"
CONSTRAINTS = "constraints"  # what the body's lines are called
#: what a suite adds to its instances' names (generate names them as SAT ones)
SUITE_SUFFIX = ""
#: the keys a suite spec's group asks for it with
GROUP_KEYS: dict = {"format": "opb"}
REPRODUCE: tuple[tuple[str, ...], tuple[str, ...]] = ((), ("--format", "opb"))
#: the header's ``format`` value of an OPB instance
OPB_FORMAT = "opb-pb24"
#: the proof format of the refutations the generator writes
PROOF_FORMAT = "VeriPB 2.0"
RESULTS = ("sat", "unsat", "unknown", "with a certified optimum", "open")


def has(family) -> bool:
    """Whether the family's card names a module of this track."""
    return NAME in family.TRACKS


def module(family) -> Any:
    """The family's PB module (its card names it), or a UserError naming those that have
    one."""
    return card_module(family, NAME, "pseudo-Boolean form (--format opb)")


def encodings(family) -> dict[str, str]:
    """The family's PB encodings."""
    return module(family).ENCODINGS


def decides(family, encoding: str) -> bool:
    """Whether a file of ``encoding`` asks the puzzle's decision question (what the
    family's certificates answer): not an optimisation (``min:``) encoding."""
    return encoding not in module(family).OBJECTIVES


def estimate(family, params: dict, encoding: str, puzzle=None) -> Estimate:
    """The family's size estimate of its OPB (``clauses``: its constraints)."""
    return module(family).estimate(params, encoding, puzzle)


def encode(family, puzzle, encoding: str) -> Opb:
    """The OPB of ``puzzle``."""
    return module(family).encode_opb(puzzle, encoding)


def make(family, puzzle, params: dict, encoding: str, seed: int | None,
         solving: Solving | None) -> Made:
    """The OPB of ``puzzle`` and what is known of it: an optimisation encoding's certified
    bounds (header lines ``objective``, ``optimum``, ``optimum-from``, ``lower-bound``,
    ``upper-bound``, as the MaxSAT track writes them); a decision encoding's result as the
    SAT track knows it, with the generator's proof when it is UNSAT and one is derived."""
    pb = module(family)
    formula = encode(family, puzzle, encoding)
    header: dict = {"format": OPB_FORMAT}
    if encoding in pb.OBJECTIVES:
        found = pb.bounds(puzzle, params, Rng(seed if seed is not None else 0))
        header.update({"objective": f"minimise {pb.OBJECTIVES[encoding]}",
                       "optimum": "unknown" if found.optimum is None else str(found.optimum),
                       "optimum-from": found.source, "lower-bound": str(found.lower),
                       "upper-bound": "unknown" if found.upper is None else str(found.upper)})
        return Made(formula, "SAT", pb.HARD_SATISFIABLE, found,
                    header, found.arrangement, {"cost": found.upper}, "no known arrangement")
    expected, source = family.expected(puzzle, params, solving)
    proof = pb.refutation(puzzle, encoding) if expected == "UNSAT" else None
    if proof is not None:
        header["proof"] = f"{PROOF_FORMAT}, in the witness file"
    return Made(formula, expected, source, header=header, witness=family.witness(puzzle),
                missing_witness=f"no known solution or proof to write (expected {expected})",
                proof=proof, witness_fields={"proof-format": PROOF_FORMAT} if proof else {})


def summary(inst) -> str:
    """What ``generate`` says of an instance it made."""
    header = inst.made.header
    known = (f"optimum {header['optimum']} ({header['optimum-from']})" if "optimum" in header
             else f"expected {inst.expected} ({inst.expected_from})"
             + (f", {PROOF_FORMAT} proof" if inst.made.proof else ""))
    return (f"{inst.formula.num_vars} variables, {inst.formula.num_constraints} constraints, "
            + known)


#: the picture a description draws: the SAT track's
picture = sat.picture


# -- the file ---------------------------------------------------------------------------------
def head(formula: Opb, header: dict | None) -> bytes:
    """The counts line, the header's ``*`` lines and the objective."""
    return opb_head(formula, header)


def body(formula: Opb) -> bytes:
    """The constraint lines."""
    return opb_body(formula)


def write(path: str, formula: Opb, header: dict | None,
          compression: Compression = BY_EXTENSION) -> int:
    """Write the instance (compressed as ``compression`` says, ``-`` = stdout); its text's
    size."""
    return write_opb_instance(path, formula, header, compression=compression)


def sizes(formula: Opb) -> tuple[int, int]:
    """(variables, constraints)."""
    return formula.num_vars, formula.num_constraints


def gbd_hash(formula: Opb) -> str:
    """The md5 of the constraint lines' tokens joined by single spaces, as GBD hashes
    DIMACS."""
    return gbd_hash_of_body(body(formula))


def fingerprint(formula: Opb) -> tuple:
    """What a file of this formula must match: every constraint and the objective."""
    return file_fingerprint(parse_opb(opb_bytes(formula), "the header's puzzle"))


def read(path) -> OpbFile:
    """The instance file, read no further than its header and its counts line allow
    (:func:`~puzzlesat.generator.tracks.parts.header_limit`, or without a header puzzle that
    reads :data:`~puzzlesat.generator.core.opb.MAX_OPB_BYTES`; and
    :func:`~puzzlesat.generator.core.opb.opb_text_bound`)."""
    return read_opb(path, *_bound(path))


def text_pieces(path, follow_symlinks: bool = True) -> Iterator[bytes]:
    """The decompressed text of the instance file in pieces, bounded as :func:`read` reads
    it."""
    return opb_pieces(path, follow_symlinks, *_bound(path))


def text_limit(path) -> int:
    """The most bytes of text the instance file holds, as :func:`read` reads it."""
    return _bound(path)[0]


def _bound(path) -> tuple[int, str]:
    limit = header_limit(path)
    return opb_text_limit(path, *((MAX_OPB_BYTES, "an OPB instance") if limit is None
                                  else (limit, HEADER_HOLDS)))


def file_fingerprint(parsed: OpbFile) -> tuple:
    """(variables, constraints, a digest of every term, relation and degree in order, and of
    the objective)."""
    digest = hashlib.sha256()
    objective = parsed.objective or (np.zeros(0, np.int32), np.zeros(0, np.int64))
    for part in (parsed.starts, parsed.literals, parsed.coefs, parsed.degrees, parsed.equal,
                 *objective):
        data = (part.tobytes() if part.dtype != object
                else " ".join(map(str, part.tolist())).encode())
        digest.update(part.size.to_bytes(8, "little") + data)
    return parsed.num_vars, parsed.num_constraints, digest.hexdigest()


def file_sizes(parsed: OpbFile) -> tuple[int, int]:
    """(variables, constraints) of a file read."""
    return parsed.num_vars, parsed.num_constraints


def file_lines(parsed: OpbFile) -> list[str]:
    """What ``show`` says of a file read: its counts and objective."""
    terms = int(parsed.starts[-1]) if parsed.starts.size else 0
    lines = ["format: OPB", f"variables: {parsed.num_vars}",
             f"constraints: {parsed.num_constraints} ({parsed.num_equal} equalities)",
             f"terms: {terms}"]
    if parsed.objective is not None:
        lines.append(f"objective: min over {parsed.objective[0].size} terms")
    return lines


# -- the description --------------------------------------------------------------------------
def result_word(row) -> str:
    """sat / unsat / unknown for a decision instance; ``with a certified optimum`` or
    ``open`` for an optimisation one."""
    if row.optimum is not None:
        return RESULTS[3 + (row.certified_optimum is None)]
    return row.result


def table_result(rows: list) -> str:
    """A group's results for the description's table: sat/unsat (decision), optima
    (optimisation)."""
    optimising = [r for r in rows if r.optimum is not None]
    if optimising:
        optima = sorted({r.certified_optimum for r in optimising} - {None})
        open_ = any(r.certified_optimum is None for r in optimising)
        return ((("opt " + "--".join(dict.fromkeys(map(str, (optima[0], optima[-1])))))
                 if optima else "") + (" open" if open_ else "")).strip()
    results = Counter(r.result for r in rows)
    unknown = f"/{results['unknown']}?" if results["unknown"] else ""
    return f"{results['sat']}/{results['unsat']}{unknown}"


def encoding_text(family, encoding: str) -> tuple[str, str]:
    """(label, description) of a PB encoding, labelled with the format."""
    return f"{encoding} (opb)", f"{module(family).ENCODINGS[encoding]}; pseudo-Boolean"


def abstract(results: str, rows: list, families: list[str], tex) -> str:
    """The abstract's words for a PB suite (LaTeX: ``tex`` escapes text)."""
    return tex(f"{len(rows)} instances ({results}) of the families {', '.join(families)}, "
               f"generated by puzzlesat {VERSION} as linear pseudo-Boolean constraints (OPB), "
               f"with every answer known by construction and a cutting-planes proof "
               f"({PROOF_FORMAT}) for every parity refutation")


def family_notes(family) -> list[tuple[str, str]]:
    """What a description adds under each family: its PB form and the refutation it proves."""
    return [("As linear constraints", module(family).STORY)]


def _cells(row, tex) -> list[str]:
    """An instance's own cells: its name, constraints, known answer and how it is known (LaTeX
    when ``tex``, the escaper, is given)."""
    answer = f"opt {row.optimum}" if row.optimum is not None else row.result.upper()
    known = ("certified bounds" if row.optimum is not None else row.expected_from
             + (" + proof" if row.result == "unsat" and row.witness else ""))
    return [row.name, str(row.clauses), *((tex(answer), tex(known)) if tex else (answer, known))]


_HEAD, _ALIGN = ["instance", "constraints", "answer", "known by"], "lrll"


_INTRO = ("Every answer is known by construction: a planted solution or optimal trace, a "
          "certified optimum, a trace's optimality (sliding budgets below the distance: no "
          "proof is written), or a counting argument refuting the parity variants, for each "
          "of which the generator writes a VeriPB 2.0 proof (cutting planes: additions and "
          "one division by 2) that puzzlesat's checker and VeriPB verify.")


def markdown_section(rows: list, calibration: list[dict]) -> list[str]:
    """The section of description.md on the PB instances and their proofs."""
    return (["## Pseudo-Boolean instances", "", _INTRO, ""]
            + markdown_table(_HEAD, instance_rows(rows, calibration, _cells, None), _ALIGN,
                             calibration))


def latex_section(rows: list, calibration: list[dict], tex) -> list[str]:
    """The section of description.tex on the PB instances and their proofs (``tex`` escapes
    text)."""
    return ([r"\section{The pseudo-Boolean instances}", tex(_INTRO), ""]
            + latex_table(_HEAD, instance_rows(rows, calibration, _cells, tex), _ALIGN,
                          calibration, "Each instance's constraints, its known answer and how "
                          "it is known, and the solvers' CPU seconds.", "tab:pb", tex,
                          wide=True))
