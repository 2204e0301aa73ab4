"""tests/data holds exactly the files PROVENANCE.txt describes, with the recorded checksums
(the file's bytes, and for the CNFs the decompressed DIMACS, which is the original's)."""

from __future__ import annotations

import hashlib
import re

from conftest import DATA, FIXTURES

from puzzlesat.generator.core.inputs import decompress


def _checksums() -> dict[tuple[str, str], str]:
    text = (DATA / "PROVENANCE.txt").read_text()
    return {(kind, rel): digest for kind, digest, rel
            in re.findall(r"^(file|text) ([0-9a-f]{64})  (\S+)$", text, re.MULTILINE)}


def test_every_vendored_file_is_listed_with_its_checksum():
    sums = _checksums()
    present = sorted(str(p.relative_to(DATA)) for p in DATA.rglob("*")
                     if p.is_file() and p.name != "PROVENANCE.txt")
    assert sorted(rel for kind, rel in sums if kind == "file") == present
    for (kind, rel), digest in sums.items():
        data = (DATA / rel).read_bytes()
        if kind == "text":
            data = decompress(data, rel)
        assert hashlib.sha256(data).hexdigest() == digest, (kind, rel)


def test_vendored_copies_equal_the_fixtures_when_present():
    """Where the fixtures folder is around, the copies still say what the originals say."""
    pairs = [("heule2009-table1.csv", "published/heule2009-table1.csv"),
             ("zucker2016-flow.csv", "published/zucker2016-flow.csv")]
    pairs += [(f"sat09/{p.name}", f"edgematch/sat09-cnf/{p.name[:-3]}.gz")
              for p in sorted((DATA / "sat09").glob("*.cnf.xz"))]
    for ours, theirs in pairs:
        if (FIXTURES / theirs).is_file():
            assert decompress((DATA / ours).read_bytes()) == \
                decompress((FIXTURES / theirs).read_bytes()), ours
