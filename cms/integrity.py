"""Invariants of the CMS's derived data: revision numbering, the comment embed, the indexes.

Revisions are source data (no repair but the cap); the embed, counts and indexes are rebuilt.
"""

from cms import keys, store
from cms.store import checks
from config.invariants import Violation, gram_drift, invariant


@invariant("cms", "revision numbers are contiguous and end just below the post's version")
def revisions_contiguous():
    for post_id, version, count, low, high in checks.revision_bounds(checks.post_ids_in_index()):
        where = [keys.post(post_id), keys.revisions(post_id)]
        if version is None:
            continue  # a dangling index entry: reported by the index invariant
        if count == 0:
            if version != 1:
                yield Violation(f"post {post_id} is at version {version} but keeps no revision", where)
            continue
        if high != version - 1:
            yield Violation(f"post {post_id}: newest revision is {high}, version is {version}", where)
        if high - low + 1 != count:
            yield Violation(f"post {post_id}: {count} revisions numbered {low}..{high} are not contiguous", where)


@invariant("cms", "each post keeps at most CMS_REVISIONS_KEPT revisions", repair=checks.trim_revisions)
def revisions_capped():
    cap = store.revisions_kept()
    if not cap:
        return
    for post_id, _, count, _, _ in checks.revision_bounds(checks.post_ids_in_index()):
        if count > cap:
            yield Violation(f"post {post_id} keeps {count} revisions, cap is {cap}", [keys.revisions(post_id)])


@invariant(
    "cms", "embedded comments are the 3 newest and num_comments counts them", repair=checks.drop_dangling_comments
)
def comment_embed():
    for post_id, fields, expected, count in checks.embeds(checks.post_ids_in_index()):
        if fields[store.COMMENTS.count_field] is None:
            continue  # a dangling index entry: reported by the index invariant
        stored = store.COMMENTS.embedded(fields)
        if stored != expected:
            message = f"post {post_id}: embedded comments {_ids(stored)} != newest {_ids(expected)}"
            yield Violation(message, _keys(post_id))
        stored_count = int(fields[store.COMMENTS.count_field])
        if stored_count != count:
            yield Violation(f"post {post_id}: num_comments {stored_count} != {count} in its set", _keys(post_id))


@invariant(
    "cms", "no id dangles: comment sets and comment hashes point at each other", repair=checks.drop_dangling_comments
)
def comment_references():
    for post_id, member, ok in checks.comment_set_members(checks.post_ids_in_keys()):
        if not ok:
            yield Violation(f"post {post_id} lists comment {member}, which is not its comment", _keys(post_id))
    for comment_id, parent, held in checks.comment_parents():
        if not held:
            message = f"comment {comment_id} of post {parent} is not in its post's set"
            yield Violation(message, [keys.comment(comment_id)])


@invariant(
    "cms",
    "no id dangles: each post is in its indexes (by its title_member), each entry a post",
    repair=checks.rebuild_indexes,
)
def indexes_match_posts():
    for post, missing, member in checks.index_entries(sorted(checks.post_ids_in_keys())):
        for key, _ in missing:
            message = f"post {post.id} ({post.status}, {post.author}) is missing from {key}"
            yield Violation(message, [keys.post(post.id), key])
        if member != post.title_member:
            message = f"post {post.id}: title_member {member!r} is not its title's entry {post.title_member!r}"
            yield Violation(message, [keys.post(post.id)])
    for key, member in checks.stale_index_members():
        yield Violation(f"{key} holds {member!r}, which is not an entry of an existing post", [key])


@invariant(
    "cms",
    "the title trigram index holds each post under exactly the pieces of its title",
    repair=checks.rebuild_title_grams,
)
def title_trigrams():
    missing, extra = checks.title_gram_drift()
    yield from gram_drift("post", "title", missing, extra, keys.ngram)


def _ids(embed) -> list[str]:
    return [item["id"] for item in embed]


def _keys(post_id: int) -> list[str]:
    return [keys.post(post_id), keys.post_comments(post_id)]
