"""Reviews, through the shared ChildCollection: add, delete, one page."""

from __future__ import annotations

import time
from dataclasses import dataclass

from catalog import keys
from catalog.documents import Review
from catalog.store.core import REVIEWS, queue_review_indexes
from config.activity import Event
from config.redis import client


def add_review(product_id: int, author: str, rating: int, comment: str, event: Event, at: float | None = None) -> int:
    """Add a review: its hash, the set, the embed, the aggregate and the sort indexes in one MULTI/EXEC."""
    fields = {"author": author, "rating": str(rating), "comment": comment}
    at = time.time() if at is None else at
    return REVIEWS.add(product_id, fields, at, event=event, on_change=queue_review_indexes)


def delete_review(review_id: int, event: Event, product_id: int | None = None) -> dict[str, str]:
    """Delete a review; refills the embed from the set when it was one of the three newest.

    With ``product_id``, a review of another product is NotFound, checked under the WATCH."""
    return REVIEWS.delete(review_id, event=event, on_change=queue_review_indexes, expected_parent=product_id)


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
