"""The dashboard's activity feed: a deleted object is named as deleted, never linked to a 404."""

from django.core.cache import caches
from django.core.cache.utils import make_template_fragment_key
from django.test import tag

from catalog import keys as catalog_keys
from config import store
from config.activity import Actor
from config.redis import client
from tests.base import RedisTestCase

ACTOR = Actor("ann", link=lambda entity, object_id: f"/catalog/products/{object_id}/")


def log(*events) -> None:
    pipe = client().pipeline(transaction=True)
    for event in events:
        store.queue_event(pipe, event, catalog_keys.events(0))  # a stream the dashboard reads (its first partition's)
    pipe.execute()


@tag("cluster")
class DeletedObjectsTest(RedisTestCase):
    def test_an_object_deleted_since_is_marked_in_the_same_single_read(self):
        log(
            ACTOR.event("created", "catalog", "product", 7, "Quietude Pods"),
            ACTOR.event("created", "catalog", "product", 8, "Vertex Station"),
            ACTOR.event("deleted", "catalog", "product", 7, "Quietude Pods", gone=True),
        )
        with self.assertRoundTrips(1):
            events = store.activity().events
        self.assertEqual(
            [(e.object_id, e.gone, e.deleted) for e in events],
            [("7", True, False), ("8", False, False), ("7", False, True)],
        )

        response = self.client.get("/")
        self.assertContains(response, 'href="/catalog/products/8/"')
        self.assertNotContains(response, 'href="/catalog/products/7/"')
        self.assertContains(response, '<span class="deleted">deleted</span>', count=1)

    def test_an_event_is_kept_rendered_and_shown_anew_once_its_object_is_deleted(self):
        caches["fragments"].clear()
        log(ACTOR.event("created", "catalog", "product", 7, "Quietude Pods"))
        first = self.client.get("/")
        (event,) = first.context["activity"].events
        kept = caches["fragments"].get(make_template_fragment_key("activity-event", [event]))
        self.assertIn('<a href="/catalog/products/7/">Quietude Pods</a>', kept)
        self.assertIn(kept, first.content.decode())
        log(ACTOR.event("deleted", "catalog", "product", 7, "Quietude Pods", gone=True))
        after = self.client.get("/")
        self.assertNotContains(after, 'href="/catalog/products/7/"')  # the same entry, now deleted: a new key
        self.assertContains(after, '<span class="deleted">deleted</span>', count=1)

    def test_only_a_delete_writes_the_gone_field(self):
        log(
            ACTOR.event("created", "catalog", "product", 7, "P"),
            ACTOR.event("deleted", "catalog", "product", 7, "P", gone=True),
        )
        self.assertEqual([fields.get("gone") for _, fields in client().xrange(catalog_keys.events(0))], [None, "1"])

    def test_a_long_label_is_cut_with_its_full_text_in_its_title(self):
        label = "A very long product name " * 6
        log(ACTOR.event("created", "catalog", "product", 9, label))
        self.assertContains(self.client.get("/"), f'<span class="cut" title="{label}"><a href="/catalog/products/9/">')
