"""Reviews, through the shared ChildCollection: add, delete, one page."""

from __future__ import annotations

import time
from dataclasses import dataclass

from catalog import keys
from catalog.documents import Review
from catalog.store.core import APP, REVIEWS
from config.activity import Actor
from config.redis import client


def add_review(
    product_id: int, author: str, rating: int, comment: str, *, actor: Actor, at: float | None = None
) -> int:
    """Add a review: two round trips (the id, drawn only for an existing product, then one script
    that writes the hash, the set, the embed, the aggregate, the sort indexes and the event)."""
    fields = {"author": author, "rating": str(rating), "comment": comment}
    at = time.time() if at is None else at

    def event(review_id: int):
        return actor.event("created", APP, "review", review_id, f"{rating}★ by {author}")

    return REVIEWS.add(product_id, fields, at, event=event)


def delete_review(review_id: int, *, actor: Actor, product_id: int | None = None) -> dict[str, str]:
    """Delete a review; refills the embed from the set when it was one of the three newest.

    With ``product_id``, a review of another product is NotFound, and the
    delete is two round trips (the review and the newest ids, then the script)."""

    def event(review: dict[str, str]):
        return actor.event("deleted", APP, "review", review_id, f"{review.get('rating')}★ by {review.get('author')}")

    return REVIEWS.delete(review_id, event=event, expected_parent=product_id)


def get_review(review_id: int) -> Review | None:
    data = client().hgetall(keys.review(review_id))
    return Review.from_fields({**data, "id": str(review_id)}) if data else None


@dataclass(frozen=True)
class ReviewPage:
    product_name: str
    reviews: list[Review]
    total: int


def review_page(product_id: int, offset: int, limit: int) -> ReviewPage | None:
    """A page of a product's reviews, newest first, and the product's name: one round trip."""
    pipe = client().pipeline(transaction=False)
    pipe.hget(keys.product(product_id), "name")
    REVIEWS.queue_page(pipe, product_id, offset, limit)
    name, *replies = pipe.execute()
    if name is None:
        return None
    rows, total = REVIEWS.page_from(replies)
    return ReviewPage(name, [Review.from_fields(row, product_id) for row in rows], total)
