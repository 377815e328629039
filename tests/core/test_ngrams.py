"""The trigram machinery's reading of text, which every app's index shares (config.store.ngramtext)."""

import random

from django.test import SimpleTestCase, tag

from catalog import keys
from config.keyspace import keyspace
from config.store.ngramtext import Query, fold, grams, short_grams, words


class NgramTextTest(SimpleTestCase):
    def test_words_are_folded_letters_and_digits(self):
        self.assertEqual(fold("Café CRÈME"), "cafe creme")
        self.assertEqual(words("USB-C hub, 4K_60Hz!"), ["usb", "c", "hub", "4k", "60hz"])

    def test_ascii_folds_as_the_unicode_path_folds_it(self):
        import unicodedata

        def slow(text):
            bare = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
            return unicodedata.normalize("NFKC", bare.casefold())

        every = "".join(map(chr, range(128)))
        self.assertEqual(fold(every), slow(every))
        self.assertEqual(fold("Ada LOVELACE 42"), "ada lovelace 42")

    def test_each_word_gives_its_overlapping_three_character_pieces(self):
        self.assertEqual(grams("Smartphone X"), {"sma", "mar", "art", "rtp", "tph", "pho", "hon", "one"})
        self.assertEqual(grams("TV 4K"), set())  # words shorter than three have none
        self.assertEqual(grams("abc abc"), {"abc"})

    def test_a_query_needs_each_word_inside_the_name_short_ones_included(self):
        query = Query.parse("Phone x")
        self.assertEqual((query.long, query.short, query.grams), (("phone",), ("x",), ("hon", "one", "pho", "x")))
        self.assertTrue(query.matches("Smartphone X"))
        self.assertTrue(query.matches("Smartphone Box"))  # a short word anywhere, not only starting a word
        self.assertFalse(query.matches("Phonograph One"))  # holds every piece, not the word
        self.assertFalse(query.matches("Smartphone Y"))
        self.assertTrue(Query.parse("tv").usable)
        self.assertEqual(Query.parse("電話").grams, ("電話",))  # one piece of its own, in any script
        self.assertTrue(Query.parse("電").matches("📱 هاتف 電話 Phone"))

    def test_every_word_gives_its_one_and_two_character_pieces(self):
        self.assertEqual(short_grams("電話"), {"電", "話", "電話"})
        self.assertEqual(short_grams("x2"), {"x", "2", "x2"})
        self.assertEqual(short_grams("abc"), {"a", "b", "c", "ab", "bc"})

    @tag("slow")
    def test_a_query_of_three_character_words_is_exact_holding_its_pieces_is_matching(self):
        self.assertTrue(Query.parse("air").exact)
        self.assertTrue(Query.parse("Air MAX").exact)
        self.assertFalse(Query.parse("phone").exact)  # three pieces: a name may hold them apart
        self.assertTrue(Query.parse("air x").exact)  # a short word is one piece of its own
        rng = random.Random(16)
        letters = "abcaeiourstßéÉ_-1 ﬁ"
        names = ["".join(rng.choice(letters) for _ in range(rng.randint(3, 14))) for _ in range(3000)]
        queries = {w[i : i + 3] for name in names[:300] for w in words(name) for i in range(len(w) - 2)}
        queries |= {g for name in names[:100] for w in words(name) for g in short_grams(w)}
        pieces = {name: grams(name) | {g for w in words(name) for g in short_grams(w)} for name in names}
        for text in sorted(queries)[:400]:
            query = Query.parse(text)
            self.assertTrue(query.exact, text)
            holding = {name for name in names if set(query.grams) <= pieces[name]}
            self.assertEqual(holding, {name for name in names if query.matches(name)}, text)

    def test_a_rename_touches_only_the_pieces_that_change(self):
        from catalog.store import NAMES

        dropped, added = NAMES[0].diff("Smartphone X", "Featurephone X")
        lost = [keys.ngram(g, 0) for g in ("ar", "art", "m", "ma", "mar", "rt", "rtp", "s", "sm", "sma")]
        lost += [keys.word("smartphone", 0)]  # a word of four characters or more: its own set
        self.assertEqual(dropped, [*lost, keys.ngram("tp", 0), keys.ngram("tph", 0)])
        self.assertEqual(added[:4], [keys.ngram(g, 0) for g in ("at", "atu", "ea", "eat")])
        self.assertIn(keys.word("featurephone", 0), added)
        self.assertNotIn(keys.ngram("pho", 0), dropped + added)

    def test_the_key_registry_names_the_catalogs_trigram_sets(self):
        entry = keyspace.match(keys.ngram("pho", 0))
        self.assertEqual((entry.type, entry.pattern), ("set", keys.ngram("*", "*")))
        self.assertIn("trigram", entry.modeling)
