"""Every screen of a seeded dashboard, for the browser tests that sweep them all.

The list is found, not written down: starting from each app's home, the crawl
follows same-site links and keeps the first page of each URL name (a product's
detail, its edit form, its delete confirmation, ...), so a screen added later is
swept without editing this file. The key browser is added once per Redis type,
since one URL name shows a different screen for each.
"""

from __future__ import annotations

from urllib.parse import quote, urlsplit

from django.core.management import call_command
from django.urls import Resolver404, resolve

from config.redis import client
from tests.base import PASSWORD

ROOTS = (
    "/",
    "/catalog/products/",
    "/school/courses/",
    "/school/instructors/",
    "/school/students/",
    "/school/algebra/",
    "/cms/posts/",
    "/orgchart/employees/",
    "/orgchart/tree/",
    "/orgchart/path/",
    "/orgchart/locations/",
    "/keys/",
    "/keys/tree/",
    "/keys/registry/",
    "/keys/orphans/",
    "/exchange/",
)
SKIPPED = {"logout", "healthz", "exchange:download", "keybrowser:download", "orgchart:tree_children", "school:find"}
WIDTHS = (390, 800)
MAX_SCREENS = 90


def sign_in_as_admin(test) -> None:
    """A superuser signed in through the form, so that every screen (the key browser, the
    exchange) is there to sweep."""
    test.make_staff("admin", is_superuser=True)
    test.page.goto(test.url("/accounts/login/"))
    test.page.fill("input[name=username]", "admin")
    test.page.fill("input[name=password]", PASSWORD)
    test.page.click("button[type=submit]")
    test.page.wait_for_url(test.url("/"))


def seed() -> None:
    """A small demo dataset in the test Redis (flushed by the test's setUp)."""
    call_command("seed", verbosity=0)


def route(path: str) -> str | None:
    """The URL name a same-site path resolves to, or None for a path to leave alone."""
    try:
        match = resolve(urlsplit(path).path)
    except Resolver404:
        return None
    name = match.view_name
    return None if name in SKIPPED else name


def key_pages() -> list[str]:
    """One key browser page per Redis type found in the seeded data."""
    pages, seen = [], set()
    for key in client().scan_iter(count=1000):
        kind = client().type(key)
        if kind not in seen:
            seen.add(kind)
            pages.append(f"/keys/?key={quote(key)}")
        if len(seen) >= 6:
            break
    return pages


def screens(page, base_url: str) -> list[str]:
    """Crawl the signed-in ``page`` from ``ROOTS``: one path per URL name, then the key pages.
    The sign-in page is swept apart, signed out."""
    found: dict[str, str] = {}
    queue = list(ROOTS)
    while queue and len(found) < MAX_SCREENS:
        path = queue.pop(0)
        name = route(path)
        if name is None or name in found:
            continue
        response = page.goto(base_url + path)
        if response is None or response.status != 200:
            continue
        found[name] = path
        hrefs = page.eval_on_selector_all("main a[href]", "els => els.map(a => a.getAttribute('href'))")
        queue.extend(href for href in hrefs if href.startswith("/") and not href.startswith("//"))
    return [*found.values(), *key_pages()]
