"""The CMS in the benchmark: a post with its revision history (the document versioning pattern),
and the compare of two long bodies.

Redis: the post is a hash, its earlier versions one sorted set of snapshots
scored by version number; the history page is one pipeline. SQL: posts and
revisions, keyed by (post, version).
"""

from __future__ import annotations

import multiprocessing
import random
import time

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
HISTORY_PAGE = 10
BENCH = Actor("bench", link=lambda entity, pk: f"/cms/posts/{pk}/" if entity == "post" else "")
COMPARE_CHARS = {"tiny": 2_000, "demo": 20_000, "large": 20_000}
COMPARE_TIMEOUT = 60.0  # seconds; past it the compare is stopped and reported as such

SCHEMA = """
CREATE TABLE posts (
    id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL, author TEXT NOT NULL,
    status TEXT NOT NULL, last_saved_by TEXT NOT NULL, created_at {real} NOT NULL, updated_at {real} NOT NULL,
    version INTEGER NOT NULL, comment TEXT NOT NULL);
CREATE TABLE revisions (
    post_id INTEGER NOT NULL REFERENCES posts (id), version INTEGER NOT NULL, title TEXT NOT NULL,
    body TEXT NOT NULL, author TEXT NOT NULL, status TEXT NOT NULL, saved_by TEXT NOT NULL,
    saved_at {real} NOT NULL, comment TEXT NOT NULL, PRIMARY KEY (post_id, version)) {without_rowid};
CREATE TABLE comments (
    id INTEGER PRIMARY KEY, post_id INTEGER NOT NULL REFERENCES posts (id), author TEXT NOT NULL,
    text TEXT NOT NULL, at {real} NOT NULL);
CREATE INDEX comments_of_post ON comments (post_id, at);
"""
PAGE = 25
COMMENTS = {"tiny": 4, "demo": 6, "large": 6}  # the most comments a post has (3 or more: one full embed)

# The DBA's precomputation, as the Redis model keeps it: the post list's order by last save (Redis's
# sorted index), the number of posts (its size) and each post's comment count (its embed's count), kept by
# triggers; the comments' index newest first.
DBA_SCHEMA = """
ALTER TABLE posts ADD COLUMN num_comments INTEGER NOT NULL DEFAULT 0;
UPDATE posts p SET num_comments = c.n FROM (SELECT post_id, COUNT(*) AS n FROM comments GROUP BY post_id) c
 WHERE c.post_id = p.id;
CREATE INDEX comments_newest_first ON comments (post_id, at DESC, id DESC);
CREATE FUNCTION comments_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE posts SET num_comments = num_comments + CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END
     WHERE id = CASE TG_OP WHEN 'INSERT' THEN NEW.post_id ELSE OLD.post_id END;
    RETURN NULL;
END $$;
CREATE TRIGGER comments_counted AFTER INSERT OR DELETE ON comments FOR EACH ROW EXECUTE FUNCTION comments_counted();
CREATE INDEX posts_last_saved ON posts (updated_at DESC);
CREATE TABLE cms_counts (entity TEXT PRIMARY KEY, rows BIGINT NOT NULL);
INSERT INTO cms_counts SELECT 'posts', COUNT(*) FROM posts;
CREATE FUNCTION cms_counts_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE cms_counts SET rows = rows + CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END WHERE entity = TG_TABLE_NAME;
    RETURN NULL;
END $$;
CREATE TRIGGER posts_counted AFTER INSERT OR DELETE ON posts FOR EACH ROW EXECUTE FUNCTION cms_counts_kept();
"""


@part("cms", order=30)
class Cms(Part):
    schema = SCHEMA  # revisions keyed by (post, version): the history's page is already an index range
    dba_schema = DBA_SCHEMA

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
                      lambda db, n: sql_history(db, post), lambda a, n: orm_history(a, post),
                      dba=lambda db, n: dba_history(db, post)),
            Operation("15", "first page of the post list, last saved first", lambda n: post_list(),
                      lambda db, n: sql_post_list(db), lambda a, n: orm_post_list(a),
                      dba=lambda db, n: dba_post_list(db)),
            Operation("19", "post with its 3 newest comments and its counts", lambda n: post_page(commented),
                      lambda db, n: sql_post_page(db, commented), lambda a, n: orm_post_page(a, commented),
                      dba=lambda db, n: dba_post_page(db, commented)),
        ]  # fmt: skip

    @classmethod
    def sql_texts(cls, dialect: str = "postgresql") -> dict[str, dict[str, tuple[str, ...]]]:
        return {
            "6": {"postgres": HISTORY, "dba": (DBA_HISTORY,)},
            "15": {"postgres": POST_LIST, "dba": (DBA_POST_LIST,)},
            "19": {"postgres": POST_PAGE, "dba": (DBA_POST_PAGE,)},
        }

    def pages(self) -> list[tuple[str, str]]:
        return [("list", "/cms/posts/"), ("detail", f"/cms/posts/{self.post}/"),
                ("history", f"/cms/posts/{self.post}/history/")]  # fmt: skip

    def extras(self, run) -> list[Extra]:
        return [compare_long_bodies(COMPARE_CHARS[self.scale])]


def history(post_id: int) -> tuple:
    """6. A post with one page of its revisions, newest first: one round trip."""
    current, revisions, total = cms.history(post_id, 0, HISTORY_PAGE)
    rows = [(r.number, r.by, r.comment, r.updated_at, r.title) for r in revisions]
    return current.title, current.version, total, rows


POST_LIST = (
    "SELECT COUNT(*) FROM posts",
    "SELECT id, title, author, status, updated_at, version FROM posts ORDER BY updated_at DESC LIMIT ?",
)
DBA_POST_LIST = """SELECT n.rows, p.id, p.title, p.author, p.status, p.updated_at, p.version
FROM cms_counts n CROSS JOIN posts p WHERE n.entity = 'posts' ORDER BY p.updated_at DESC LIMIT ?"""
POST_PAGE = (
    "SELECT title, body, author, status, version FROM posts WHERE id = ?",
    "SELECT id, author, text, at FROM comments WHERE post_id = ? ORDER BY at DESC, id DESC LIMIT 3",
    "SELECT COUNT(*) FROM comments WHERE post_id = ?",
    "SELECT COUNT(*) FROM revisions WHERE post_id = ?",
)
DBA_POST_PAGE = """SELECT p.title, p.body, p.author, p.status, p.version,
       (SELECT COALESCE(json_agg(json_build_array(id, author, text, at) ORDER BY at DESC, id DESC), '[]')
          FROM (SELECT id, author, text, at FROM comments WHERE post_id = p.id
                ORDER BY at DESC, id DESC LIMIT 3) newest),
       p.num_comments, (SELECT COUNT(*) FROM revisions WHERE post_id = p.id)
FROM posts p WHERE p.id = ?"""
HISTORY = (
    "SELECT title, version FROM posts WHERE id = ?",
    "SELECT COUNT(*) FROM revisions WHERE post_id = ?",
    """SELECT version, saved_by, comment, saved_at, title FROM revisions WHERE post_id = ?
ORDER BY version DESC LIMIT ?""",
)
DBA_HISTORY = """SELECT p.title, p.version, (SELECT COUNT(*) FROM revisions WHERE post_id = p.id),
       (SELECT COALESCE(json_agg(json_build_array(version, saved_by, comment, saved_at, title)
                                 ORDER BY version DESC), '[]')
          FROM (SELECT version, saved_by, comment, saved_at, title FROM revisions WHERE post_id = p.id
                ORDER BY version DESC LIMIT ?) page)
FROM posts p WHERE p.id = ?"""


def post_list() -> tuple:
    """15. The post list's first page: SORT of the last-saved index BY nosort, GET of each row's fields,
    one round trip (the comment counts it also reads are left out: comments are not in the benchmark)."""
    rows, total, _, _ = cms.list_page(ListState(order="-updated"))
    return total, [(r.id, r.title, r.author, r.status, r.updated_at, r.version) for r in rows]


def sql_post_list(db) -> tuple:
    """15. The post count, then the newest saved page (the plain model has no index on the time)."""
    return db.counted_page(POST_LIST, PAGE)


def dba_post_list(db) -> tuple:
    """15. The page straight from the time index, the count from its row."""
    return db.page_with_total(DBA_POST_LIST, (PAGE,))


def orm_post_list(alias: str) -> tuple:
    from config.benchmark.models import Post as PostRow

    posts = PostRow.objects.using(alias)
    rows = posts.order_by("-updated_at").values_list("id", "title", "author", "status", "updated_at", "version")
    return posts.count(), list(rows[:PAGE])


def post_page(post_id: int) -> tuple:
    """19. The post's page: its hash (with the embed of its 3 newest comments and their count) and the
    size of its revisions' set, one round trip."""
    page = cms.get_post(post_id)
    newest = [(c.id, c.author, c.text, c.at) for c in page.recent_comments]
    p = page.post
    return p.title, p.body, p.author, p.status, p.version, newest, page.num_comments, page.revisions_kept


def sql_post_page(db, post_id: int) -> tuple:
    """19. The post, its 3 newest comments, their count and its revisions' count."""
    post, newest, comments, revisions = POST_PAGE
    head = db.one(post, (post_id,))
    rows = db.all(newest, (post_id,))
    return (*head, rows, *db.one(comments, (post_id,)), *db.one(revisions, (post_id,)))


def dba_post_page(db, post_id: int) -> tuple:
    """19. The post with its kept comment count, its 3 newest comments and its revisions' count, one row."""
    *head, newest, comments, revisions = db.one(DBA_POST_PAGE, (post_id,))
    return (*head, [tuple(c) for c in newest], comments, revisions)


def orm_post_page(alias: str, post_id: int) -> tuple:
    """One query: the post with its newest comments (``ArraySubquery``) and both counts annotated on."""
    from django.contrib.postgres.expressions import ArraySubquery
    from django.db.models import Count, OuterRef, Subquery
    from django.db.models.functions import JSONObject

    from config.benchmark.models import Comment, Revision
    from config.benchmark.models import Post as PostRow

    def counted(model):
        of_post = model.objects.using(alias).filter(post_id=OuterRef("pk")).order_by().values("post_id")
        return Subquery(of_post.annotate(n=Count("*")).values("n"))

    newest = Comment.objects.using(alias).filter(post_id=OuterRef("pk")).order_by("-at", "-id")
    newest = newest.values(row=JSONObject(id="id", author="author", text="text", at="at"))[:3]
    *head, rows, comments, revisions = (
        PostRow.objects.using(alias).filter(pk=post_id)
        .annotate(newest=ArraySubquery(newest), n_comments=counted(Comment), kept=counted(Revision))
        .values_list("title", "body", "author", "status", "version", "newest", "n_comments", "kept").get()
    )  # fmt: skip
    return (*head, [(c["id"], c["author"], c["text"], c["at"]) for c in rows], comments or 0, revisions or 0)


def sql_history(db, post_id: int) -> tuple:
    """6. The post, its revision count and one page of revisions, newest first."""
    post, count, page = HISTORY
    title, version = db.one(post, (post_id,))
    (total,) = db.one(count, (post_id,))
    rows = db.all(page, (post_id, HISTORY_PAGE))
    return title, version, total, rows


def dba_history(db, post_id: int) -> tuple:
    """6. The post, its revision count and one page of revisions in one row: the page a range of the
    primary key, newest first."""
    title, version, total, rows = db.one(DBA_HISTORY, (HISTORY_PAGE, post_id))
    return title, version, total, [tuple(row) for row in rows]


def orm_history(alias: str, post_id: int) -> tuple:
    """One query: the post with its revision count and its newest page of revisions annotated on
    (``ArraySubquery`` of ``JSONObject``: PostgreSQL's arrays through Django's own expressions)."""
    from django.contrib.postgres.expressions import ArraySubquery
    from django.db.models import Count, OuterRef, Subquery
    from django.db.models.functions import JSONObject

    from config.benchmark.models import Post as PostRow
    from config.benchmark.models import Revision

    of_post = Revision.objects.using(alias).filter(post_id=OuterRef("pk"))
    counted = of_post.order_by().values("post_id").annotate(n=Count("*")).values("n")
    page = of_post.order_by("-version").values(
        row=JSONObject(version="version", by="saved_by", comment="comment", at="saved_at", title="title")
    )[:HISTORY_PAGE]
    post = (
        PostRow.objects.using(alias).filter(pk=post_id)
        .annotate(total=Subquery(counted), page=ArraySubquery(page))
        .values_list("title", "version", "total", "page").get()
    )  # fmt: skip
    title, version, total, rows = post
    return title, version, total or 0, [(r["version"], r["by"], r["comment"], r["at"], r["title"]) for r in rows]


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
