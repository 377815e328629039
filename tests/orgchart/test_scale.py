from io import StringIO

from django.core.management import call_command
from django.test import SimpleTestCase


class ScaleCheckTest(SimpleTestCase):
    def test_the_scale_check_builds_moves_reads_and_finds_no_violation(self):
        out = StringIO()
        call_command("orgchart_scale", people=600, stdout=out)
        text = out.getvalue()
        self.assertIn("python manage.py orgchart_scale --people 600", text)
        self.assertIn("org of 600; moved", text)
        self.assertIn("move:", text)
        self.assertRegex(text, r"subtree: [0-9,]+ people in 1 round trips")  # within the walk budget
        self.assertIn("check_integrity (org chart): 0 violation(s)", text)
