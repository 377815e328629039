"""Add forms' one-time tokens: a second post of the same form shows what the first one made
(``config.saving``)."""

from __future__ import annotations

from config import keys
from config.redis import client

ONCE_TTL = 86_400  # a form's one-time token is remembered for a day


def claim_form_token(token: str) -> bool:
    """Claim an add form's one-time token: True for the first post only (SET NX: two racing cannot win)."""
    return bool(client().set(keys.form_token(token), "", nx=True, ex=ONCE_TTL))


def settle_form_token(token: str, made: str) -> None:
    """Record what the claimed token's save made (``app:entity:id``), for the posts after it."""
    client().set(keys.form_token(token), made, xx=True, keepttl=True)


def release_form_token(token: str) -> None:
    """Give a token back when its save wrote nothing, so the corrected form can be sent again."""
    client().delete(keys.form_token(token))


def form_token_result(token: str) -> str | None:
    """What the token's save made; "" while it runs, None when the token is unknown."""
    return client().get(keys.form_token(token))
