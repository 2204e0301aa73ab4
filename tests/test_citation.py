"""The papers the families reproduce are cited with the same authors in the code (each
family's REFERENCES, copied into every suite's CITATION.cff) and in the repository's own
CITATION.cff."""

from __future__ import annotations

import re

from conftest import REPO

from puzzlesat.generator.families import family_names, get_family


def _cff_entries() -> dict[str, list[tuple[str, str]]]:
    """title -> [(family-names, given-names), ...] of the references in CITATION.cff."""
    text = (REPO / "CITATION.cff").read_text()
    entries = {}
    for block in re.split(r"\n  - type: ", text.split("\nreferences:", 1)[1]):
        title = re.search(r'\n    title: "([^"]*)"', block)
        if title:
            entries[title.group(1)] = re.findall(
                r"family-names: (.+)\n\s+given-names: (.+)", block)
    return entries


def test_family_references_and_citation_cff_name_the_same_authors():
    cff = _cff_entries()
    checked = 0
    for name in family_names():
        for ref in get_family(name).REFERENCES:
            if ref["title"] in cff:
                authors = [(a["family-names"], a["given-names"]) for a in ref["authors"]]
                assert cff[ref["title"]] == authors, (name, ref["title"])
                checked += 1
    assert checked >= 3

