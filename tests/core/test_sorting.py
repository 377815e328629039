"""``config.store.sorting``: the Lua ``sort`` answers as Redis's own SORT does, whether it asks SORT
itself (where it can, on one server) or reads every option itself (as on a cluster).

Compared with SORT itself on one server (a cluster refuses SORT's BY and GET
patterns, which is why the script exists), over random sets, sorted sets and
patterns of hash fields, strings and ``#``. Weights are distinct: SORT leaves
equal ones to its quicksort, the script orders them by element.
"""

from django.test import SimpleTestCase
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from config.redis import client
from config.store.sorting import SCRIPT_ALONE, queue_sort, sort_options
from tests.base import RedisMixin, flush_test_redis

ROW = "t:{s}:row:"  # a hash per element: its weight w (some missing), its name n (some missing)
LABEL = "t:{s}:label:"  # a string per element (some missing)
SORTED = "t:{s}:sorted"
GETS = ["#", f"{ROW}*->n", f"{ROW}*->w", f"{LABEL}*", f"{ROW}*->nope"]


@st.composite
def cases(draw):
    ids = draw(st.lists(st.integers(1, 500), min_size=0, max_size=25, unique=True))
    weights = draw(st.lists(st.integers(-1000, 1000), min_size=len(ids), max_size=len(ids), unique=True))
    missing = draw(st.sampled_from([None, *ids])) if ids else None  # one weightless element at most
    kind = draw(st.sampled_from(["set", "zset", "list"]))
    by = draw(st.sampled_from(["self", "field", "nosort"]))
    alpha = by == "field" and draw(st.booleans())
    limit = draw(st.one_of(st.none(), st.tuples(st.integers(0, 30), st.integers(0, 30))))
    gets = draw(st.lists(st.sampled_from(GETS), max_size=4))
    return ids, weights, missing, kind, by, alpha, limit, gets, draw(st.booleans()), draw(st.integers(0, 2**32))


class SortMatchesSortTest(RedisMixin, SimpleTestCase):
    @hypothesis_settings(max_examples=150, deadline=None)
    @given(cases())
    def test_the_script_answers_as_sort_does(self, case):
        ids, weights, missing, kind, by, alpha, limit, gets, desc, seed = case
        flush_test_redis()
        redis = client()
        pipe = redis.pipeline(transaction=False)
        for n, (pk, weight) in enumerate(zip(ids, weights)):
            row = {"n": f"name {seed % (n + 7)}"} if (seed >> n) & 1 else {}
            if pk != missing:
                row["w"] = f"k{weight + 5000:05}" if alpha else weight
            if row:
                pipe.hset(f"{ROW}{pk}", mapping=row)
            if (seed >> (n + 25)) & 1:
                pipe.set(f"{LABEL}{pk}", f"label {pk}")
        if ids:
            if kind == "set":
                pipe.sadd(SORTED, *ids)
            elif kind == "zset":
                pipe.zadd(SORTED, {pk: weight for pk, weight in zip(ids, weights)})
            else:
                pipe.rpush(SORTED, *ids)
        pipe.execute()
        options = {"desc": desc, "alpha": alpha, "get": gets}
        if by == "field":
            options["by"] = f"{ROW}*->w"
        elif by == "nosort":
            options["by_nosort"] = True
        if limit:
            options["start"], options["num"] = limit
        if by == "nosort" and kind != "zset":
            return  # SORT BY nosort of a set or a list is in the order Redis stores it: nothing to compare
        native = {**options}
        if native.pop("by_nosort", False):
            native["by"] = "nosort"
        expected = redis.sort(SORTED, **native)
        pipe = redis.pipeline(transaction=False)
        queue_sort(pipe, SORTED, **options)
        pipe.eval(SCRIPT_ALONE, 1, SORTED, *sort_options(**options))  # as on a cluster: never SORT itself
        found, alone = pipe.execute()
        self.assertEqual(found, expected, case)
        self.assertEqual(alone, expected, case)
