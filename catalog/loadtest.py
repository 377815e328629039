"""The catalog under load: shoppers browsing and filtering, reviewing; staff adding and editing products.

Reviews land on the seeded products everyone shares (each one moves the
product's embedded newest three, its count and its rating sum in one
script) and on a client's own products, where it also deletes them.
Each acknowledged review is found afterwards by its unique author; each own
product must hold its last acknowledged name.
"""

from __future__ import annotations

import re

from catalog import store
from config.loadtest import Scenario, ids_in, scenario

PRODUCTS = "/catalog/products/"


def _reviewed(pk: int, author: str, rating: int) -> bool:
    page = store.review_page(pk, 0, 100_000)
    return page is not None and any((r.author, r.rating) == (author, rating) for r in page.reviews)


def _unreviewed(pk: int, author: str) -> bool:
    page = store.review_page(pk, 0, 100_000)
    return page is None or all(r.author != author for r in page.reviews)


def _named(pk: int, name: str, sku: str) -> bool:
    product = store.get(pk)
    return product is not None and (product.name, product.sku) == (name, sku)


@scenario("catalog", weight=3)
class Shoppers(Scenario):
    def setup(self) -> None:
        self.shared = ids_in(self.http.get(PRODUCTS).text, PRODUCTS)[:20]
        self.mine: dict[int, list[str]] = {}  # own product -> authors of the reviews on it
        self.frozen: set[int] = set()  # own products an edit of which met an outage: not edited again

    def step(self) -> None:
        if not self.mine:
            return self.add_product()
        action = self.rng.choices(
            (self.browse, self.look, self.review, self.unreview, self.add_product, self.edit_product),
            (30, 30, 20, 6, 3, 8),
        )[0]
        action()

    def browse(self) -> None:
        params = {"o": self.rng.choice(("name", "-price", "rating", "-reviews", "-created"))}
        roll = self.rng.random()
        if roll < 0.25:
            params["q"] = self.rng.choice(("a", "pro", "x", "load"))
        elif roll < 0.5:
            params["type"] = self.rng.choice(("earbuds", "phone", "monitor", "appliance", "game_console"))
        elif roll < 0.6:
            params["tags_any"] = self.rng.choice(("wireless", "budget", "gaming"))
        self.http.get(PRODUCTS, params)

    def look(self) -> None:
        pk = self.rng.choice(self.shared + list(self.mine))
        self.http.get(f"{PRODUCTS}{pk}/" if self.rng.random() < 0.7 else f"{PRODUCTS}{pk}/reviews/")

    def review(self) -> None:
        own = self.rng.random() < 0.4 or not self.shared
        pk = self.rng.choice(list(self.mine) if own else self.shared)
        author, rating = f"Shopper {self.token()}", self.rng.randint(1, 5)
        self.http.get(f"{PRODUCTS}{pk}/")
        self.http.post(f"{PRODUCTS}{pk}/reviews/add/", {"author": author, "rating": rating, "comment": "Under load."})
        if own:
            self.mine[pk].append(author)
        key = ("product", pk, "review", author) if own else ("shared", pk, "review", author)
        self.ack(key, f"review by {author} on product {pk}", lambda: _reviewed(pk, author, rating))

    def unreview(self) -> None:
        candidates = [pk for pk, authors in self.mine.items() if authors]
        if not candidates:
            return self.review()
        pk = self.rng.choice(candidates)
        author = self.rng.choice(self.mine[pk])
        page = self.http.get(f"{PRODUCTS}{pk}/reviews/").text
        found = re.search(
            rf'data-review="(\d+)">(?:(?!</li>).)*?<span class="author">{re.escape(author)}</span>', page, re.S
        )
        if found is None:
            return  # past the first page of reviews
        path = f"{PRODUCTS}{pk}/reviews/{found.group(1)}/delete/"
        self.http.get(path)
        gone = ("product", pk, "review", author)
        with self.in_flight(gone, lambda: _unreviewed(pk, author), lambda: self.mine[pk].remove(author)):
            self.http.post(path, {})
        self.mine[pk].remove(author)
        self.ack(("product", pk, "review", author), f"review by {author} deleted", lambda: _unreviewed(pk, author))

    def add_product(self) -> None:
        form = self.http.get(f"{PRODUCTS}add/", {"type": "appliance"}).post_forms()[-1].fields
        token = self.token()
        name, sku = f"Load kettle {token}", f"LT-{token}"
        form.update(name=name, brand="Loadworks", sku=sku, power_watts="2200", tags="kitchen, load")
        pk = int(re.search(r"/(\d+)/$", self.http.post(f"{PRODUCTS}add/", form).location).group(1))
        self.mine[pk] = []
        self.ack(("product", pk, "name"), f"product {pk} added as {name}", lambda: _named(pk, name, sku))

    def edit_product(self) -> None:
        editable = [pk for pk in self.mine if pk not in self.frozen]
        if not editable:
            return self.add_product()
        pk = self.rng.choice(editable)
        form = self.http.get(f"{PRODUCTS}{pk}/edit/").post_forms()[-1].fields
        name, sku = f"Load kettle {self.token()}", form["sku"]
        form["name"] = name
        renamed = lambda: _named(pk, name, sku)  # noqa: E731
        with self.in_flight(("product", pk, "name"), renamed, lambda: self.frozen.add(pk)):
            self.http.post(f"{PRODUCTS}{pk}/edit/", form)
        self.ack(("product", pk, "name"), f"product {pk} renamed {name}", renamed)
