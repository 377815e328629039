"""Reviews, through the shared ChildCollection: add, delete, one page."""

from __future__ import annotations

import time
from dataclasses import dataclass

from catalog import keys
from catalog.documents import Review
from catalog.store.core import APP, REVIEWS
from config.activity import Actor
from config.redis import client
from config.store.ids import IdBlock

# This process's block of review ids in each partition (``config.store.ids.IdBlock``): a review's id
# is drawn in its product's partition.
_IDS = tuple(IdBlock(keys.review_ids(p), keys.PARTITIONS, p) for p in keys.partitions())


def reserve_review_ids() -> None:
    """Draw this process's blocks of review ids now (a server does it at its first add)."""
    for block in _IDS:
        block.reserve()


@dataclass(frozen=True)
class AddedReview:
    id: int
    product_name: str


def add_review(
    product_id: int, author: str, rating: int, comment: str, *, actor: Actor, at: float | None = None
) -> int:
    """Add a review; its id. See ``add_named_review``."""
    return add_named_review(product_id, author, rating, comment, actor=actor, at=at).id


def add_named_review(
    product_id: int, author: str, rating: int, comment: str, *, actor: Actor, at: float | None = None
) -> AddedReview:
    """Add a review, its id from this process's block (``IdBlock``), in one script that writes the
    hash, the set, the embed, the aggregate, the sort indexes and the event; its id and its product's
    name. NotFound, for a missing product, writes nothing."""
    at = time.time() if at is None else at
    fields = {"author": author, "rating": str(rating), "comment": comment}

    def event(review_id: int):
        return actor.event("created", APP, "review", review_id, f"{rating}★ by {author}")

    block = _IDS[keys.partition_of(product_id)]
    review_id, name = REVIEWS.add(block, product_id, fields, at, event, label="name")
    return AddedReview(review_id, name)


def delete_review(review_id: int, *, actor: Actor, product_id: int | None = None) -> dict[str, str]:
    """Delete a review, refilling the embed when it was one of the three newest. With ``product_id``, a
    review of another product is NotFound."""

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
