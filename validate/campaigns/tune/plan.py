"""The tune's plan: its command-line words (limits, the axis, follows, fixed parameters) and,
per axis value, the suite tasks the axis stands for."""

from __future__ import annotations

import dataclasses
import json
import math
import re
from dataclasses import dataclass

from puzzlesat.generator.core.errors import UserError, prefixed
from puzzlesat.generator.families import get_family
from puzzlesat.generator.families.params import coerce, normalize_params
from puzzlesat.generator.instance import build
from puzzlesat.generator.suite.spec import MAX_SUITE_INSTANCES, parse_spec
from puzzlesat.validate.runs.certify import CheckedSolving
from puzzlesat.validate.tracks import Limit, Track, get_track, parse_limit

DEFAULT_MARGIN = 2.0
#: the walk stops after this many consecutive axis values whose median is hard
HARD_STREAK = 2
CLASSES = ("easy", "band", "hard")
COLUMNS = ("axis", "value", "replicate", "seed", "encoding", "solver", "limit", "status",
           "seconds", "wall_seconds", "ended_by", "gbd_hash", "expected", "machine", "load",
           "speed_index", "reference_seconds", "params")
RUNS = "runs"
STOPPED = "a run stopped at its limit"
LANDSCAPE_CSV, LANDSCAPE_PNG, GROUP_TOML = "landscape.csv", "landscape.png", "group.toml"



@dataclass(frozen=True)
class Axis:
    """The one ordered parameter walked, and its values in walking order."""

    name: str
    values: tuple[int, ...]


#: more axis values than this is a typo, not a walk: each value is samples x encodings builds
MAX_AXIS_VALUES = 1000


def _few(text: str, values) -> tuple[int, ...]:
    """``values`` as a tuple, refused (before any is made) when there are too many."""
    if len(values) > MAX_AXIS_VALUES:
        raise UserError(f"--axis {text}: {len(values)} values, at most {MAX_AXIS_VALUES} "
                        f"(use a step, A..B:STEP)")
    return tuple(values)


def parse_axis(text: str) -> Axis:
    """``NAME=A..B`` (inclusive), ``NAME=A..B:STEP`` or ``NAME=V1,V2,...`` (increasing)."""
    name, sep, spec = text.partition("=")
    name = name.strip().replace("-", "_")
    # ASCII digits only: int() would also read other scripts' digits, a value nobody typed
    shape = re.fullmatch(r"\s*(-?\d{1,9})\s*\.\.\s*(-?\d{1,9})\s*(?::\s*(\d{1,9})\s*)?",
                         spec, re.ASCII)
    if sep and name and shape:
        start, stop, step = int(shape[1]), int(shape[2]), int(shape[3] or 1)
        if step < 1 or stop < start:
            raise UserError(f"--axis {text}: the range is empty or reversed (write A..B with "
                            f"A <= B, step >= 1)")
        return Axis(name, _few(text, range(start, stop + 1, step)))
    if sep and name and re.fullmatch(r"\s*-?\d{1,9}(\s*,\s*-?\d{1,9})*\s*", spec, re.ASCII):
        values = _few(text, [int(v) for v in spec.split(",")])
        if any(b <= a for a, b in zip(values, values[1:])):
            raise UserError(f"--axis {text}: values must increase (the axis is walked in "
                            f"order, easy to hard)")
        return Axis(name, values)
    raise UserError(f"--axis must be NAME=A..B, NAME=A..B:STEP or NAME=V1,V2,... (integers), "
                    f"got {text!r}")


@dataclass(frozen=True)
class Follow:
    """A parameter set from the axis value: ``round(ratio * value + offset)``, at least 1."""

    name: str
    ratio: float
    offset: float

    def at(self, value: int) -> int:
        """The followed parameter's value at ``value`` of the axis (at least 1)."""
        return max(1, math.floor(self.ratio * value + self.offset + 0.5))


def parse_follow(text: str, axis: Axis) -> Follow:
    """``NAME=R*AXIS``, ``NAME=R*AXIS+C``, ``NAME=AXIS-C`` ... (R, C decimal numbers)."""
    name, sep, expr = text.partition("=")
    number = r"\d{1,9}(?:\.\d{0,9})?|\.\d{1,9}"  # ASCII (re.ASCII), no 10**20 ratios
    shape = re.fullmatch(rf"\s*(?:({number})\s*\*\s*)?([A-Za-z_-]+)\s*(?:([+-])\s*({number})\s*)?",
                         expr, re.ASCII)
    if not sep or not name.strip() or not shape:
        raise UserError(f"--follow must be NAME=R*{axis.name} (optionally +C or -C), got "
                        f"{text!r}")
    if shape[2].replace("-", "_") != axis.name:
        raise UserError(f"--follow {text}: follows {shape[2]!r}, but the axis is {axis.name!r}")
    offset = float(shape[4] or 0) * (-1 if shape[3] == "-" else 1)
    return Follow(name.strip().replace("-", "_"), float(shape[1] or 1), offset)


def parse_params(family, texts: tuple[str, ...]) -> dict:
    """``NAME=VALUE`` words (a bare ``NAME`` is a flag set to true) as typed params, named as
    in a suite spec (``border_colors``; ``border-colors`` is accepted)."""
    kinds = {p.name: p for p in family.PARAMS}
    out: dict = {}
    for text in texts:
        name, sep, value = text.partition("=")
        name = name.strip().replace("-", "_")
        if name not in kinds:
            raise UserError(f"--param {text}: unknown parameter {name!r} for family "
                            f"{family.NAME} (known: {', '.join(kinds)})")
        if name in out:
            raise UserError(f"--param {name} is given twice")
        param = kinds[name]
        if param.kind is bool:
            words = {"": True, "true": True, "yes": True, "1": True, "false": False,
                     "no": False, "0": False}
            if value.strip().lower() not in words or (sep and not value.strip()):
                raise UserError(f"--param {text}: {name} is a flag: write {name}, "
                                f"{name}=true or {name}=false")
            out[name] = words[value.strip().lower()]
        elif not sep:
            raise UserError(f"--param {text}: write NAME=VALUE")
        else:
            with prefixed("--param "):
                out[name] = coerce(param, value)
    return out



@dataclass(frozen=True)
class Plan:
    """What to tune: the validated inputs and, per axis value, the suite tasks to classify."""

    family: str
    params: dict  # fixed, typed
    axis: Axis
    follows: tuple[Follow, ...]
    encodings: tuple[str, ...]
    samples: int
    seed: int
    easy: tuple[Limit, ...]  # each at its given limit times the margin
    reference: Limit
    tasks: dict  # axis value -> tuple[Task, ...]
    notes: tuple[str, ...] = ()
    margin: float = DEFAULT_MARGIN
    track: str = "sat"

    @property
    def limits(self) -> tuple[Limit, ...]:
        """Every solver's limit, the easy ones first: the order runs are made in."""
        return (*self.easy, self.reference)

    def easy_text(self) -> str:
        """``minisat22 nor minisat-bin within 120 s`` (the easy side of the band; ``reference
        s`` where the limits are)."""
        if len({(limit.seconds, bool(limit.index)) for limit in self.easy}) == 1:
            unit = self.easy[0].text().rpartition(" within ")[2]
            return f"{' nor '.join(limit.solver for limit in self.easy)} within {unit}"
        return " nor ".join(limit.text() for limit in self.easy)

    def point(self, value: int) -> dict:
        """The params at one axis value (fixed, axis, followers)."""
        return {**self.params, self.axis.name: value,
                **{f.name: f.at(value) for f in self.follows}}


def with_speed_indices(plan: Plan) -> Plan:
    """The plan with the limit of each solver that has a speed workload in reference seconds,
    at this machine's index of it (measured, or from the cache), and the index lines in its
    notes; a solver without an index keeps CPU seconds (a line says why)."""
    from puzzlesat.validate.runs.speed import speeds

    found, failed = speeds(limit.solver for limit in plan.limits)

    def indexed(limit: Limit) -> Limit:
        speed = found.get(limit.solver)
        return limit if speed is None else dataclasses.replace(limit, index=speed.index)

    easy, reference = tuple(map(indexed, plan.easy)), indexed(plan.reference)
    _check_band(easy, reference)
    return dataclasses.replace(plan, easy=easy, reference=reference,
                               notes=(*plan.notes, *(s.line() for s in found.values()),
                                      *failed))


def _check_band(easy: tuple[Limit, ...], reference: Limit) -> None:
    """A UserError when some easy limit is not below the reference limit. Limits of one
    unit (all reference seconds, or all CPU seconds) compare as given; once one solver has
    an index and another none (its workload failed), in CPU seconds on this machine."""
    for limit in easy:
        mixed = bool(limit.index) != bool(reference.index)
        low, high = ((limit.cpu_seconds, reference.cpu_seconds) if mixed
                     else (limit.seconds, reference.seconds))
        if low > high or limit == reference:
            unit = " (CPU seconds here, as one of them has a speed index and the other none)" \
                if mixed else ""
            raise UserError(f"the band is empty: --easy {limit} (with the margin) is not "
                            f"below --reference {reference}{unit} (the easy limit is the "
                            f"band's lower edge, the reference limit its upper edge)")


def make_plan(family_name: str, params: tuple[str, ...] | dict, axis: str | Axis,
              follows: tuple[str, ...] = (), encodings: tuple[str, ...] = (),
              samples: int = 5, seed: int = 0, easy: str | tuple[str, ...] | None = None,
              reference: str | None = None, margin: float = DEFAULT_MARGIN,
              track: str = "sat") -> Plan:
    """Validate everything a tune needs before any solver runs (each mistake one UserError)
    and expand the axis into suite tasks of ``track``, seeds derived as a suite with
    ``seed`` does; the band's edges default to the track's (its clients' ``EASY`` and
    ``REFERENCE``)."""
    family = get_family(family_name)
    tuned = get_track(track)
    easy = tuned.clients.EASY if easy is None else easy
    reference = tuned.clients.REFERENCE if reference is None else reference
    axis = axis if isinstance(axis, Axis) else parse_axis(axis)
    fixed = params if isinstance(params, dict) else parse_params(family, params)
    followers = tuple(parse_follow(f, axis) for f in follows)
    kinds = {p.name: p.kind for p in family.PARAMS}
    for name, what in [(axis.name, "--axis"), *((f.name, "--follow") for f in followers)]:
        if name not in kinds:
            raise UserError(f"{what}: unknown parameter {name!r} for family {family.NAME} "
                            f"(known: {', '.join(kinds)})")
        if kinds[name] is not int:
            raise UserError(f"{what}: {name} is not an integer parameter")
        if name in fixed:
            raise UserError(f"{what}: {name} is also given as --param; give it once")
    names = [axis.name, *(f.name for f in followers)]
    if len(set(names)) != len(names):
        raise UserError("--follow names the axis or another --follow twice")
    if samples < 1:
        raise UserError(f"--samples must be at least 1, got {samples}")
    if seed < 0:
        raise UserError(f"--seed must be a non-negative integer, got {seed}")
    if not (math.isfinite(margin) and margin >= 1):
        raise UserError(f"--margin must be a finite number >= 1 (the easy limits are "
                        f"multiplied by it), got {margin:g}")
    given = [_of_track(parse_limit(text, "--easy"), tuned, "--easy")
             for text in ((easy,) if isinstance(easy, str) else easy)]
    if not given:
        raise UserError("--easy: name at least one solver")
    easy_limits = tuple(dict.fromkeys(dataclasses.replace(g, seconds=g.seconds * margin)
                                      for g in given))
    if len({limit.solver for limit in easy_limits}) < len(easy_limits):
        raise UserError("--easy names a solver twice")
    reference_limit = _of_track(parse_limit(reference, "--reference"), tuned, "--reference")
    _check_band(easy_limits, reference_limit)
    encodings = tuple(dict.fromkeys(encodings)) or (next(iter(tuned.form.encodings(family))),)
    base = {**fixed, axis.name: axis.values[0], **{f.name: f.at(axis.values[0])
                                                   for f in followers}}
    notes = []
    if not family.uses_seed(normalize_params(family, base)) and samples > 1:
        notes.append("these params fix the puzzle (no seed is used): 1 sample per value")
        samples = 1
    count = len(axis.values) * samples * len(encodings)  # counted before any is made
    if count > MAX_SUITE_INSTANCES:
        raise UserError(f"the tune would build up to {count} instances ({len(axis.values)} "
                        f"axis values x {samples} samples x {len(encodings)} encodings), more "
                        f"than {MAX_SUITE_INSTANCES}: use fewer samples or axis values")
    plan = Plan(family.NAME, fixed, axis, followers, encodings, samples, seed, easy_limits,
                reference_limit, {}, tuple(notes), margin, tuned.name)
    groups = "".join(group_toml(plan, value, encodings, list(range(1, samples + 1)))
                     for value in axis.values)
    spec = parse_spec((_suite_head(seed) + groups).encode(), "tune", force=True)
    tasks: dict = {}
    for task in spec.tasks:
        tasks.setdefault(axis.values[task.group - 1], []).append(task)
    first = spec.tasks[0]  # the family's own checks, before any solver runs
    build(first.family, first.params, first.encoding, first.seed, first.name,
          solving=CheckedSolving(), force=True, track=first.track)
    return dataclasses.replace(plan, tasks={v: tuple(t) for v, t in tasks.items()})


def _of_track(limit: Limit, track: Track, option: str) -> Limit:
    """``limit`` when its client solves instances of the tuned track, else a UserError."""
    if limit.track != track.name:
        raise UserError(f"{option} {limit}: solves {limit.track} instances, and the tune "
                        f"makes {track.name} ones (its clients: "
                        f"{', '.join(track.clients.names())})")
    return limit


def _suite_head(seed: int) -> str:
    return f'[suite]\nname = "tune"\nauthor = "puzzlesat tune"\nversion = "1"\nseed = {seed}\n' \
           f'compression = "none"\n'


def toml_value(value) -> str:
    """A TOML literal for the values params hold (bool, int, float, str, lists of them)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a TOML basic string: JSON's escapes are TOML's
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML literal for {value!r}")


def group_toml(plan: Plan, value: int, encodings, replicates: list[int]) -> str:
    """One ``[[group]]`` for the axis value ``value`` (with the format and count of the
    plan's track, where it is not SAT's)."""
    params = ", ".join(f"{k} = {toml_value(v)}" for k, v in plan.point(value).items())
    lines = ["[[group]]", f"family = {toml_value(plan.family)}",
             f"encodings = {toml_value(list(encodings))}",
             *(f"{key} = {toml_value(value)}"
               for key, value in get_track(plan.track).form.GROUP_KEYS.items())]
    if plan.samples > 1 or replicates != [1]:
        lines.append(f"replicates = {toml_value(replicates)}")
    lines.append(f"params = {{ {params} }}")
    return "\n".join(lines) + "\n\n"


