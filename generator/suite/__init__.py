"""Suites: a TOML spec → instance list → parallel build → a published, verifiable folder.

A suite spec names the suite and a master seed, and lists instance groups; every list-valued
key of a group is an axis of a grid, so one group stands for the product of its axes::

    [suite]
    name = "demo"
    author = "The puzzlesat developers"
    version = "1"
    seed = 2024
    compression = "xz"

    [[group]]
    family = "edge-matching"
    encodings = ["cmp", "all"]
    replicates = 2
    params = { rows = [5, 6], cols = 5, border_colors = 3, center_colors = 4 }

Seeds. An instance's seed is ``derive_seed(suite seed, puzzle key)`` where the puzzle key is
``<family>/<canonical params JSON>/r<replicate>``: it depends on nothing else in the spec, so
adding or removing a group never changes another instance, and the encodings of one grid point
encode the same puzzle. The instance name is the family's canonical name with the replicate
(``em-8-3-8-r1-all``) where ``generate`` puts the seed (``em-8-3-8-s<seed>-all``): short and
stable; the header's ``reproduce`` command carries the seed and ``--name``, so it still
regenerates the file byte for byte.

Publishing (:func:`publish_suite`, :mod:`.publish`) validates the whole spec before writing anything, builds
instances in an executor (any :class:`concurrent.futures.Executor`; the local process pool by
default) and writes each finished instance atomically as it arrives, so an interrupted run
leaves no partial file; a rerun keeps every instance whose DIMACS text equals the regenerated
one. Output bytes never depend on the number of jobs or the completion order: the manifest is
assembled in spec order at the end. :func:`verify_suite` (:mod:`.verify`) regenerates everything from the
folder's copy of the spec and lists every difference.
"""
from puzzlesat.generator.suite.publish import Published, publish_suite
from puzzlesat.generator.suite.spec import Spec, Task, load_spec, parse_spec
from puzzlesat.generator.suite.verify import Verified, verify_suite

__all__ = ["Published", "Spec", "Task", "Verified", "load_spec", "parse_spec", "publish_suite",
           "verify_suite"]
