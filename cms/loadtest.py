"""The CMS under load: editors reading lists and posts, creating, editing, reverting, commenting, deleting.

Each client edits its own posts (so it knows every version's content and can
revert) and also the seeded posts everyone shares, where concurrent saves
meet the save script's version check: a 409 conflict page is a correct answer there.
Every acknowledged save is checked afterwards by its version number: the
revision history keeps them all, so each one is findable on its own.
"""

from __future__ import annotations

import re

from cms import store
from config.loadtest import Scenario, ids_in, scenario

LIST = "/cms/posts/"
WORDS = ("redis", "stream", "index", "hash", "revision", "editor", "cache", "atomic", "ranking", "draft")


def _has_version(pk: int, version: int, title: str, body: str) -> bool:
    try:
        _, snapshots = store.versions(pk, (version,))
    except store.NotFound:
        return False
    return (snapshots[version].title, snapshots[version].body) == (title, body)


def _gone(pk: int) -> bool:
    try:
        store.get_post(pk)
    except store.NotFound:
        return True
    return False


def _comment_texts(pk: int) -> set[str]:
    try:
        _, comments, _ = store.comments_page(pk, 0, 100_000)
    except store.NotFound:
        return set()
    return {c.text for c in comments}


@scenario("cms", weight=4)
class Editors(Scenario):
    def setup(self) -> None:
        self.shared = ids_in(self.http.get(LIST).text, LIST)[:20]
        self.mine: dict[int, dict[int, tuple[str, str]]] = {}  # own post -> version -> (title, body)
        self.comments: dict[int, list[str]] = {}  # own post -> texts of comments added to it

    def step(self) -> None:
        roll = self.rng.random()
        if len(self.mine) < 2 or roll < 0.05:
            return self.create()
        action = self.rng.choices(
            (self.read_list, self.read_post, self.create, self.edit, self.revert, self.comment, self.uncomment,
             self.delete),
            (30, 30, 3, 14, 5, 10, 5, 1),
        )[0]  # fmt: skip
        action()

    # -- reads

    def read_list(self) -> None:
        params = {"o": self.rng.choice(("updated", "-updated"))}
        extra = self.rng.random()
        if extra >= 0.5:
            params["page"] = self.rng.choice((1, 2, 3))  # 100 seeded posts: three pages at least
        if extra < 0.2:
            params["q"] = self.rng.choice(("mod", "sca", "ind", "load", "re"))
        elif extra < 0.4:
            params["status"] = self.rng.choice(("draft", "published"))
        elif extra < 0.5:
            params["author"] = self.rng.choice(("ann", "bob", self.username()))
        self.http.get(LIST, params)

    def read_post(self) -> None:
        pk = self.any_post()
        page = self.rng.choice(("", "history/", "compare/", "comments/", "edit/"))
        self.http.get(f"{LIST}{pk}/{page}")

    # -- writes

    def create(self) -> None:
        token = self.token()
        title, body = f"Load {self.rng.choice(WORDS)} {token}", f"Written under load by {token}."
        form = self.http.get(f"{LIST}add/").post_forms()[-1].fields
        form.update(title=title, body=body, status=self.rng.choice(("draft", "published")), comment="load")
        pk = int(re.search(r"/(\d+)/$", self.http.post(f"{LIST}add/", form).location).group(1))
        self.mine[pk] = {1: (title, body)}
        self.comments[pk] = []
        self.ack(("post", pk, 1), f"post {pk} created as {token}", lambda: _has_version(pk, 1, title, body))

    def edit(self) -> None:
        own = self.rng.random() < 0.6 or not self.shared
        pk = self.rng.choice(list(self.mine) if own else self.shared)
        form = self.http.get(f"{LIST}{pk}/edit/").post_forms()[-1].fields
        version, token = int(form["version"]), self.token()
        title, body = f"{self.rng.choice(WORDS).title()} {token}", f"Edited under load by {token}."
        form.update(title=title, body=body, comment=f"load edit {token}")
        with self.in_flight(("post", pk), forget=lambda: self.forget(pk) if own else None):
            response = self.http.post(f"{LIST}{pk}/edit/", form, expect=(302, 409))
        if response.status == 409:
            return self.refused("edit conflicts (409)")  # someone saved in between: the script's version check
        if own:
            self.mine[pk][version + 1] = (title, body)
        key = ("post", pk, version + 1) if own else ("shared", pk, version + 1)
        self.ack(key, f"post {pk} saved as version {version + 1}", lambda: _has_version(pk, version + 1, title, body))

    def revert(self) -> None:
        pk = self.rng.choice(list(self.mine))
        versions = self.mine[pk]
        version = int(self.http.get(f"{LIST}{pk}/edit/").post_forms()[-1].fields["version"])
        current = versions.get(version)
        choices = [n for n, content in versions.items() if n < version and content != current]
        if current is None or not choices:
            return self.http.get(f"{LIST}{pk}/history/") and None
        number = self.rng.choice(choices)
        title, body = versions[number]
        with self.in_flight(("post", pk), forget=lambda: self.forget(pk)):
            self.http.post(f"{LIST}{pk}/revisions/{number}/revert/", {})
        versions[version + 1] = (title, body)
        what = f"post {pk} reverted to {number} as version {version + 1}"
        self.ack(("post", pk, version + 1), what, lambda: _has_version(pk, version + 1, title, body))

    def comment(self) -> None:
        own = self.rng.random() < 0.5 or not self.shared
        pk = self.rng.choice(list(self.mine) if own else self.shared)
        text = f"Comment {self.token()}"
        self.http.get(f"{LIST}{pk}/")
        self.http.post(f"{LIST}{pk}/comments/add/", {"text": text})
        if own:
            self.comments[pk].append(text)
        key = ("post", pk, "comment", text) if own else ("shared", pk, "comment", text)
        self.ack(key, f"comment {text!r} on post {pk}", lambda: text in _comment_texts(pk))

    def uncomment(self) -> None:
        candidates = [pk for pk, texts in self.comments.items() if texts]
        if not candidates:
            return self.comment()
        pk = self.rng.choice(candidates)
        page = self.http.get(f"{LIST}{pk}/comments/").text
        rows = dict(
            (text, cid) for cid, text in re.findall(r'data-comment="(\d+)">.*?pre-wrap">([^<]*)</td>', page, re.S)
        )
        text = self.rng.choice(self.comments[pk])
        if text not in rows:
            return
        with self.in_flight(
            ("post", pk, "comment", text),
            lambda: text not in _comment_texts(pk),
            lambda: self.comments[pk].remove(text),
        ):
            self.http.post(f"{LIST}{pk}/comments/{rows[text]}/delete/", {})
        self.comments[pk].remove(text)
        what = f"comment {text!r} on post {pk} deleted"
        self.ack(("post", pk, "comment", text), what, lambda: text not in _comment_texts(pk))

    def delete(self) -> None:
        if len(self.mine) < 3:
            return self.create()  # keep a few to edit
        pk = self.rng.choice(list(self.mine))
        self.http.get(f"{LIST}{pk}/delete/")
        with self.in_flight(("post", pk), lambda: _gone(pk), lambda: self.forget(pk)):
            self.http.post(f"{LIST}{pk}/delete/", {})
        self.forget(pk)
        self.ack(("post", pk, "deleted"), f"post {pk} deleted", lambda: _gone(pk), replaces=("post", pk))

    # -- helpers

    def forget(self, pk: int) -> None:
        """Write no more to this post (deleted, or a write to it met an outage); others still read it."""
        del self.mine[pk], self.comments[pk]

    def any_post(self) -> int:
        pool = list(self.mine) + self.shared
        return self.rng.choice(pool)

    def username(self) -> str:
        return f"load{self.worker:02d}"
