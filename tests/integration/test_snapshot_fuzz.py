"""Fuzzing the snapshot reader (issue 41): over raw bytes and over well-formed records with hostile fields
(unknown kinds and names, wrong dtypes and shapes, NaN, huge sizes, references out of range, deep
nesting), reading a snapshot never runs anything, never allocates beyond the study's own size, raises
nothing but :class:`~safebandits.study.snapshot.SnapshotError`, and a study whose snapshot is refused
replays its answers to the learner a full replay gives.
"""

from __future__ import annotations

import base64
import json
import sqlite3
import struct
import tracemalloc
import warnings
import zlib

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import safebandits as sb
from safebandits.cli import cli
from safebandits.dashboard import create_app
from safebandits.study.snapshot import _MAGIC, SnapshotError, decode_snapshot, next_decision, same_state
from safebandits.study.study import StudyIntegrityError
from tests.contract.test_learners import ENTRIES, problem_for

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

#: Learners whose states cover the kinds of fields: numba records and structured live arrays (lc-lucb,
#: safe-lucb), random generators and buffers filled later (ckb-ts), a pure-exploration driver (g-acol).
LEARNERS = ["lc-lucb", "ckb-ts", "g-acol", "safe-lucb"]


class Case:
    """A study answered with snapshots, its stored snapshot record and what reading one needs."""

    def __init__(self, name: str, folder) -> None:
        entry = ENTRIES[name]
        inst = problem_for(entry)
        info = inst.privileged_info() if entry.privileged else inst.public_info()
        self.name, self.path = name, folder / f"{name}.db"
        self.url = f"sqlite:///{self.path}"
        study = sb.create_study(name, name, info, storage=self.url, seed=0, snapshot_every=6)
        env = inst.environment(np.random.default_rng(1))
        for _ in range(12):
            q = study.ask()
            study.tell(q.id, env.play(q.decision))
        study.close()
        with sqlite3.connect(self.path) as conn:
            self.seq, self.library, self.check, self.text = conn.execute(
                "SELECT seq, library, check_json, state FROM sb_snapshots"
            ).fetchone()
        conn.close()
        raw = zlib.decompress(base64.b64decode(self.text))
        (n,) = struct.unpack_from("<Q", raw, len(_MAGIC))
        start = len(_MAGIC) + 8
        self.header = json.loads(raw[start : start + n])
        self.blob = raw[start + n :]
        self.study = sb.load_study(name, self.url, snapshots=False)
        self.full = self.study.learner

    def read(self, text: str):
        """Read ``text`` as the study's snapshot: the learner, or :class:`SnapshotError`."""
        fresh = self.study._new_learner()
        from safebandits.study.snapshot import snapshot_budget

        budget = snapshot_budget(fresh, self.seq)
        learner, _header = decode_snapshot(text, fresh, self.study._snapshot_meta(self.seq), budget)
        next_decision(learner)  # (what a load does next: the restored learner asks)
        return learner


def pack(header, blob: bytes) -> str:
    text = json.dumps(header, separators=(",", ":")).encode()
    return base64.b64encode(zlib.compress(_MAGIC + struct.pack("<Q", len(text)) + text + blob)).decode()


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz")
    return {name: Case(name, folder) for name in LEARNERS}


def test_a_good_record_reads_back(cases):
    for case in cases.values():
        assert case.read(pack(case.header, case.blob)) is not None


FUZZ = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@FUZZ
@given(name=st.sampled_from(LEARNERS), data=st.binary(max_size=2000), how=st.integers(0, 3))
def test_raw_bytes_never_get_past_the_reader(cases, name, data, how):
    case = cases[name]
    if how == 0:
        text = data.decode("latin-1")
    elif how == 1:
        text = base64.b64encode(data).decode()
    elif how == 2:
        text = base64.b64encode(zlib.compress(data)).decode()
    else:
        text = base64.b64encode(zlib.compress(_MAGIC + struct.pack("<Q", len(data)) + data)).decode()
    with pytest.raises(SnapshotError):
        case.read(text)


@FUZZ
@given(name=st.sampled_from(LEARNERS), cut=st.floats(0, 1, exclude_max=True))
def test_truncated_records_are_refused(cases, name, cut):
    case = cases[name]
    raw = zlib.decompress(base64.b64decode(case.text))
    short = raw[: int(cut * len(raw))]
    for text in (base64.b64encode(zlib.compress(short)).decode(), case.text[: int(cut * len(case.text))]):
        with pytest.raises(SnapshotError):
            case.read(text)


def _paths(node, path=()):
    """Every place of a JSON tree (dict keys and list positions)."""
    yield path
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, (*path, i))


def _replaced(tree, path, value):
    if not path:
        return value
    copy = dict(tree) if isinstance(tree, dict) else list(tree)
    copy[path[0]] = _replaced(tree[path[0]], path[1:], value)
    return copy


def _deep(n):
    node = 0
    for _ in range(n):
        node = {"T": [node]}
    return node


#: Hostile values put in place of one field of a well-formed record.
HOSTILE_VALUES = [
    None, True, -1, 0, 2**31, 2**63, 2**70, -(2**63), 1e308, float("nan"), float("inf"), "", "__class__",
    "os.system", [], {}, {"F": 0}, {"K": 0}, {"R": -1}, {"R": 10**6}, {"A": 10**9}, {"A": -1}, {"A": 0},
    {"O": {}}, {"O": {"__class__": {"F": 0}}}, {"O": {"__reduce__": 1}}, {"N": []}, {"N": [1, 2]},
    {"T": [{"L": []}]}, {"D": [[{"L": []}, 1]]}, {"D": [[1]]}, {"S": [{"L": []}]}, {"X": ["|O", 1]},
    {"X": ["<f8", "x"]}, {"X": [">f8", 1.0]}, {"X": ["<i8", 2**70]}, {"B": "***"}, {"G": {}},
    {"G": {"bit_generator": "MT19937", "state": {}}}, {"G": {"bit_generator": "PCG64", "state": 1}},
    {"Q": 1}, {"F": 0, "R": 0}, _deep(300), ["|O"], [2**40, 2**40], [-1], [1.5], [True], "|O8", ">f8",
    "<U4", "|V8", "<M8[s]", {"fields": [["__class__", "<f8"]], "align": False},
    {"fields": [["a", "|O"]], "align": False}, {"fields": [], "align": True}, "K", "yes",
]  # fmt: skip

HOSTILE = st.one_of(
    st.sampled_from(HOSTILE_VALUES),
    st.integers(),
    st.floats(),
    st.text(max_size=8),
    st.lists(st.integers(-3, 2**40), max_size=4),
)


@FUZZ
@given(name=st.sampled_from(LEARNERS), data=st.data(), value=HOSTILE)
def test_hostile_fields_are_refused_or_read_into_the_learners_own_classes(cases, name, data, value):
    """One place of a well-formed record replaced by a hostile value: the record is refused with a
    :class:`SnapshotError`, or read into a learner of the study's class (then only values differ)."""
    case = cases[name]
    places = [p for p in _paths(case.header) if p and p[0] in ("state", "arrays")]
    path = data.draw(st.sampled_from(places))
    header = _replaced(case.header, path, value)
    try:
        learner = case.read(pack(header, case.blob))
    except SnapshotError as exc:
        assert str(exc)
        return
    assert type(learner) is type(case.full)


@FUZZ
@given(name=st.sampled_from(LEARNERS), data=st.data())
def test_array_bytes_and_sizes_out_of_line_are_refused(cases, name, data):
    case = cases[name]
    arrays = case.header["arrays"]
    k = data.draw(st.integers(0, len(arrays) - 1))
    spec = dict(arrays[k])
    spec["shape"] = data.draw(
        st.one_of(
            st.lists(st.integers(0, 2**20), max_size=3).filter(lambda s: s != arrays[k]["shape"]),
            st.just([2**31, 2**31]),
        )
    )
    header = {**case.header, "arrays": [*arrays[:k], spec, *arrays[k + 1 :]]}
    with pytest.raises(SnapshotError):
        case.read(pack(header, case.blob))
    cut = data.draw(st.integers(0, max(len(case.blob) - 1, 0)))
    with pytest.raises(SnapshotError):
        case.read(pack(case.header, case.blob[:cut]))


def test_huge_sizes_allocate_nothing(cases):
    """A record announcing a huge array, a header or blob of a gigabyte, or a zlib bomb: refused with
    the memory a small study uses (traced by tracemalloc: numpy reports its allocations to it)."""
    case = cases["lc-lucb"]
    bomb = base64.b64encode(zlib.compress(_MAGIC + struct.pack("<Q", 2**40) + bytes(64 << 20), 9)).decode()
    huge = {**case.header, "arrays": [{"dtype": "<f8", "shape": [2**40], "order": "C", "writeable": True}]}
    texts = [bomb, pack(huge, case.blob), pack(huge, b"")]
    tracemalloc.start()
    try:
        for text in texts:
            tracemalloc.reset_peak()
            base = tracemalloc.get_traced_memory()[0]
            with pytest.raises(SnapshotError, match=r"larger|beyond|allows|size must be"):
                case.read(text)
            assert tracemalloc.get_traced_memory()[1] - base < 3 * len(bomb) + (8 << 20)
    finally:
        tracemalloc.stop()


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(LEARNERS), data=st.data(), value=HOSTILE)
def test_a_study_with_a_hostile_snapshot_loads_as_a_full_replay(cases, tmp_path_factory, name, data, value):
    case = cases[name]
    places = [p for p in _paths(case.header) if p and p[0] in ("state", "arrays")]
    header = _replaced(case.header, data.draw(st.sampled_from(places)), value)
    folder = tmp_path_factory.mktemp("load")
    path = folder / "s.db"
    path.write_bytes(case.path.read_bytes())
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE sb_snapshots SET state = ?", (pack(header, case.blob),))
    conn.close()
    url = f"sqlite:///{path}"
    # the read-only command and the dashboard's pages and API read it as they read any study
    status = CliRunner().invoke(cli, ["study", "status", name, "--storage", url])
    assert status.exit_code == 0, status.output
    client = TestClient(create_app(url), base_url="http://127.0.0.1")
    for page in ("/", f"/study/{name}", f"/api/v1/studies/{name}"):
        assert client.get(page).status_code == 200, page
    study = sb.load_study(name, url)
    assert (study._loaded_from is None) == bool(study._ignored)
    full = sb.load_study(name, f"sqlite:///{path}", snapshots=False)
    if study._loaded_from is None:
        assert same_state(study.learner, full.learner)
    study.close()
    full.close()


def _filled(case, mode):
    """The record's array bytes with every float NaN (``nan``) or every integer 10**6 (``big``) or
    -10**6 (``neg``): values of the right dtypes and shapes that no learner holds."""
    from safebandits.study.fields import dtype_of

    blob, offset = bytearray(case.blob), 0
    for spec in case.header["arrays"]:
        dtype = dtype_of(spec["dtype"])
        n = int(np.prod(spec["shape"])) if spec["shape"] else 1
        a = np.frombuffer(blob, dtype=dtype, count=n, offset=offset)
        for field in dtype.names or (None,):
            view = a if field is None else a[field]
            if (mode == "nan" and view.dtype.kind == "f") or (mode != "nan" and view.dtype.kind == "i"):
                view[...] = {"nan": np.nan, "big": 10**6, "neg": -(10**6)}[mode]
        offset += n * dtype.itemsize
    return bytes(blob)


@pytest.mark.parametrize("mode", ["nan", "big", "neg"])
@pytest.mark.parametrize("name", LEARNERS)
def test_hostile_values_are_caught_by_the_decision_check_or_by_verify(cases, tmp_path, name, mode):
    """Values are not the learner's (NaN, counters out of range): the study loads without running or
    crashing anything; the restored learner's next decision differs from the stored one (the snapshot is
    ignored), or ``verify`` finds the difference."""
    case = cases[name]
    path = tmp_path / "s.db"
    path.write_bytes(case.path.read_bytes())
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE sb_snapshots SET state = ?", (pack(case.header, _filled(case, mode)),))
    conn.close()
    study = sb.load_study(name, f"sqlite:///{path}")
    if study._loaded_from is None:
        assert study._ignored and same_state(study.learner, case.full)
    else:
        with pytest.raises(StudyIntegrityError, match="another learner"):
            study.verify()
    study.close()
