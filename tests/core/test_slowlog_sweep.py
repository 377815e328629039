"""The sweep behind ``benchmark --slowlog``, at a tiny size on the test server: with SLOWLOG's threshold
at 0 every page it reaches leaves entries, so a crawl that reached no page, or read no log, fails here."""

from django.http import HttpResponse

from config import seeding
from config.benchmark import slowlog
from config.redis import raw_client
from tests.base import RedisTestCase


class OnceSlow:
    """A browser whose first page holds the server 3 ms (DEBUG SLEEP, a real command on the real server)
    and whose next fetches of it send a quick GET: as a command preempted once on a busy machine."""

    def __init__(self, redis):
        self.redis, self.fetched = redis, 0

    def get(self, url, **_):
        self.fetched += 1
        if self.fetched == 1:
            self.redis.execute_command("DEBUG", "SLEEP", "0.003")
        else:
            self.redis.get("quick")
        return HttpResponse("no links", content_type="text/plain")


class SweepTest(RedisTestCase):
    def test_the_crawl_reaches_each_screen_by_its_links_and_reads_each_pages_slowlog(self):
        for seeder in seeding.registry.ordered(["catalog"]):
            seeder.run(seeding.context(seeder.app, "demo"))
        slowlog.add_foreign(50)
        redis = raw_client()
        before = redis.config_get("slowlog-*")
        figures = slowlog.sweep(self.client, redis, threshold_us=0, per_shape=1, limit=60, fetches=2, walks=1)
        pages = {page["url"]: page for page in figures["pages"]}
        self.assertEqual(len(pages), 60)
        for screen in ("/", "/catalog/products/", "/school/courses/", "/keys/", "/keys/memory/", "/keys/server/"):
            self.assertIn(screen, pages)
        self.assertTrue(any(page["shape"] == "catalog/products/<id:pk>/" for page in figures["pages"]))  # a link
        self.assertTrue(all(page["status"] == 200 for page in figures["pages"]), figures["pages"])
        for page in figures["pages"]:  # every page sent commands, each logged at threshold 0, each fetch
            self.assertTrue(page["entries"], page["url"])
            self.assertEqual(len(page["worst"]), 2)
            self.assertNotIn(page["entries"][0][1].split(" ")[0], {"SLOWLOG", "CONFIG"})  # the sweep's own left out
        walk = figures["memory_walk"]
        self.assertGreater(walk["commands"], 0)
        self.assertIn("key browser", walk["longest"])  # the walk's scripts: SCAN a page, describe keys
        self.assertIn(b"other:1", {key for key in redis.scan_iter(match="other:*", count=1000)})
        self.assertEqual(redis.config_get("slowlog-*"), before)  # the server's settings put back
        report = slowlog.text({**figures, "command": "the sweep", "at": "now", "dbsize": 1, "foreign": 50})
        self.assertIn("Crawled 60 pages", report[1])
        self.assertIn("| `/` |", "\n".join(report))  # every page is over a threshold of 0

    def test_a_page_over_the_bound_once_is_fetched_again_with_every_command_timed(self):
        redis = raw_client()
        before = redis.config_get("slowlog-log-slower-than")
        self.addCleanup(redis.config_set, "slowlog-log-slower-than", before["slowlog-log-slower-than"])
        redis.config_set("slowlog-log-slower-than", slowlog.BOUND_US)
        (page,) = slowlog.crawl(OnceSlow(redis), redis, per_shape=1, limit=1, progress=lambda text: None)
        self.assertGreater(page["worst"][0], 2.0)  # the first fetch: DEBUG SLEEP, over the 2 ms bound
        self.assertEqual(len(page["worst"]), 2)  # the next fetch was under it: no third
        self.assertTrue(0 < page["worst"][1] < 2.0, page["worst"])  # its GET timed, not left out as zero
        self.assertEqual(redis.config_get("slowlog-log-slower-than"), {"slowlog-log-slower-than": "2000"})
        walk = {"commands": 0, "seconds": 0, "longest_ms": 0, "longest": "", "walks": []}
        figures = {"pages": [page], "threshold_ms": 2.0, "memory_walk": walk}
        report = "\n".join(slowlog.text({**figures, "command": "c", "at": "now", "dbsize": 1, "foreign": 0}))
        self.assertIn("Pages with a command over 2 ms on every fetch: 0.", report)
        self.assertIn("| 1 of 2 |", report)

    def test_a_url_shape_is_its_route_and_its_query_names_with_the_order_chosen(self):
        self.assertEqual(slowlog.shape("/catalog/products/12/"), "catalog/products/<id:pk>/")
        self.assertEqual(slowlog.shape("/catalog/products/?page=2&o=-name"), "catalog/products/?o=name&page")
        self.assertEqual(slowlog.shape("/catalog/products/?type=phone"), slowlog.shape("/catalog/products/?type=tv"))
        html = '<a href="/cms/posts/3/">x</a><a href="https://example.com/">y</a><a href="?page=2">z</a>'
        html += '<input type="search" name="q" hx-get="/catalog/products/suggest/"><a href="/admin/">a</a>'
        self.assertEqual(
            slowlog.links("/cms/posts/", html),
            [("/cms/posts/3/", False), ("/cms/posts/?page=2", False), ("/catalog/products/suggest/", True)]
            + [(f"/catalog/products/suggest/?q={term}", True) for term in slowlog.SEARCHED],
        )  # a suggestions view only htmx asks for: fetched as htmx does (else it redirects to its list)
