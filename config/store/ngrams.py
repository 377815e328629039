"""A trigram inverted index in plain Redis sets: find a record by any part of its name.

Every word of a name (letters and digits, case and accents folded) is cut into its overlapping
three-character pieces, and each piece has a set of the ids whose name holds it: "Smartphone X" is in the
sets of ``sma``, ``mar``, …, ``one``. A search for "phone" is ``SINTER`` of the ``pho``, ``hon`` and
``one`` sets, which Redis computes by walking the smallest, so its work follows the rarest piece of the
query, not the size of the collection. Holding every piece is necessary but not sufficient ("Phonograph
One" holds all three), so the candidates' names come back in the same round trip and are checked here,
unless each query word is one piece ("air max"). Every word is also listed under its one- and
two-character pieces, so a shorter query word is one piece too ("電話" finds "📱 هاتف 電話 Phone").

An index may also keep its names' words (``word_key``, ``vocabulary_key``): each word of four to
``KEPT_LENGTH`` characters has a set of the ids whose name holds it, and one sorted set of every such
word's suffixes (``"edge\x00clearedge"``, all scored 0) finds by ``ZRANGEBYLEX`` the words that hold a
query's word. The union of those words' sets is exactly the names holding the query's word, with no
candidate read or checked (``queue_vocabulary``): where a broad word's pieces intersect to thousands of
candidates whose names must each be read, its few words' sets are the answer, uncapped. A longer word is
not kept (its entries would grow as its length squared): its name is listed in one set of names with a
long word (``long_key``), whose candidates a search checks by name.

How text is cut is ``config.store.ngramtext``'s. The sets are derived data: an app writes them in the same
script as the name (``queue_write``), checks them (``drift``) and repairs them (``queue_rebuild``).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from config.redis import client
from config.store import pipelined
from config.store.ngramtext import N, Query, kept, kept_words, short_grams, suffixes, word_grams, words
from config.store.scripts import lua, queue_script, run_script

TEMP_TTL = 60
VOCABULARY_LIMIT = 200  # a query word's words read at most; past it, the search intersects pieces instead
# An ordered search intersects when its rarest piece holds at most INTERSECT_LIMIT ids, else walks the order
# index, WALK_LIMIT ids at most: one command visits a bounded number of elements (lua/ngram_ordered.lua).
INTERSECT_LIMIT = 1000
WALK_LIMIT = 1024
WALK_STEP = 256  # ids of the order index one call walks: past it, a further call (a round trip) goes on
LONG = ""  # the piece that lists a name among those with a word longer than KEPT_LENGTH


@dataclass(frozen=True)
class Hits:
    """Matching ids with their names (None: ids alone), in the index's order; ``capped``: more existed."""

    items: list[tuple[str, str | None]]
    capped: bool = False

    @property
    def ids(self) -> list[str]:
        return [member for member, _ in self.items]

    def in_name_order(self) -> list[tuple[str, str]]:
        """The items by name (casefolded), then by id as a number: a list's order, where the index has none."""
        return sorted(self.items, key=lambda item: (item[1].casefold(), int(item[0])))


@dataclass(frozen=True)
class Vocabulary:
    """A query as set algebra: the matches are the intersection of ``unions`` (per query word, the sets
    whose union holds exactly the names holding it); ``sizes``, each union's at most (None: unread)."""

    unions: list[tuple[str, ...]]
    sizes: list[int | None]
    long_names: int = 0  # names with a word too long to keep: a search checks them by name (``within``)


_WORDS = lua(__file__, "ngram_words")  # a query's words as the kept words holding each
_ORDERED = lua(__file__, "sort", "ngram_ordered")  # an ordered search's first candidates, in bounded steps
_SAMPLE = lua(__file__, "ngram_sample")  # an unordered search's candidates: a bounded SSCAN, a slice a call
SAMPLE_SLICE = 128  # candidates one call of ``_SAMPLE`` reads, and names it reads, about


@dataclass(frozen=True)
class NgramIndex:
    """One app's trigram index over one field (``text_field``) of one kind of hash (``record_key``).

    ``order_key``: a sorted set of the same ids that orders the hits. With ``word_key``, ``vocabulary_key``
    and ``long_key`` the index keeps its words too. A piece is a gram (one to three characters), a kept word
    (four or more) or ``LONG`` (empty: a word too long to keep): its length says which set holds it.
    """

    gram_key: Callable[[str], str]
    temp_set: Callable[[str], str]
    temp_zset: Callable[[str], str]
    record_key: Callable[[str], str]
    text_field: str = "name"
    order_key: str = ""
    word_key: Callable[[str], str] | None = None
    vocabulary_key: str = ""
    long_key: str = ""

    def pieces(self, text: str | None) -> set[str]:
        """The pieces ``text`` is listed under: its grams, and its kept words when the index keeps them."""
        return self._pieces_of(set(words(text or "")))

    def _pieces_of(self, folded: set[str]) -> set[str]:
        found = {gram for word in folded for gram in (*word_grams(word), *short_grams(word))}
        if not self.word_key:
            return found
        found |= {word if kept(word) else LONG for word in folded if len(word) > N}
        return found

    def piece_key(self, piece: str) -> str:
        if piece and len(piece) <= N:
            return self.gram_key(piece)
        return self.word_key(piece) if piece else self.long_key

    # --- writes -----------------------------------------------------------------

    def queue_write(self, pipe, member: str, old_text: str | None, new_text: str | None) -> None:
        """Queue the SREMs and SADDs taking ``member`` from ``old_text`` to ``new_text`` (None: absent). The
        caller's script must check the stored name is still ``old_text``, so the index cannot drift."""
        old_words, new_words = set(words(old_text or "")), set(words(new_text or ""))
        old, new = self._pieces_of(old_words), self._pieces_of(new_words)
        for piece in sorted(old - new):
            pipe.srem(self.piece_key(piece), member)
        added = [self.piece_key(piece) for piece in sorted(new - old)]
        sadd_each = getattr(pipe, "sadd_each", None)  # a bulk writer's: one call for a record's pieces
        if sadd_each is not None:
            sadd_each(added, member)
        else:
            for key in added:
                pipe.sadd(key, member)
        if self.vocabulary_key:
            self._queue_vocabulary_write(pipe, old_words, new_words)

    def _queue_vocabulary_write(self, pipe, old: set[str], new: set[str]) -> None:
        """The vocabulary's share of a write: the kept words gained added, each one lost removed if its set is
        empty by then (a checked batch's ``zrem_if_empty``; a pipeline only adds)."""
        gained = sorted(word for word in new - old if kept(word))
        if gained:
            pipe.zadd(self.vocabulary_key, dict.fromkeys((e for word in gained for e in suffixes(word)), 0))
        prune = getattr(pipe, "zrem_if_empty", None)
        for word in sorted(word for word in old - new if kept(word)) if prune else ():
            prune(self.vocabulary_key, self.word_key(word), *suffixes(word))

    def diff(self, old_text: str | None, new_text: str | None) -> tuple[list[str], list[str]]:
        """(sets to SREM the member from, sets to SADD it to), for a script that checks ``old_text``."""
        old, new = self.pieces(old_text), self.pieces(new_text)
        return [self.piece_key(p) for p in sorted(old - new)], [self.piece_key(p) for p in sorted(new - old)]

    def keys_for(self, *texts: str | None) -> list[str]:
        """The piece sets a write of these texts touches (what its script passes in KEYS)."""
        return [self.piece_key(p) for p in sorted(set().union(*(self.pieces(t) for t in texts)))]

    def members_by_set(self, named: Iterable[tuple[object, str | None]]) -> dict[str, list]:
        """Each set the ``(member, text)`` pairs touch with its members, for one SADD a set in a bulk write."""
        by_word: dict[str, list[str]] = {}
        by_text: dict[str, list[str]] = {}
        found: dict[str, list] = {}
        for member, text in named:
            text = text or ""
            touched = by_text.get(text)
            if touched is None:
                pieces: set[str] = set()
                for word in words(text):
                    known = by_word.get(word)
                    if known is None:
                        cut = (*word_grams(word), *sorted(short_grams(word)))
                        known = by_word[word] = [self.gram_key(gram) for gram in cut]
                        if self.word_key and len(word) > N:  # the word's own set, or the long words' one
                            known.append(self.piece_key(word if kept(word) else LONG))
                    pieces.update(known)
                touched = by_text[text] = sorted(pieces)
            for key in touched:
                held = found.get(key)
                if held is None:
                    found[key] = [member]
                else:
                    held.append(member)
        return found

    # --- the search read --------------------------------------------------------

    def matches_set(self, query: Query) -> str:
        """The key of the set holding exactly the query's matches (one word of three characters), else "": a
        shorter piece is in most names, so its query is a bounded search (``queue_search``)."""
        one = query.exact and len(query.grams) == 1 and len(query.grams[0]) == N
        return self.gram_key(query.grams[0]) if one else ""

    def queue_vocabulary(self, pipe, query: Query) -> Callable[[list], Vocabulary | None] | None:
        """Queue the read that turns ``query`` into set algebra; returns its reader, or None (nothing queued).

        A word of three characters is its piece's set; a longer one, the union of the kept words' sets it is
        inside. The names with a word too long to keep are searched by their pieces (``within``). It reads
        None when a word is inside more than VOCABULARY_LIMIT kept words: search the pieces then."""
        if not self.vocabulary_key or query.short or not query.long:
            return None
        asked = [word for word in query.long if len(word) > N]
        if asked:  # a word of three characters is its piece's set, which holds long words' names too
            script_keys = [self.vocabulary_key, self.long_key]
            queue_script(pipe, _WORDS, script_keys, [self.word_key(""), VOCABULARY_LIMIT, *asked], whole=True)

        def read(replies: list) -> Vocabulary | None:
            long_names, *lists = replies[0] if asked else [0]
            found = dict(zip(asked, lists))
            if -1 in found.values():
                return None
            unions, sizes = [], []
            for word in query.long:
                pairs = found.get(word)
                if pairs is None:  # a word of three characters: its piece's set, whose size the caller reads
                    unions.append((self.gram_key(word),))
                    sizes.append(None)
                    continue
                unions.append(tuple(self.word_key(w) for w in pairs[::2]))
                sizes.append(sum(pairs[1::2]))
            return Vocabulary(unions, sizes, long_names)

        return read

    def queue_search(
        self, pipe, query: Query, cap: int, names: bool = True, within: str = ""
    ) -> Callable[[list], Hits]:
        """Queue a search on a MULTI pipeline; returns what reads its replies.

        The candidates are the intersection of the query's pieces, cap+1 at most, with their names, then
        checked (``Query.matches``). With ``order_key``, in that order, in bounded steps: a common piece's
        set is never intersected whole, and the order index is walked ``WALK_STEP`` ids a command, each
        further one a round trip made by the returned reader. Without, SINTERSTORE read by an SSCAN that
        stops at cap+1, ``SAMPLE_SLICE`` a command: past the first slice each further one is a round trip of
        its own, made by the returned reader, and the last unlinks the scratch set. ``names=False``: an
        ``exact`` query's ordered ids alone. ``within``: one more set every candidate must be in.
        """
        token = secrets.token_hex(8)
        pieces = [self.gram_key(g) for g in query.grams] + ([within] if within else [])
        start, source = len(pipe.command_stack), pieces[0]
        field = f"{self.record_key('*')}->{self.text_field}"
        ids_alone = bool(self.order_key and not names and query.exact)
        if self.order_key:
            script_keys = [self.order_key, *dict.fromkeys(pieces), self.temp_zset(token)]

            def ordered(wanted: int, at: int) -> list:
                gets = [] if ids_alone else ["#", field]
                return [wanted, INTERSECT_LIMIT, WALK_LIMIT, int(ids_alone), at, WALK_STEP, *gets]

            queue_script(pipe, _ORDERED, script_keys, ordered(cap + 1, 0), whole=True)  # EVAL: callers execute it
        else:
            if len(pieces) > 1:
                source = self.temp_set(token)
                pipe.sinterstore(source, pieces)
                pipe.expire(source, TEMP_TTL)  # the sample's last slice unlinks it; the TTL, should a reader stop
            unlink = int(source != pieces[0])  # a scratch set: the slice that ends the sample unlinks it

            def sample(cursor: str, wanted: int) -> list:
                return [cursor, SAMPLE_SLICE, unlink, wanted, field]

            queue_script(pipe, _SAMPLE, [source], sample("0", cap + 1), whole=True)  # a set, in no order
        at = len(pipe.command_stack) - start - 1  # the read's reply, counted from this search's first
        # Unordered, an exact query's candidates all match (holding its pieces is holding it): the name is
        # read for the order alone. Else each is checked against its name.
        checked = bool(self.order_key) or not query.exact

        def read(replies: list) -> Hits:
            if self.order_key:
                stopped, resume, found = replies[at]
                while resume:  # a common piece: the walk goes on, a round trip a further step
                    wanted = cap + 1 - (len(found) if ids_alone else len(found) // 2)
                    stopped, resume, more = run_script(_ORDERED, script_keys, ordered(wanted, resume), whole=True)
                    found += more
            else:
                stopped, (cursor, found) = 0, self._sampled(replies[at])
                while cursor != "0" and len(found) // 2 <= cap:  # a common piece: further slices, a trip each
                    wanted = cap + 1 - len(found) // 2
                    cursor, more = self._sampled(run_script(_SAMPLE, [source], sample(cursor, wanted), whole=True))
                    found += more
            if ids_alone:
                return Hits([(m, None) for m in found[:cap]], len(found) > cap or bool(stopped))
            pairs = list(dict(zip(found[::2], found[1::2])).items())  # SSCAN may give a member twice
            kept = [(m, name) for m, name in pairs[:cap] if name is not None and (not checked or query.matches(name))]
            return Hits(kept, len(pairs) > cap or bool(stopped))

        return read

    def _sampled(self, reply: list) -> tuple[str, list]:
        """A sample call's reply as its cursor and ``[id, field, ...]``: the ids it left unread (a compact set
        comes whole) read here, an HGET each on one pipeline, so no one command reads them all."""
        cursor, unread, *rest = reply
        ids, found = rest[:unread], rest[unread:]
        head, tail = self.record_key("*").split("*", 1)  # the script's GET pattern, filled as it fills it
        fields = pipelined(ids, lambda pipe, pk: pipe.hget(f"{head}{pk}{tail}", self.text_field))
        return cursor, found + [part for pair in zip(ids, fields) for part in pair]

    def search(self, text: str, limit: int, cap: int | None = None, names: bool = True) -> Hits:
        """Up to ``limit`` records whose field holds ``text``, in one MULTI/EXEC (and a round trip a further
        slice of a common piece's candidates); ``cap`` candidates at most are read (four times the limit by
        default), so common pieces cost a bounded read (``Hits.capped``). ``names``: as ``queue_search``."""
        query = Query.parse(text)
        if not query.usable:
            return Hits([])
        pipe = client().pipeline(transaction=True)
        read = self.queue_search(pipe, query, cap or limit * 4, names=names)
        hits = read(pipe.execute())
        return Hits(hits.items[:limit], hits.capped or len(hits.items) > limit)

    # --- integrity --------------------------------------------------------------

    def held(self, batch: int = 1000) -> Iterator[tuple[str, str]]:
        """(piece, member) for every entry the index's sets hold: SCAN for the sets, SSCAN each."""
        c = client()
        for key_of in (self.gram_key, self.word_key) if self.word_key else (self.gram_key,):
            prefix = key_of("")
            for key in c.scan_iter(match=key_of("*"), count=batch, _type="set"):
                for member in c.sscan_iter(key, count=batch):
                    yield key.removeprefix(prefix), member
        for member in c.sscan_iter(self.long_key, count=batch) if self.long_key else ():
            yield LONG, member

    def index_keys(self, batch: int = 1000) -> list[str]:
        """Every key the index holds: the piece sets (SCAN), and the vocabulary when it keeps one."""
        c = client()
        found = list(c.scan_iter(match=self.gram_key("*"), count=batch, _type="set"))
        if self.word_key:
            found += c.scan_iter(match=self.word_key("*"), count=batch, _type="set")
        return found + [key for key in (self.vocabulary_key, self.long_key) if key]

    def drift(self, texts: dict[str, str | None]) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
        """(missing, extra) pieces per member against ``texts`` (member → its text; None: no record)."""
        held: dict[str, set[str]] = {}
        for piece, member in self.held():
            held.setdefault(member, set()).add(piece)
        missing, extra = {}, {}
        for member in set(texts) | set(held):
            want = self.pieces(texts.get(member))
            have = held.get(member, set())
            if want - have:
                missing[member] = want - have
            if have - want:
                extra[member] = have - want
        return missing, extra

    def vocabulary_drift(self, texts: Iterable[str | None], batch: int = 1000) -> tuple[set[str], set[str]]:
        """(missing, extra) words of the vocabulary against the kept words of ``texts`` (ZSCAN)."""
        if not self.vocabulary_key:
            return set(), set()
        held = {member for member, _ in client().zscan_iter(self.vocabulary_key, count=batch)}
        named = set().union(*(kept_words(text or "") for text in texts))
        wanted = {entry for word in named for entry in suffixes(word)}
        return (
            {word for word in named if not held.issuperset(suffixes(word))},
            {entry.split("\x00", 1)[1] for entry in held - wanted},
        )

    def queue_rebuild(self, pipe, texts: Iterable[tuple[str, str]], existing: list[str]) -> None:
        """Queue the whole index rebuilt from (member, text) pairs, after UNLINK of ``existing``."""
        by_piece: dict[str, list[str]] = {}
        named: set[str] = set()
        for member, text in texts:
            for piece in self.pieces(text):
                by_piece.setdefault(piece, []).append(member)
            named |= kept_words(text) if self.vocabulary_key else set()
        for start in range(0, len(existing), 1000):
            pipe.unlink(*existing[start : start + 1000])
        for piece, members in sorted(by_piece.items()):
            for start in range(0, len(members), 1000):
                pipe.sadd(self.piece_key(piece), *members[start : start + 1000])
        entries = [entry for word in sorted(named) for entry in suffixes(word)]
        for start in range(0, len(entries), 1000):
            pipe.zadd(self.vocabulary_key, dict.fromkeys(entries[start : start + 1000], 0))
