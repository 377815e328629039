"""An import that refuses or rewrites a huge value quotes a few hundred characters of it, with its
size: the preview page stays small whatever the file holds."""

import json

from django.core.files.uploadedfile import SimpleUploadedFile

from config.redis import client
from tests.base import RedisTestCase, run_jobs

HUGE = 3_000_000  # characters of one value, under the importer's line limit


class HugeValueRefusalTest(RedisTestCase):
    sign_in = False

    def setUp(self):
        super().setUp()
        self.client.force_login(self.make_staff("admin", is_superuser=True))

    def preview(self, name: str, lines: list[dict]):
        """The upload, checked by the background job, and the job's page with the check's outcome."""
        body = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
        response = self.client.post("/exchange/orgchart/preview/", {"file": SimpleUploadedFile(name, body)})
        self.assertEqual(response.status_code, 303)
        run_jobs()
        return self.client.get(response["Location"])

    def test_the_preview_quotes_a_few_hundred_characters_of_each_value_with_its_size(self):
        lines = [{"location": 1, "hour": f"{i}" + "9" * HUGE, "readings": []} for i in range(3)]
        response = self.preview("samples.jsonl", lines)
        self.assertLess(len(response.content), 40_000)
        self.assertContains(response, "must be an hour like 2026-01-05T09:00:00Z, not &#x27;0999")
        self.assertContains(response, f"({HUGE + 1:,} characters)", count=3)
        self.assertEqual(list(client().scan_iter("orgchart:*")), [])

    def test_a_rewritten_value_is_cut_in_the_example_too(self):
        response = self.preview("locations.jsonl", [{"id": 1, "name": "  " + "S" * HUGE + " "}])
        self.assertLess(len(response.content), 40_000)
        self.assertContains(response, f"({HUGE + 3:,} characters in all)", status_code=response.status_code)
