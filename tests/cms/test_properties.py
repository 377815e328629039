"""Stateful property tests of the CMS: random edits, reverts, comments and deletes through its store.

After every step the CMS invariants hold and a plain in-memory model (each
post's versions, which revisions the cap keeps, its comments newest first)
agrees with what the store reads back from Redis. Run with no cap and with a
cap of 3 revisions.
"""

from django.test import SimpleTestCase, override_settings
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from cms import store
from config.activity import Actor
from config.invariants import violations
from config.listing import list_state
from tests.base import RedisMixin, flush_test_redis

# What the forms let through: any text but NUL and lone surrogates, stripped, not empty.
TEXT = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), min_size=1, max_size=40)
TEXT = TEXT.map(lambda text: text.strip() or "x")
CONTENT = st.fixed_dictionaries(
    {
        "title": TEXT,
        "body": TEXT,
        "author": st.sampled_from(["ann", "bob", "c.d@e+f-g_h"]),
        "status": st.sampled_from(["draft", "published"]),
    }
)
BOUNDED = hypothesis_settings(max_examples=12, stateful_step_count=20, deadline=None)


def _link(pk: int) -> str:
    return f"/cms/posts/{pk}/"


class Posts(RuleBasedStateMachine):
    cap = 0
    posts = Bundle("posts")

    def __init__(self):
        super().__init__()
        flush_test_redis()
        self.clock = 1_800_000_000.0
        self.model: dict[int, dict] = {}  # id -> {"versions": {n: content}, "version": n, "comments": [(id, text)]}

    def tick(self) -> float:
        self.clock += 1
        return self.clock

    @rule(target=posts, content=CONTENT)
    def create(self, content):
        post = store.create_post(content, actor=Actor("ann"), comment="", at=self.tick())
        assert post.id not in self.model
        self.model[post.id] = {"versions": {1: content}, "version": 1, "comments": []}
        return post.id

    @rule(pk=posts, content=CONTENT, stale=st.booleans())
    def edit(self, pk, content, stale):
        post = self.model[pk]
        base = post["version"] - 1 if stale and post["version"] > 1 else post["version"]
        try:
            saved = store.save_post(pk, content, base_version=base, actor=Actor("bob"), comment="", at=self.tick())
        except store.EditConflict as conflict:
            assert base != post["version"]
            assert conflict.between.current.version == post["version"]
            return
        assert base == post["version"]
        if content == post["versions"][post["version"]]:
            assert saved is None
            return
        post["version"] += 1
        post["versions"][post["version"]] = content
        assert saved.version == post["version"]

    @rule(pk=posts, back=st.integers(1, 10))
    def revert(self, pk, back):
        post = self.model[pk]
        number = post["version"] - back
        kept = number >= 1 and (not self.cap or number >= post["version"] - self.cap)
        try:
            saved = store.revert_post(pk, number, actor=Actor("ann"), at=self.tick())
        except store.NotFound:
            assert not kept
            return
        assert kept
        content = post["versions"][number]
        if content == post["versions"][post["version"]]:
            assert saved is None
            return
        post["version"] += 1
        post["versions"][post["version"]] = content

    @rule(pk=posts, text=TEXT)
    def comment(self, pk, text):
        comment_id = store.add_comment(pk, author="ann", text=text, at=self.tick(), actor=Actor("ann"))
        self.model[pk]["comments"].insert(0, (comment_id, text))

    def commented(self) -> list[int]:
        return [pk for pk, post in self.model.items() if post["comments"]]

    @precondition(lambda self: self.commented())
    @rule(which=st.integers(0, 100))
    def uncomment(self, which):
        pk = self.commented()[which % len(self.commented())]
        comments = self.model[pk]["comments"]
        comment_id, _ = comments.pop(which % len(comments))
        store.delete_comment(pk, comment_id, actor=Actor("ann"))

    @precondition(lambda self: self.commented())
    @rule(other=posts)
    def uncomment_through_another_post_is_refused(self, other):
        pk = self.commented()[0]
        comment_id = self.model[pk]["comments"][0][0]
        if other == pk:
            return
        try:
            store.delete_comment(other, comment_id, actor=Actor("ann"))
        except store.NotFound:
            return
        raise AssertionError("a comment was deleted through a post it does not belong to")

    @rule(pk=consumes(posts))
    def delete(self, pk):
        store.delete_post(pk, actor=Actor("ann"))
        del self.model[pk]
        try:
            store.delete_post(pk, actor=Actor("ann"))
        except store.NotFound:
            return
        raise AssertionError("a deleted post was deleted again")

    @invariant()
    def the_cms_invariants_hold(self):
        assert violations(["cms"]) == []

    @invariant()
    def redis_agrees_with_the_model(self):
        for pk, post in self.model.items():
            page = store.get_post(pk)
            assert page.post.version == post["version"]
            assert page.post.content() == post["versions"][post["version"]]
            assert page.num_comments == len(post["comments"])
            assert [(c.id, c.text) for c in page.recent_comments] == post["comments"][:3]
            _, revisions, total = store.history(pk, 0, 100)
            low = max(1, post["version"] - self.cap) if self.cap else 1
            assert [r.number for r in revisions] == list(range(post["version"] - 1, low - 1, -1))
            assert total == len(revisions)
            numbers = tuple(r.number for r in revisions)
            _, snapshots = store.versions(pk, numbers)
            for revision in revisions:  # the history carries no body; the snapshots do
                expected = post["versions"][revision.number]
                assert (revision.title, revision.author, revision.status) == (
                    expected["title"], expected["author"], expected["status"],
                )  # fmt: skip
                assert snapshots[revision.number].content() == post["versions"][revision.number]
            _, comments, count = store.comments_page(pk, 0, 100)
            assert [(c.id, c.text) for c in comments] == post["comments"]
            assert count == len(post["comments"])
        items, total, _ = store.list_posts(list_state({}, sorts=("updated",), default_order="-updated"))
        assert total == len(self.model)
        assert sorted(item.id for item in items) == sorted(self.model)  # fewer posts than a page holds


class Capped(Posts):
    cap = 3


class CmsPropertiesTest(RedisMixin, SimpleTestCase):
    def test_edits_reverts_comments_and_deletes_follow_the_model(self):
        run_state_machine_as_test(Posts, settings=BOUNDED)

    @override_settings(CMS_REVISIONS_KEPT=3)
    def test_with_a_revision_cap_the_oldest_are_trimmed_in_the_same_save(self):
        run_state_machine_as_test(Capped, settings=BOUNDED)
