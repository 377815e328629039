"""Pure parts of the catalog documents: the name sort score, tags, the type registry."""

from django.test import SimpleTestCase

from catalog import types
from catalog.documents import is_tag, name_score, split_tags, tag_slug, tag_slugs
from catalog.importing import snake


class DocumentTest(SimpleTestCase):
    def test_the_name_score_orders_like_the_casefolded_name_to_ten_characters(self):
        names = ["Zeta", "alpha 2", "Alpha", "10 Pro", "2 Pro", "Émile", "alphabet", "beta"]
        ordered = sorted(names, key=name_score)
        self.assertEqual(ordered, ["10 Pro", "2 Pro", "Alpha", "alpha 2", "alphabet", "beta", "Émile", "Zeta"])
        self.assertEqual(name_score("abcdefghijX"), name_score("abcdefghijY"))  # exact to 10 characters
        self.assertLess(name_score("z" * 10), 2**53)

    def test_tags_are_lowercase_slugs(self):
        self.assertEqual(split_tags("UX test, 5g,, "), ["UX test", "5g"])
        self.assertEqual([tag_slug(t) for t in ("UX test", "Noise Cancelling!", "Écran 4K", "a--b", "!!!")],
                         ["ux-test", "noise-cancelling", "ecran-4k", "a-b", ""])  # fmt: skip
        self.assertEqual(tag_slugs("Wireless, wireless , USB C"), [("Wireless", "wireless"), ("USB C", "usb-c")])
        self.assertTrue(is_tag("usb-c"))
        for bad in ("-x", "x-", "a--b", "a b", "a:b", "x" * 33, "*"):
            self.assertFalse(is_tag(bad), bad)

    def test_type_spellings_and_camel_case_fields(self):
        self.assertEqual(types.get("game console").slug, "game_console")
        self.assertEqual(types.get("Game-Console").slug, "game_console")
        self.assertIsNone(types.get("game:console"))
        self.assertEqual(snake("batteryLife"), "battery_life")
        self.assertEqual(snake("usb_ports"), "usb_ports")
        self.assertEqual(snake("batteryLife"), types.TYPES["earbuds"].fields[0].name)

    def test_no_type_field_shadows_a_shared_field(self):
        from catalog.documents import Product

        shared = set(Product("earbuds", "n", "b", "s").to_hash()) | {"num_reviews", "sum_ratings", "recent_reviews"}
        for kind in types.TYPES.values():
            self.assertEqual(set(kind.field_names) & shared, set(), kind.slug)
