"""Demo posts with a history of edits and some comments, written through the store.

Demo: about 100 posts with about 5 revisions and 10 comments each. Large: 20,000 posts with 20
revisions and 2 comments each (bodies kept short, so the 400,000 snapshots stay near 200 MB).
Each batch of 500 posts with their histories and comments is one bulk script (``store.posts_write``).
"""

from __future__ import annotations

from cms import store
from cms.documents import Post
from cms.presenters import event_link
from config.activity import Actor
from config.seeding import SeedContext, seeder
from config.store.children import Child

AUTHORS = ("ann", "bob", "chen", "dara", "eli", "fatima", "gus", "hana")
WORDS = (  # noqa: SIM905  (a sentence of words reads better than 52 quoted strings)
    "redis hash sorted set stream list key value index cache latency memory pipeline transaction watch "
    "revision snapshot history editor draft publish review comment embed reference pattern model query "
    "atomic replica shard cluster persistence append fsync eviction expire counter ranking window bucket "
    "document schema version migration bounded unbounded partial aggregate graph adjacency sensor"
).split()
TOPICS = (
    "Modeling", "Scaling", "Indexing", "Caching", "Streaming", "Ranking", "Versioning", "Embedding",
    "Sharding", "Pipelining", "Expiring", "Counting",
)  # fmt: skip
BATCH = 500  # posts per round trip, with their histories
DAY = 86_400.0


SEED = Actor("seed", link=event_link)


def _scale(ctx: SeedContext) -> tuple[int, tuple[int, int], tuple[int, int], int]:
    """(posts, revisions range, comments range, words per body)."""
    if ctx.large:
        return 20_000, (20, 20), (2, 2), 30
    return 100, (3, 7), (5, 15), 80


def estimate(scale: str) -> int:
    return 20_000 * 23 if scale == "large" else 100 * 16


def _sentence(ctx: SeedContext, words: int) -> str:
    text = " ".join(ctx.rng.choices(WORDS, k=words))  # one call a sentence, not one a word
    return text[0].upper() + text[1:] + "."


def _body(ctx: SeedContext, words: int) -> str:
    sentences = [_sentence(ctx, ctx.rng.randint(6, 14)) for _ in range(max(1, words // 10))]
    paragraphs = [" ".join(sentences[i : i + 4]) for i in range(0, len(sentences), 4)]
    return "\n\n".join(paragraphs)


def _edit_body(ctx: SeedContext, body: str) -> str:
    """Change a few words, as an editor would, so the diff has something to show."""
    tokens = body.split(" ")
    for _ in range(ctx.rng.randint(1, 4)):
        tokens[ctx.rng.randrange(len(tokens))] = ctx.rng.choice(WORDS)
    return " ".join(tokens)


def _history(ctx: SeedContext, post_id: int, saves: int, words: int) -> list[Post]:
    """Every version of one post, oldest first."""
    author = ctx.rng.choice(AUTHORS)
    at = ctx.now.timestamp() - ctx.rng.uniform(30, 365) * DAY
    title = f"{ctx.rng.choice(TOPICS)} {ctx.rng.choice(WORDS)} {ctx.rng.choice(WORDS)}"
    post = Post(post_id, title, _body(ctx, words), author, "draft", author, at, at, comment="Created")
    versions = [post]
    for _ in range(saves):
        at += ctx.rng.uniform(0.05, 3) * DAY
        content = {**post.content(), "body": _edit_body(ctx, post.body)}
        roll = ctx.rng.random()
        if roll < 0.25:
            content["title"] = f"{post.title.split(' ')[0]} {ctx.rng.choice(WORDS)} {ctx.rng.choice(WORDS)}"
        elif roll < 0.4:
            content["status"] = "published" if post.status == "draft" else "draft"
        comment = ctx.rng.choice(("", "typo", "tighter wording", "review notes", "fact check", ""))
        saved = post.saved(content, ctx.rng.choice(AUTHORS), comment, at)
        if saved is not None:  # an edit that happened to change nothing is no version
            post = saved
            versions.append(post)
    if ctx.rng.random() < 0.7 and post.status == "draft":
        versions.append(post.saved({**post.content(), "status": "published"}, author, "publish", at + 3600))
    return versions


def _comment(ctx: SeedContext, post) -> tuple[dict[str, str], float]:
    at = post.created_at + ctx.rng.uniform(0, post.updated_at - post.created_at + DAY)
    text = _sentence(ctx, ctx.rng.randint(5, 16))
    return {"author": ctx.rng.choice(AUTHORS), "text": text}, at


@seeder("cms", order=30, estimate=estimate)
def seed(ctx: SeedContext) -> int:
    """Every batch is one bulk script."""
    count, revisions, comments, words = _scale(ctx)
    first = store.reserve_post_ids(count)
    written = 0
    for start in range(0, count, BATCH):
        batch = [
            _history(ctx, post_id, ctx.rng.randint(*revisions), words)
            for post_id in range(first + start, first + min(start + BATCH, count))
        ]
        drafted = {
            versions[-1].id: [_comment(ctx, versions[-1]) for _ in range(ctx.rng.randint(*comments))]
            for versions in batch
        }
        drawn = sum(map(len, drafted.values()))
        next_id = store.reserve_comment_ids(drawn) if drawn else 0
        children: dict[int, list[Child]] = {}
        for post_id, drafts in drafted.items():
            children[post_id] = [Child(next_id + n, fields, at) for n, (fields, at) in enumerate(drafts)]
            next_id += len(drafts)
        store.posts_write(batch, actor=SEED, comments=children)
        done = sum(len(v) for v in batch) + drawn
        written += done
        ctx.progress(done)
    return written
