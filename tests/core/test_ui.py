"""Shared screens: a form with several errors sums them up at the top; signing out says so."""

from tests.base import RedisTestCase


class FormErrorsTest(RedisTestCase):
    def test_several_errors_are_summed_up_at_the_top_and_each_stays_beside_its_field(self):
        self.user.is_superuser = True
        self.user.save()
        response = self.client.post("/school/courses/add/", {"code": "", "title": "", "capacity": "0"})
        self.assertContains(response, 'id="error-summary"')
        self.assertContains(response, "Please correct the 3 errors below.")
        self.assertContains(response, '<a href="#id_code">Code</a>')
        self.assertContains(response, 'class="field-error"', count=3)

    def test_one_error_needs_no_summary(self):
        self.user.is_superuser = True
        self.user.save()
        response = self.client.post("/school/courses/add/", {"code": "CS-1", "title": "", "capacity": "30"})
        self.assertNotContains(response, 'id="error-summary"')
        self.assertContains(response, 'class="field-error"', count=1)


class SignOutTest(RedisTestCase):
    def test_signing_out_says_so_on_the_sign_in_page(self):
        response = self.client.post("/accounts/logout/", follow=True)
        self.assertContains(response, "staff signed out.")
        self.assertContains(response, "Sign in")
