"""A published suite's prose: description.md, description.tex and CITATION.cff.

All three are pure functions of the spec and the manifest rows, so ``verify`` can regenerate
and compare them like any other file. The family text comes from each family module's
``STORY``, ``ENCODINGS`` and ``REFERENCES``; nothing here knows a family.

``description.tex`` is the 1–2 page IEEE-proceedings skeleton the SAT Competition asks for
with each benchmark family: the story, the parameters, a summary table of the instances, how to
regenerate them, and the references — ready to edit. CITATION.cff follows CFF 1.2.0; its YAML
is written by hand with JSON-quoted scalars (valid YAML) so no YAML library is needed.

>>> print(_yaml({"title": "A: b", "authors": [{"name": "X"}], "year": 2009}), end="")
title: "A: b"
authors:
  - name: "X"
year: 2009
"""

from __future__ import annotations

import json
from collections import Counter

import puzzlesat
from puzzlesat.generator.core.dimacs import canonical_json
from puzzlesat.generator.families import get_family

RESULTS = ("sat", "unsat", "unknown")


# -- shared facts ---------------------------------------------------------------------------------
def _title(spec) -> str:
    return spec.extra.get("title") or f"The {spec.name} benchmark suite"


def _result_counts(rows) -> str:
    counts = Counter(row["result"] for row in rows)
    return ", ".join(f"{counts[r]} {r}" for r in RESULTS if counts[r])


def _param_values(rows, family: str) -> dict[str, list[str]]:
    """Each parameter of ``family`` with the distinct values the suite uses, in first-seen
    order."""
    values: dict[str, dict[str, None]] = {}
    for row in rows:
        if row["family"] == family:
            for key, value in row["params"].items():
                text = value if isinstance(value, str) else canonical_json(value)
                values.setdefault(key, {})[text] = None
    return {key: list(seen) for key, seen in values.items()}


def _encodings(rows, family: str) -> list[str]:
    return list(dict.fromkeys(row["encoding"] for row in rows if row["family"] == family))


def _references(spec) -> list[dict]:
    """The REFERENCES of every family used, first occurrence of each title kept."""
    seen: dict[str, dict] = {}
    for name in spec.families:
        for ref in getattr(get_family(name), "REFERENCES", ()):
            seen.setdefault(ref.get("title", canonical_json(ref)), dict(ref))
    return list(seen.values())


def _cite(ref: dict) -> str:
    """A one-line plain-text citation of a CFF reference entry."""
    names = []
    for author in ref.get("authors", []):
        given, family = author.get("given-names", ""), author.get("family-names", "")
        names.append(f"{given} {family}".strip() or author.get("name", ""))
    venue = ref.get("journal") or ref.get("collection-title") or \
        (ref.get("conference") or {}).get("name", "")
    parts = [", ".join(n for n in names if n), f"\u201c{ref.get('title', '')}\u201d", venue,
             str(ref.get("year", "")), f"doi:{ref['doi']}" if ref.get("doi") else ""]
    return ", ".join(p for p in parts if p) + "."


def _group_summary(rows) -> list[dict]:
    """One line per (group, family, encoding): instance count, size ranges, results."""
    groups: dict[tuple, list] = {}
    for row in rows:
        groups.setdefault((row["group"], row["family"], row["encoding"]), []).append(row)
    out = []
    for (group, family, encoding), members in groups.items():
        variables = [r["variables"] for r in members]
        clauses = [r["clauses"] for r in members]
        out.append({"group": group, "family": family, "encoding": encoding,
                    "count": len(members), "variables": _span(variables),
                    "clauses": _span(clauses), "results": _result_counts(members)})
    return out


def _span(values: list[int]) -> str:
    low, high = min(values), max(values)
    return f"{low:,}" if low == high else f"{low:,}\u2013{high:,}"


def _regenerate_lines(spec) -> list[str]:
    return [f"puzzlesat publish suite.toml -o {spec.name} -j 2",
            f"puzzlesat verify {spec.name}"]


# -- description.md -------------------------------------------------------------------------------
def markdown(spec, rows) -> str:
    """The suite described for readers of the published folder."""
    lines = [f"# {_title(spec)}", "",
             f"Version {spec.version} by {spec.author}: {len(rows)} instances "
             f"({_result_counts(rows)}), made by puzzlesat {puzzlesat.__version__} from "
             f"`suite.toml` with master seed {spec.seed}.", ""]
    if spec.extra.get("description"):
        lines += [spec.extra["description"].strip(), ""]
    lines += ["## Families", ""]
    for name in spec.families:
        family = get_family(name)
        lines += [f"### {name}", "", family.STORY.strip(), "", "Encodings:", ""]
        lines += [f"- `{e}`: {family.ENCODINGS[e]}" for e in _encodings(rows, name)]
        lines += ["", "Parameters:", ""]
        lines += [f"- `{k}`: {', '.join(v)}" for k, v in _param_values(rows, name).items()]
        lines.append("")
    lines += ["## Instances", "",
              "| name | encoding | variables | clauses | result | known from | GBD hash |",
              "|---|---|--:|--:|---|---|---|"]
    lines += [f"| {r['name']} | {r['encoding']} | {r['variables']} | {r['clauses']} | "
              f"{r['result']} | {r['expected-from']} | `{r['hash']}` |" for r in rows]
    lines += ["", "## Regenerating", "", "```"] + _regenerate_lines(spec) + ["```", ""]
    references = _references(spec)
    if references:
        lines += ["## References", ""] + [f"- {_cite(ref)}" for ref in references] + [""]
    return "\n".join(lines)


# -- description.tex ------------------------------------------------------------------------------
_TEX_ESCAPES = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                "^": r"\textasciicircum{}", "\u2013": "--", "\u201c": "``", "\u201d": "''"}


def tex(text: str) -> str:
    r"""``text`` with LaTeX's special characters escaped.

    >>> tex("em_7_3_6 & 50%")
    'em\\_7\\_3\\_6 \\& 50\\%'
    """
    return "".join(_TEX_ESCAPES.get(ch, ch) for ch in str(text))


def latex(spec, rows) -> str:
    """A short IEEE-proceedings benchmark description, ready to edit."""
    references = _references(spec)
    cites = "~\\cite{" + ",".join(f"ref{i}" for i in range(1, len(references) + 1)) + "}" \
        if references else ""
    out = [r"\documentclass[conference]{IEEEtran}", r"\usepackage[T1]{fontenc}",
           r"\begin{document}", f"\\title{{{tex(_title(spec))}}}",
           f"\\author{{\\IEEEauthorblockN{{{tex(spec.author)}}}}}", r"\maketitle", "",
           r"\begin{abstract}",
           tex(f"{len(rows)} instances ({_result_counts(rows)}) of the families "
               f"{', '.join(spec.families)}, generated by puzzlesat {puzzlesat.__version__} "
               f"with a known answer for every satisfiable instance") + cites + ".",
           r"\end{abstract}", "", r"\section{Introduction}",
           tex(spec.extra.get("description", "").strip()) or "% TODO: why these instances.", ""]
    out.append(r"\section{The families}")
    for name in spec.families:
        family = get_family(name)
        out += [f"\\subsection{{{tex(name)}}}", tex(family.STORY.strip()), "",
                r"\paragraph{Encodings}", r"\begin{itemize}"]
        out += [f"\\item \\texttt{{{tex(e)}}}: {tex(family.ENCODINGS[e])}"
                for e in _encodings(rows, name)]
        out += [r"\end{itemize}", r"\paragraph{Parameters}", r"\begin{itemize}"]
        out += [f"\\item \\texttt{{{tex(k)}}}: {tex(', '.join(v))}"
                for k, v in _param_values(rows, name).items()]
        out += [r"\end{itemize}", ""]
    out += [r"\section{The instances}",
            r"Per group and encoding: instances, variables, clauses and known results.", "",
            r"\begin{table}[h]", r"\centering\footnotesize", r"\begin{tabular}{rllrrrl}",
            r"group & family & encoding & n & variables & clauses & results \\ \hline"]
    out += [f"{g['group']} & {tex(g['family'])} & {tex(g['encoding'])} & {g['count']} & "
            f"{tex(g['variables'])} & {tex(g['clauses'])} & {tex(g['results'])} \\\\"
            for g in _group_summary(rows)]
    out += [r"\end{tabular}", r"\end{table}", "", r"\section{Reproducing the suite}",
            tex(f"Every instance's seed is derived with sha256 from the master seed "
                f"{spec.seed} and the instance's puzzle key; each file's header names its "
                f"generator, parameters, seed, expected result and a command that regenerates "
                f"it. The whole suite is regenerated and compared byte for byte with:"),
            r"\begin{verbatim}"] + _regenerate_lines(spec) + [r"\end{verbatim}", ""]
    if references:
        out.append(r"\begin{thebibliography}{9}")
        out += [f"\\bibitem{{ref{i}}} {tex(_cite(ref))}"
                for i, ref in enumerate(references, start=1)]
        out.append(r"\end{thebibliography}")
    out += [r"\end{document}", ""]
    return "\n".join(out)


# -- CITATION.cff ---------------------------------------------------------------------------------
def citation(spec) -> str:
    """CFF 1.2.0 metadata of the suite, with the papers whose instances it reproduces."""
    data = {"cff-version": "1.2.0",
            "message": "If you use this benchmark suite, please cite it as below.",
            "type": "dataset", "title": _title(spec), "version": spec.version,
            "authors": [{"name": spec.author}]}
    if "date" in spec.extra:
        data["date-released"] = spec.extra["date"]
    if "license" in spec.extra:
        data["license"] = spec.extra["license"]
    if "url" in spec.extra:
        data["url"] = spec.extra["url"]
    data["keywords"] = ["SAT", "benchmark", "puzzlesat", *spec.families]
    if spec.extra.get("description"):
        data["abstract"] = spec.extra["description"].strip()
    references = _references(spec)
    if references:
        data["references"] = references
    return _yaml(data)


def _yaml(value, indent: int = 0) -> str:
    """Block YAML of dicts, lists and scalars; every string JSON-quoted."""
    pad = " " * indent
    lines = []
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, (dict, list)) and item:
                nested = _yaml(item, indent + 2)
                lines.append(f"{pad}{key}:\n{nested}")
            else:
                lines.append(f"{pad}{key}: {_scalar(item)}\n")
    else:
        for item in value:
            if isinstance(item, dict) and item:
                nested = _yaml(item, indent + 2)
                lines.append(f"{pad}- {nested[indent + 2:]}")
            elif isinstance(item, list) and item:
                lines.append(f"{pad}-\n{_yaml(item, indent + 2)}")
            else:
                lines.append(f"{pad}- {_scalar(item)}\n")
    return "".join(lines)


def _scalar(value) -> str:
    if isinstance(value, bool) or value is None or isinstance(value, (int, float)):
        return json.dumps(value)
    if isinstance(value, (dict, list)):
        return "{}" if isinstance(value, dict) else "[]"
    return json.dumps(str(value), ensure_ascii=False)
