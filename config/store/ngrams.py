"""A trigram inverted index in plain Redis sets: find a record by any part of its name.

Every word of a name (letters and digits, case and accents folded) is cut into
its overlapping three-character pieces, and each piece has a set of the ids
whose name holds it: "Smartphone X" is in the sets of ``sma``, ``mar``, …,
``pho``, ``hon``, ``one``. A search for "phone" is ``SINTER`` of the ``pho``,
``hon`` and ``one`` sets, which Redis computes by walking the smallest of them
and probing the others, so its work follows the rarest piece of the query, not
the size of the collection. Holding every piece is necessary but not
sufficient ("Phonograph One" holds all three), so the candidates' names come
back in the same round trip and are checked here. A query whose every word is
one piece ("air", "air max") is the exception: holding its pieces is matching,
so a caller that needs the ids alone reads no name for it. Every word is also
listed under its one- and two-character pieces (``short_grams``): a query word
shorter than three characters is one piece itself, whose set holds exactly the
names holding it anywhere ("電" and "電話" find "📱 هاتف 電話 Phone", "x2" finds
"Phone X2 Pro"), in the same sets and by the same reads as a trigram.

An index may also keep its names' words (``word_key``, ``vocabulary_key``): each
word of four to ``KEPT_LENGTH`` characters has a set of the ids whose name holds it, and one
sorted set of every such word's suffixes (``"edge\x00clearedge"``, all scored 0)
finds, by ``ZRANGEBYLEX``, the words that hold a query's word: "clearedge" is
inside exactly the words one of whose suffixes starts with it. The union of those
words' sets is then exactly the names holding the query's word, with no candidate
read or checked (``queue_vocabulary``): where a broad word's pieces intersect to
thousands of candidates whose names must each be read, its few words' sets are
the answer, uncapped. A write that leaves a word's set empty takes its entries out
of the sorted set, in the same script. A word longer than ``KEPT_LENGTH`` is not
kept (its entries would grow as its length squared): its name is listed in one
set of names with a long word (``long_key``), whose candidates a search checks
by name as it checks the pieces' (few, or none, in any real catalog).

How a text is cut into words and pieces, and how a query checks a name, is
``config.store.ngramtext``'s. The sets are derived data: an app writes them in the same script as the name
(``queue_write`` takes a pipeline or a checked batch), and checks them with
``drift`` and ``vocabulary_drift`` and repairs them with ``queue_rebuild``.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from config.redis import client
from config.store.ngramtext import N, Query, kept, kept_words, short_grams, suffixes, word_grams, words
from config.store.scripts import queue_script, run_script
from config.store.sorting import SORT_LUA

TEMP_TTL = 60
VOCABULARY_LIMIT = 200  # a query word's words read at most; past it, the search intersects pieces instead
# An ordered search intersects its pieces with the order index only when its rarest piece holds at most
# INTERSECT_LIMIT ids (the intersection walks that piece); else it walks the order index, WALK_LIMIT ids
# at most, keeping those every piece holds. Either way one command visits a bounded number of elements,
# whatever the size of the collection or of a common piece's set.
INTERSECT_LIMIT = 1000
WALK_LIMIT = 1024
LONG = ""  # the piece that lists a name among those with a word longer than KEPT_LENGTH


@dataclass(frozen=True)
class Hits:
    """Matching ids with their names (None where the search was asked for ids alone and had no name to
    check), in the index's order; ``capped`` when more candidates existed."""

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
    """A query as set algebra: for each of its words, the keys of the sets whose union holds exactly the
    names holding it (the matches are the intersection of the unions), and the union's size at most
    (its sets' sizes summed; None for a piece's set, whose size the vocabulary does not read)."""

    unions: list[tuple[str, ...]]
    sizes: list[int | None]
    long_names: int = 0  # names with a word too long to keep: a search checks them by name (``within``)


# KEYS[1]: the vocabulary; KEYS[2]: the set of names with a word too long to keep. ARGV[1]: the prefix of a
# word's set; ARGV[2]: the most words a query word may be inside; ARGV[3...]: the query's words of four
# characters or more. The number of names with a long word, then for each query word the flat list of
# (word, size of its set) for every kept word holding it; -1 for one inside more words than the limit.
_WORDS = """
local limit = tonumber(ARGV[2])
local reply = {redis.call('SCARD', KEYS[2])}
for i = 3, #ARGV do
  local low = '[' .. ARGV[i]
  local entries = redis.call('ZRANGEBYLEX', KEYS[1], low, low .. '\\255', 'LIMIT', 0, limit + 1)
  local found, seen = {}, {}
  for _, entry in ipairs(entries) do
    local word = string.sub(entry, string.find(entry, '\\0', 1, true) + 1)
    if not seen[word] then
      seen[word] = true
      found[#found + 1] = word
      found[#found + 1] = redis.call('SCARD', ARGV[1] .. word)
    end
  end
  if #entries > limit then found = -1 end
  reply[#reply + 1] = found
end
return reply
"""


# The candidates of an ordered search, in the order index's order, in bounded steps. KEYS: the order index,
# each piece's set, a scratch sorted set. ARGV: the candidates wanted, INTERSECT_LIMIT, WALK_LIMIT, "1" for
# the ids alone (else each id and its name, as SORT ... GET # GET record:*->field answers), then the GET
# patterns. A rare piece (its set holds at most ARGV[2] ids): ZINTERSTORE of the index with every piece,
# which walks the rarest, then the first ids. A common one: the index walked in windows of 256 ids, each
# window narrowed by SMISMEMBER of every piece (rarest first), until enough are found or ARGV[3] ids are
# walked. Answers 1 when the walk stopped at its budget before the index's end (more may match), and the
# ids (or ids and names) found, a prefix of the whole answer in order.
_ORDERED = (
    SORT_LUA
    + """
local order, scratch = KEYS[1], KEYS[#KEYS]
local want, small, budget = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local gets = {}
for i = 5, #ARGV do gets[#gets + 1] = ARGV[i] end
local pieces = {}
for i = 2, #KEYS - 1 do pieces[#pieces + 1] = {KEYS[i], redis.call('SCARD', KEYS[i])} end
table.sort(pieces, function(a, b) return a[2] < b[2] end)
local ids, stopped = {}, 0
if pieces[1][2] == 0 then
  ids = {}
elseif pieces[1][2] <= small then
  local args = {'ZINTERSTORE', scratch, #pieces + 1, order}
  for _, piece in ipairs(pieces) do args[#args + 1] = piece[1] end
  args[#args + 1] = 'WEIGHTS'
  args[#args + 1] = 1
  for _ = 1, #pieces do args[#args + 1] = 0 end
  redis.call(unpack(args))
  ids = redis.call('ZRANGE', scratch, 0, want - 1)
  redis.call('UNLINK', scratch)
else
  local at, size = 0, redis.call('ZCARD', order)
  while #ids < want and at < size do
    if at >= budget then stopped = 1 break end
    local batch = redis.call('ZRANGE', order, at, at + math.min(256, budget - at) - 1)
    at = at + #batch
    for _, piece in ipairs(pieces) do
      if #batch == 0 then break end
      local held, kept = redis.call('SMISMEMBER', piece[1], unpack(batch)), {}
      for n, one in ipairs(held) do
        if one == 1 then kept[#kept + 1] = batch[n] end
      end
      batch = kept
    end
    for _, id in ipairs(batch) do
      if #ids < want then ids[#ids + 1] = id end
    end
  end
end
if ARGV[4] == '1' then return {stopped, ids} end
return {stopped, rows_of(ids, gets)}
"""
)


# A slice of a bounded read of a set of candidates with each one's field. KEYS[1]: the set. ARGV: the SSCAN
# cursor to go on from, the candidates this call reads at most, "1" to unlink the set once read (a search's
# scratch set), how many are still wanted, and the field of a candidate's hash as SORT's GET names it
# (``prefix*->field``). The next cursor ('0' at the set's end), then each id and its field. Whole SSCAN steps
# are read, cut only once as many as wanted are found, so a next call skips none; so a call visits about
# ARGV[2] ids (a small set, kept as one compact array, comes whole: 512 ids at most, set-max-intset-entries),
# and the caller calls again until it has as many as it wants: no one command reads a piece of one
# character's whole set of a large collection, nor a thousand names. SORT … LIMIT would read the whole set.
_SAMPLE = """
local cursor, most, want, out, found = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[4]), {''}, 0
local star = string.find(ARGV[5], '*', 1, true)
local arrow = string.find(ARGV[5], '->', star, true)
local head, tail = string.sub(ARGV[5], 1, star - 1), string.sub(ARGV[5], star + 1, arrow - 1)
local field = string.sub(ARGV[5], arrow + 2)
repeat
  local reply = redis.call('SSCAN', KEYS[1], cursor, 'COUNT', math.min(most, want))
  cursor = reply[1]
  for _, id in ipairs(reply[2]) do
    if found < want then
      found = found + 1
      out[#out + 1] = id
      out[#out + 1] = redis.call('HGET', head .. id .. tail, field)
    end
  end
until cursor == '0' or found >= math.min(most, want)
if ARGV[3] == '1' and (cursor == '0' or found >= want) then redis.call('UNLINK', KEYS[1]) end
out[1] = cursor
return out
"""
SAMPLE_SLICE = 256  # candidates one call of ``_SAMPLE`` reads, and names it reads, about


@dataclass(frozen=True)
class NgramIndex:
    """One app's trigram index over one field of one kind of hash.

    ``gram_key(gram)`` names a piece's set, ``temp_set(token)`` and
    ``temp_zset(token)`` a search's scratch set and sorted set (the token is
    random; the same transaction unlinks them),
    ``record_key(id)`` the hash (``record_key("*")`` is the SORT ... GET
    pattern that joins a candidate to its name), ``text_field`` the field
    indexed, and ``order_key`` an optional sorted set of the same ids that
    orders the hits (the name sort index, say). With ``word_key`` (a kept word's
    set of ids), ``vocabulary_key`` (the sorted set of the kept words' suffixes)
    and ``long_key`` (the set of ids whose text has a word too long to keep), the
    index keeps its words too (see the module's docstring); such an index is
    written by ``queue_write``, which keeps the vocabulary beside the sets.

    A piece is a gram (one to three characters), a kept word (four or more) or ``LONG``
    (empty: a word too long to keep), so its length says which set holds it (``piece_key``).
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
        """The pieces ``text`` is listed under: its grams of one to three characters, and its kept words
        when the index keeps them."""
        return self._pieces_of(set(words(text or "")))

    def _pieces_of(self, folded: set[str]) -> set[str]:
        """The pieces of a text's folded words (``pieces``, with the words found once)."""
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
        """Queue the set changes that take the index from ``old_text`` to ``new_text`` for ``member``
        (None: absent) on a pipeline or a checked batch: SREM from pieces lost, SADD to pieces gained.

        The caller's script must check the stored name is still ``old_text`` (the pieces were
        computed from it), so the index cannot drift from the hashes.
        """
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
        """The vocabulary's share of a write, from the old and new texts' folded words: the entries of the
        kept words gained (ZADD of an entry already held changes nothing, so a word another name holds
        costs no write), and of each one lost, removed if its set is empty by then (a checked batch's
        ``zrem_if_empty``; a pipeline only adds)."""
        gained = sorted(word for word in new - old if kept(word))
        if gained:
            pipe.zadd(self.vocabulary_key, dict.fromkeys((e for word in gained for e in suffixes(word)), 0))
        prune = getattr(pipe, "zrem_if_empty", None)
        for word in sorted(word for word in old - new if kept(word)) if prune else ():
            prune(self.vocabulary_key, self.word_key(word), *suffixes(word))

    def diff(self, old_text: str | None, new_text: str | None) -> tuple[list[str], list[str]]:
        """(piece sets to SREM the member from, piece sets to SADD it to) for a write script of its
        own: pass both lists in KEYS, and have the script check the stored text is ``old_text``."""
        old, new = self.pieces(old_text), self.pieces(new_text)
        return [self.piece_key(p) for p in sorted(old - new)], [self.piece_key(p) for p in sorted(new - old)]

    def keys_for(self, *texts: str | None) -> list[str]:
        """The piece sets a write of these texts touches (what its script passes in KEYS)."""
        return [self.piece_key(p) for p in sorted(set().union(*(self.pieces(t) for t in texts)))]

    def members_by_set(self, named: Iterable[tuple[object, str | None]]) -> dict[str, list]:
        """For a bulk write of new records, one SADD a piece set: each set the ``(member, text)``
        pairs touch, with its members in the order given. Each word's pieces, and each text's sets,
        are worked out once, as a large load's names share their words, and often whole names."""
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
        """The key of the set holding exactly the query's matches, for a list to read whole, else "": a query
        of one word of three characters (``Query.exact``, one piece) matches exactly the ids its piece's set
        holds. A list may then read that set as it reads any other of its filters, with no cap and no name
        read, where a search builds, orders and reads its candidates. A piece of one or two characters is in
        most names (a letter, in nearly all): its set would be intersected whole, so such a query is a
        search (``queue_search``), which reads the order index in bounded steps."""
        one = query.exact and len(query.grams) == 1 and len(query.grams[0]) == N
        return self.gram_key(query.grams[0]) if one else ""

    def queue_vocabulary(self, pipe, query: Query) -> Callable[[list], Vocabulary | None] | None:
        """Queue the read that turns ``query`` into set algebra, when the index keeps its words and the query
        has no short word; returns what reads its reply (None when it cannot: nothing queued).

        One script (``_WORDS``) finds, for each of the query's words of four characters or more, the kept
        words holding it (ZRANGEBYLEX of the vocabulary) and the size of each one's set (SCARD: the words'
        sets share the vocabulary's hash tag, so a script may read them on a cluster too), and how many
        names have a word too long to keep: a caller searches those by their pieces (``within``). The reader
        gives each query word's sets, whose union holds exactly the names holding it: a word of three
        characters, its piece's set; a longer one, the sets of the words it is inside (none when no name
        holds it). The matches are the intersection of those unions: no candidate read, no cap. It
        answers None when a word is inside more than VOCABULARY_LIMIT kept words, whose union would be
        no cheap read: the caller searches the pieces then."""
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
        """Queue a search on a MULTI pipeline; returns what reads its replies (in the order queued).

        The candidates are the intersection of the query's pieces. With ``order_key``, one
        script (``_ORDERED``) finds at most cap+1 of them in that index's order, with their
        names, in bounded steps: ZINTERSTORE of the index with the pieces when the rarest is
        small (Redis walks it), else the index walked a window at a time and narrowed by
        SMISMEMBER of each piece, WALK_LIMIT ids at most: a common piece's set of a large
        collection is never intersected whole (the first matches in order are what a search
        shows). Without ``order_key``, SINTERSTORE into a scratch set, or for a query of one
        piece that piece's set itself, then an SSCAN that stops at cap+1 candidates with their
        names (``_SAMPLE``: a piece of one character, held by nearly every name, costs no
        more), SAMPLE_SLICE a command: past the first slice, each further one is a round trip
        of its own, made by the returned reader; the last unlinks the scratch key. The
        candidates are then checked against the query (``Query.matches``).

        ``names=False`` is for a caller that needs the ids alone (the catalog's list): with an
        order index and an ``exact`` query (each word three characters) the candidates are the
        matches, so ZRANGE reads their ids and no name is read (reading a page's names to check
        them was most of such a search's Redis time).

        ``within``: one more set every candidate must be in (the names with a word too long to keep,
        ``long_key``, which a search of the vocabulary checks this way).
        """
        token = secrets.token_hex(8)
        pieces = [self.gram_key(g) for g in query.grams] + ([within] if within else [])
        start, scratch = len(pipe.command_stack), []
        source = pieces[0]
        if self.order_key:
            ids_alone = bool(not names and query.exact)
            gets = [] if ids_alone else ["#", f"{self.record_key('*')}->{self.text_field}"]
            script_keys = [self.order_key, *dict.fromkeys(pieces), self.temp_zset(token)]
            args = [cap + 1, INTERSECT_LIMIT, WALK_LIMIT, int(ids_alone), *gets]
            queue_script(pipe, _ORDERED, script_keys, args, whole=True)  # EVAL: the callers execute the pipeline
            at = len(pipe.command_stack) - start - 1

            def read_ordered(replies: list) -> Hits:
                stopped, found = replies[at]
                if ids_alone:
                    return Hits([(m, None) for m in found[:cap]], len(found) > cap or bool(stopped))
                pairs = [(found[i], found[i + 1]) for i in range(0, len(found), 2)]
                capped = len(pairs) > cap or bool(stopped)
                return Hits([(m, name) for m, name in pairs[:cap] if name is not None and query.matches(name)], capped)

            return read_ordered
        if len(pieces) > 1:
            source = self.temp_set(token)
            pipe.sinterstore(source, pieces)
            pipe.expire(source, TEMP_TTL)  # the sample's last slice unlinks it; the TTL, should a reader stop
            scratch.append(source)
        field = f"{self.record_key('*')}->{self.text_field}"
        args = [SAMPLE_SLICE, int(bool(scratch)), cap + 1, field]
        queue_script(pipe, _SAMPLE, [source], ["0", *args], whole=True)  # a set, in no order: a bounded sample
        at = len(pipe.command_stack) - start - 1  # the read's reply, counted from this search's first

        def read(replies: list) -> Hits:
            cursor, *flat = replies[at]
            while cursor != "0" and len(flat) // 2 <= cap:  # a common piece: further slices, a round trip each
                args[2] = cap + 1 - len(flat) // 2
                cursor, *more = run_script(_SAMPLE, [source], [cursor, *args], whole=True)
                flat += more
            pairs = list(dict(flat[i : i + 2] for i in range(0, len(flat), 2)).items())  # SSCAN may repeat one
            capped = len(pairs) > cap
            # An exact query's candidates all match (holding its pieces is holding it): the name is read for
            # the order alone. Else each is checked against its name.
            exact = query.exact
            kept = [(m, name) for m, name in pairs[:cap] if name is not None and (exact or query.matches(name))]
            return Hits(kept, capped)

        return read

    def search(self, text: str, limit: int, cap: int | None = None, names: bool = True) -> Hits:
        """Up to ``limit`` records whose field holds ``text``: one round trip (a MULTI/EXEC), and one
        more a further slice of a common piece's candidates (``queue_search``).

        ``cap`` candidates at most are read (default four times the limit), so a
        query whose pieces are common costs a bounded read; ``Hits.capped`` says so.
        ``names=False``: the ids alone where the query allows it (``queue_search``).
        """
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
        """(missing, extra) pieces per member, comparing the index with ``texts`` (member → its field;
        None: the record does not exist). Members the index holds that ``texts`` lacks are read by
        the caller first; see ``check``."""
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
        """(missing, extra) words of the vocabulary against the kept words of ``texts`` (ZSCAN): a word
        missing is a search that misses every name holding it; an extra one, a word no name holds."""
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
        """Queue the whole index rebuilt from (member, text) pairs: UNLINK every key it holds
        (``existing``, from ``index_keys``), then SADD each piece's members (one command per piece), and
        ZADD the vocabulary of the words the texts hold."""
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
