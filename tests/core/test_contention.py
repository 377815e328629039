"""A write that keeps losing its WATCH race ends as a 409 page, never a 500."""

from django.http import HttpResponse
from django.test import override_settings, tag
from django.urls import include, path

from config import store as family
from config.redis import client
from config.store import transact
from tests.base import RedisTestCase, run_concurrently


def contended(request):
    """Bumps a counter under WATCH while another client changes it between every read and EXEC."""

    def work(pipe):
        value = int(pipe.get("test:hot") or 0)
        client().incr("test:hot")  # a rival write, after the WATCH: this EXEC must fail
        pipe.multi()
        pipe.set("test:hot", value + 1)

    transact(work, watch=("test:hot",), retries=3)
    return HttpResponse("written")


urlpatterns = [path("contended/", contended), path("", include("config.urls"))]


@override_settings(ROOT_URLCONF=__name__)
@tag("cluster")
class ContentionTest(RedisTestCase):
    def test_a_write_that_keeps_losing_answers_409_and_writes_nothing_of_its_own(self):
        response = self.client.get("/contended/")
        self.assertEqual(response.status_code, 409)
        self.assertContains(response, "Nothing was written.", status_code=409)
        self.assertEqual(client().get("test:hot"), "3")  # only the rival's three increments

    def test_the_loop_retries_until_it_wins(self):
        won = []

        def bump():
            def work(pipe):
                value = int(pipe.get("test:n") or 0)
                pipe.multi()
                pipe.set("test:n", value + 1)

            transact(work, watch=("test:n",))
            won.append(1)

        run_concurrently(bump, [()] * 8)
        self.assertEqual(client().get("test:n"), "8")

    def test_busy_is_the_one_family_every_app_raises(self):
        from cms import store as cms
        from orgchart import store as orgchart
        from school import store as school

        self.assertEqual({cms.Busy, school.Busy, orgchart.Busy}, {family.Busy})
        self.assertTrue(issubclass(family.Busy, family.StoreError))
