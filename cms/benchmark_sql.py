"""The CMS's relational twin in the benchmark: posts, revisions keyed by (post, version) and comments
(nothing derived), the DBA's precomputation beside them, and each question answered three ways:
hand-written SQL, the DBA's one statement, and the Django ORM. Their SQL is one source for the benchmark
and the screens' twins.
"""

from __future__ import annotations

from config.benchmark.sql import counts_kept

PAGE = 25
HISTORY_PAGE = 10

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
""" + counts_kept("cms_counts", "posts")


# --- the SQL each side sends, one source for the benchmark and the screens' "In SQL" twins ----------

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


# --- hand-written SQL ---------------------------------------------------------------------


def sql_post_list(db) -> tuple:
    """15. The post count, then the newest saved page (the plain model has no index on the time)."""
    return db.counted_page(POST_LIST, PAGE)


def sql_post_page(db, post_id: int) -> tuple:
    """19. The post, its 3 newest comments, their count and its revisions' count."""
    post, newest, comments, revisions = POST_PAGE
    head = db.one(post, (post_id,))
    rows = db.all(newest, (post_id,))
    return (*head, rows, *db.one(comments, (post_id,)), *db.one(revisions, (post_id,)))


def sql_history(db, post_id: int) -> tuple:
    """6. The post, its revision count and one page of revisions, newest first."""
    post, count, page = HISTORY
    title, version = db.one(post, (post_id,))
    (total,) = db.one(count, (post_id,))
    rows = db.all(page, (post_id, HISTORY_PAGE))
    return title, version, total, rows


# --- the DBA's SQL: one statement each, on DBA_SCHEMA --------------------------------------


def dba_post_list(db) -> tuple:
    """15. The page straight from the time index, the count from its row."""
    return db.page_with_total(DBA_POST_LIST, (PAGE,))


def dba_post_page(db, post_id: int) -> tuple:
    """19. The post with its kept comment count, its 3 newest comments and its revisions' count, one row."""
    *head, newest, comments, revisions = db.one(DBA_POST_PAGE, (post_id,))
    return (*head, [tuple(c) for c in newest], comments, revisions)


def dba_history(db, post_id: int) -> tuple:
    """6. The post, its revision count and one page of revisions in one row: the page a range of the
    primary key, newest first."""
    title, version, total, rows = db.one(DBA_HISTORY, (HISTORY_PAGE, post_id))
    return title, version, total, [tuple(row) for row in rows]


# --- the Django ORM -------------------------------------------------------------------------


def orm_post_list(alias: str) -> tuple:
    from config.benchmark.models import Post as PostRow

    posts = PostRow.objects.using(alias)
    rows = posts.order_by("-updated_at").values_list("id", "title", "author", "status", "updated_at", "version")
    return posts.count(), list(rows[:PAGE])


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
