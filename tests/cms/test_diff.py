"""The bounded diff: what it shows, and that its work grows linearly, counted in steps (never timed)."""

import random

from django.test import SimpleTestCase, override_settings
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from cms import store
from cms.diff import text_diff
from config.activity import Actor
from tests.base import RedisTestCase

T0 = 1_767_600_000.0
WORDS = [
    "redis",
    "hash",
    "sorted",
    "set",
    "stream",
    "list",
    "key",
    "value",
    "index",
    "cache",
    "latency",
    "memory",
    "pipeline",
]


def sides(diff):
    """The old and the new text as the segments rebuild them."""
    old = "".join(text for kind, text in diff.segments if kind != "ins")
    new = "".join(text for kind, text in diff.segments if kind != "del")
    return old, new


def body(seed: int, words: int) -> str:
    """Paragraphs of sentences, as the seeder writes them."""
    rng = random.Random(seed)
    sentences = [" ".join(rng.choice(WORDS) for _ in range(10)) + "." for _ in range(words // 10)]
    return "\n\n".join(" ".join(sentences[i : i + 4]) for i in range(0, len(sentences), 4))


def edited(text: str, every: int) -> str:
    """Every ``every``-th word replaced (paragraphs kept), as an editor touching up a long post."""
    tokens = text.split(" ")
    return " ".join("EDITED" if i % every == 0 and "\n" not in token else token for i, token in enumerate(tokens))


def unrelated(chars: int, seed: int) -> str:
    """Text that shares no word and no line with any other seed's."""
    rng = random.Random(seed)
    text = ""
    while len(text) < chars:
        text += f"w{seed}x{rng.randrange(10**9)} " + ("\n\n" if rng.random() < 0.02 else "")
    return text[:chars]


class DiffTest(SimpleTestCase):
    def test_a_changed_word_is_struck_out_and_replaced_in_place(self):
        diff = text_diff("The quick brown fox jumps.", "The quick red fox jumps.")
        self.assertEqual(
            diff.segments, [("same", "The quick "), ("del", "brown"), ("ins", "red"), ("same", " fox jumps.")]
        )
        self.assertFalse(diff.cut)

    def test_only_the_changed_paragraph_is_diffed_word_by_word(self):
        old = "First paragraph stays.\n\nSecond one changes here.\n\nThird stays too.\n"
        new = "First paragraph stays.\n\nSecond one changed there.\n\nThird stays too.\n"
        diff = text_diff(old, new)
        self.assertEqual(sides(diff), (old, new))
        self.assertIn(("del", "changes"), diff.segments)
        self.assertIn(("ins", "changed"), diff.segments)
        self.assertEqual(diff.segments[0], ("same", "First paragraph stays.\n\nSecond one "))

    @hypothesis_settings(max_examples=200, deadline=None)
    @given(
        old=st.lists(st.sampled_from(["a", "b", "c", " ", "\n", "\n\n", "ab"]), max_size=40).map("".join),
        new=st.lists(st.sampled_from(["a", "b", "c", " ", "\n", "\n\n", "ba"]), max_size=40).map("".join),
        budget=st.sampled_from([0, 5, 50, 10**6]),
    )
    def test_the_segments_always_rebuild_both_texts_whatever_the_budget(self, old, new, budget):
        diff = text_diff(old, new, budget=budget)
        self.assertEqual(sides(diff), (old, new))
        if budget == 10**6:
            self.assertFalse(diff.cut)

    def test_few_edits_cost_linear_work_in_the_length(self):
        small, large = body(1, 2_000), body(1, 4_000)
        steps = [text_diff(text, edited(text, 50), budget=10**9).steps for text in (small, large)]
        self.assertLess(steps[1], 2.3 * steps[0], steps)
        self.assertFalse(text_diff(large, edited(large, 50)).cut)

    def test_two_bodies_that_share_nothing_stop_at_the_budget_and_are_shown_whole(self):
        budget = 200_000
        steps = []
        for chars in (10_000, 20_000):
            old, new = unrelated(chars, 1), unrelated(chars, 2)
            diff = text_diff(old, new, budget=budget)
            self.assertTrue(diff.cut)
            self.assertEqual(sides(diff), (old, new))
            steps.append(diff.steps)
            # The budget plus a linear pass over the tokens (the ends, the anchors): never their square.
            self.assertLessEqual(diff.steps, budget + len(old) + len(new))
        self.assertLessEqual(steps[1] - steps[0], 20_000)  # twice the text: at most linear more

    def test_a_rewrite_word_for_word_stays_within_the_budget(self):
        for words in (1_000, 2_400):
            old = body(3, words)
            new = " ".join(word + "s" for word in old.split(" "))
            diff = text_diff(old, new, budget=50_000)
            self.assertLessEqual(diff.steps, 50_001 + len(old))
            self.assertEqual(sides(diff), (old, new))

    @override_settings(CMS_DIFF_BUDGET=123)
    def test_the_budget_is_a_setting(self):
        self.assertEqual(text_diff("a b c", "c b a").budget, 123)


class ComparePageTest(RedisTestCase):
    @override_settings(CMS_DIFF_BUDGET=50)
    def test_a_diff_cut_short_says_so_on_the_page_and_still_shows_both_texts(self):
        old, new = unrelated(2_000, 1), unrelated(2_000, 2)
        data = {"title": "Long post", "body": old, "author": "ann", "status": "draft"}
        post = store.create_post(data, actor=Actor("ann"), comment="", at=T0)
        store.save_post(post.id, {**data, "body": new}, base_version=1, actor=Actor("ann"), comment="", at=T0 + 1)
        with self.assertRoundTrips(1):
            response = self.client.get(f"/cms/posts/{post.id}/compare/?a=1&b=2")
        self.assertContains(response, 'data-cut="body"')
        self.assertContains(response, "changed too much to compare word by word")
        self.assertContains(response, old[:40])
        self.assertContains(response, new[:40])
        self.assertEqual(response.context["cut"], ["body"])

    def test_a_small_edit_is_not_cut(self):
        data = {"title": "Short", "body": "one two three", "author": "ann", "status": "draft"}
        post = store.create_post(data, actor=Actor("ann"), comment="", at=T0)
        store.save_post(post.id, {**data, "body": "one 2 three"}, base_version=1, actor=Actor("ann"), comment="", at=T0)
        response = self.client.get(f"/cms/posts/{post.id}/compare/?a=1&b=2")
        self.assertNotContains(response, "data-cut")
        self.assertContains(response, "one <del>two</del><ins>2</ins> three")
