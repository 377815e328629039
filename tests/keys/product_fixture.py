"""A stand-in product page for the browser test of "keys behind this screen".

The catalog app is built in its own branch; this page reads the same shapes
the e-book gives a product (a hash, and a sorted set of its reviews) in one
pipeline, so the test proves the key browser shows exactly what a product
page read, whatever the catalog app's code. It is a test fixture: only the
browser test routes to it (``ROOT_URLCONF``), and only test code calls Redis
outside a store module.
"""

import json

from django.http import HttpResponse
from django.template import engines
from django.urls import path

from config.redis import client
from config.urls import urlpatterns as site

PAGE = engines["django"].from_string(
    """{% extends "base.html" %}{% block content %}
<h1 id="product-name">{{ product.name }}</h1>
<p id="product-price">${{ product.price }}</p>
<ul id="reviews">{% for review, rating in reviews %}
  <li>{{ review.text }} ({{ rating|floatformat:0 }}★)</li>
{% endfor %}</ul>
{% endblock %}"""
)


def product_key(pk: int) -> str:
    return f"catalog:product:{pk}"


def reviews_key(pk: int) -> str:
    return f"catalog:product:{pk}:reviews"


def register(keyspace) -> None:
    keyspace.register_app("catalog", "catalog:")
    keyspace.register(
        "catalog", "catalog:product:*", "hash", "Embedded pattern", "One product.", url="/catalog/products/{id}/"
    )
    keyspace.register("catalog", "catalog:product:*:reviews", "zset", "Partial embed", "A product's reviews by rating.")


def write(pk: int, name: str, price: str, reviews: dict[str, int]) -> None:
    pipe = client().pipeline(transaction=True)
    pipe.hset(product_key(pk), mapping={"name": name, "price": price, "schema": "1"})
    pipe.zadd(reviews_key(pk), {json.dumps({"text": text}): rating for text, rating in reviews.items()})
    pipe.execute()


def product(request, pk: int):
    pipe = client().pipeline(transaction=False)
    pipe.hmget(product_key(pk), "name", "price")
    pipe.zrevrange(reviews_key(pk), 0, 9, withscores=True)
    (name, price), reviews = pipe.execute()
    context = {"product": {"name": name, "price": price}, "reviews": [(json.loads(m), s) for m, s in reviews]}
    return HttpResponse(PAGE.render(context, request))


urlpatterns = [path("catalog/products/<int:pk>/", product), *site]
