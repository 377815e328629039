"""The CMS in the benchmark: a post with its revision history (the document versioning pattern),
and the compare of two long bodies.

Redis: the post is a hash, its earlier versions one sorted set of snapshots
scored by version number; the history page is one pipeline. SQL
(``benchmark_sql``): posts and revisions, keyed by (post, version).
"""

from __future__ import annotations

import multiprocessing
import random
import time

from cms import benchmark_sql as sql
from cms import diff, seeds
from cms import store as cms
from cms.documents import Post
from cms.store import scripts
from config.activity import Actor
from config.benchmark import Extra, Load, Operation, Part, part
from config.benchmark.sql import timed_load
from config.listing import ListState
from config.seeding import SEED_EPOCH, SeedContext
from config.store.children import Child

SIZES = {"tiny": (6, 4, 40), "demo": (300, 8, 40), "large": (20_000, 20, 30)}  # posts, saves each, words a body
BATCH = 500  # posts a transaction, as the seeder writes them
BENCH = Actor("bench", link=lambda entity, pk: f"/cms/posts/{pk}/" if entity == "post" else "")
COMPARE_CHARS = {"tiny": 2_000, "demo": 20_000, "large": 20_000}
COMPARE_TIMEOUT = 60.0  # seconds; past it the compare is stopped and reported as such
COMMENTS = {"tiny": 4, "demo": 6, "large": 6}  # the most comments a post has (3 or more: one full embed)


@part("cms", order=30)
class Cms(Part):
    schema = sql.SCHEMA  # revisions keyed by (post, version): the history's page is already an index range
    dba_schema = sql.DBA_SCHEMA

    def generate(self) -> None:
        posts, saves, words = SIZES[self.scale]
        ctx = SeedContext("cms", self.scale, random.Random(f"bench:{self.scale}:cms"), SEED_EPOCH)
        self.posts = [seeds._history(ctx, post_id, saves, words) for post_id in range(1, posts + 1)]
        self.revisions = sum(len(v) - 1 for v in self.posts)
        self.post = self.posts[len(self.posts) // 2][-1].id
        ctx = SeedContext("cms", self.scale, random.Random(f"bench:{self.scale}:cms:comments"), SEED_EPOCH)
        most = COMMENTS[self.scale]
        self.comments = {v[-1].id: [seeds._comment(ctx, v[-1]) for _ in range(ctx.rng.randint(0, most))]
                         for v in self.posts}  # fmt: skip
        middle = self.posts[len(self.posts) // 2 :] + self.posts
        self.commented = next(v[-1].id for v in middle if len(self.comments[v[-1].id]) >= 3)  # a full embed

    def records(self) -> dict[str, int]:
        return {"posts": len(self.posts), "revisions": self.revisions,
                "comments": sum(map(len, self.comments.values()))}  # fmt: skip

    def load_redis(self, run) -> list[Load]:
        def write():
            first = cms.reserve_post_ids(len(self.posts))
            assert first == self.posts[0][0].id, "Redis was not empty"
            next_id = cms.reserve_comment_ids(sum(map(len, self.comments.values())))
            children, self.comment_rows = {}, []
            for post_id, drafts in self.comments.items():
                children[post_id] = [Child(next_id + n, fields, at) for n, (fields, at) in enumerate(drafts)]
                self.comment_rows += [(c.id, post_id, c.fields["author"], c.fields["text"], c.at)
                                      for c in children[post_id]]  # fmt: skip
                next_id += len(drafts)
            for start in range(0, len(self.posts), BATCH):  # as the seeder writes
                cms.posts_write(self.posts[start : start + BATCH], actor=BENCH, comments=children)

        comments = sum(map(len, self.comments.values()))
        done = run.timed("cms", len(self.posts) + self.revisions + comments, write)
        scripts.load_scripts()  # as a running server has them after its first write: the history is one EVALSHA
        done.per_record = {"post (with its revisions and comments)": done.bytes / max(1, len(self.posts))}
        return [done]

    def load_sql(self, db) -> list[Load]:
        def write():
            db.insert(
                "posts",
                (
                    (p.id, p.title, p.body, p.author, p.status, p.last_saved_by, p.created_at, p.updated_at,
                     p.version, p.comment)
                    for p in (versions[-1] for versions in self.posts)
                ),
            )  # fmt: skip
            db.insert(
                "revisions",
                (
                    (p.id, p.version, p.title, p.body, p.author, p.status, p.last_saved_by, p.updated_at, p.comment)
                    for versions in self.posts
                    for p in versions[:-1]
                ),
            )
            db.insert("comments", self.comment_rows)  # the ids Redis gave them

        records = len(self.posts) + self.revisions + len(self.comment_rows)
        return [timed_load(db, "cms", records, write)]

    def operations(self, runs: int) -> list[Operation]:
        post, commented = self.post, self.commented
        return [
            Operation("6", "post with its revision history page", lambda n: history(post),
                      lambda db, n: sql.sql_history(db, post), lambda a, n: sql.orm_history(a, post),
                      dba=lambda db, n: sql.dba_history(db, post)),
            Operation("15", "first page of the post list, last saved first", lambda n: post_list(),
                      lambda db, n: sql.sql_post_list(db), lambda a, n: sql.orm_post_list(a),
                      dba=lambda db, n: sql.dba_post_list(db)),
            Operation("19", "post with its 3 newest comments and its counts", lambda n: post_page(commented),
                      lambda db, n: sql.sql_post_page(db, commented), lambda a, n: sql.orm_post_page(a, commented),
                      dba=lambda db, n: sql.dba_post_page(db, commented)),
        ]  # fmt: skip

    @classmethod
    def sql_texts(cls, dialect: str = "postgresql") -> dict[str, dict[str, tuple[str, ...]]]:
        return {
            "6": {"postgres": sql.HISTORY, "dba": (sql.DBA_HISTORY,)},
            "15": {"postgres": sql.POST_LIST, "dba": (sql.DBA_POST_LIST,)},
            "19": {"postgres": sql.POST_PAGE, "dba": (sql.DBA_POST_PAGE,)},
        }

    def pages(self) -> list[tuple[str, str]]:
        return [("list", "/cms/posts/"), ("detail", f"/cms/posts/{self.post}/"),
                ("history", f"/cms/posts/{self.post}/history/")]  # fmt: skip

    def extras(self, run) -> list[Extra]:
        return [compare_long_bodies(COMPARE_CHARS[self.scale])]


# --- Redis: the screens' own reads ------------------------------------------------------------


def history(post_id: int) -> tuple:
    """6. A post with one page of its revisions, newest first: one round trip."""
    current, revisions, total = cms.history(post_id, 0, sql.HISTORY_PAGE)
    rows = [(r.number, r.by, r.comment, r.updated_at, r.title) for r in revisions]
    return current.title, current.version, total, rows


def post_list() -> tuple:
    """15. The post list's first page: SORT of the last-saved index BY nosort, GET of each row's fields,
    one round trip (the comment counts it also reads are left out: comments are not in the benchmark)."""
    rows, total, _, _ = cms.list_page(ListState(order="-updated"))
    return total, [(r.id, r.title, r.author, r.status, r.updated_at, r.version) for r in rows]


def post_page(post_id: int) -> tuple:
    """19. The post's page: its hash (with the embed of its 3 newest comments and their count) and the
    size of its revisions' set, one round trip."""
    page = cms.get_post(post_id)
    newest = [(c.id, c.author, c.text, c.at) for c in page.recent_comments]
    p = page.post
    return p.title, p.body, p.author, p.status, p.version, newest, page.num_comments, page.revisions_kept


# --- the compare of two long bodies ----------------------------------------------------------


def long_bodies(chars: int) -> tuple[Post, Post]:
    """Two versions of a post whose bodies are each about ``chars`` characters, rewritten word for word
    (the same words, in another order), so no long run is shared: the diff's hardest case."""
    rng = random.Random(f"bench:compare:{chars}")
    words = []
    while sum(len(w) + 1 for w in words) < chars:
        words.append(rng.choice(seeds.WORDS))
    other = words[:]
    rng.shuffle(other)
    at = SEED_EPOCH.timestamp()
    old = Post(1, "A long post", " ".join(words)[:chars], "ann", "draft", "ann", at, at)
    new = Post(1, "A long post", " ".join(other)[:chars], "ann", "draft", "bob", at, at + 60, version=2)
    return old, new


def _compare_in_child(chars: int, answer) -> None:
    old, new = long_bodies(chars)
    started = time.perf_counter()
    segments = sum(len(change.segments) for change in diff.compare(old, new))
    answer.send((time.perf_counter() - started, segments))


def compare_long_bodies(chars: int, timeout: float = COMPARE_TIMEOUT) -> Extra:
    """The compare page's diff of two long bodies, in a child process stopped after ``timeout`` seconds
    (a quadratic diff would otherwise hold the run for minutes)."""
    context = multiprocessing.get_context("fork")
    mine, theirs = context.Pipe(duplex=False)
    child = context.Process(target=_compare_in_child, args=(chars, theirs), daemon=True)
    child.start()
    name = f"CMS compare of two {chars:,}-character bodies, rewritten word for word"
    if mine.poll(timeout):
        seconds, segments = mine.recv()
        child.join()
        return Extra("cms-compare", name, seconds * 1000, f"{segments:,} diff segments")
    child.kill()
    child.join()
    return Extra("cms-compare", name, timeout * 1000, f"stopped after {timeout:g} s, unfinished")
