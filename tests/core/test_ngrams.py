"""The trigram machinery's reading of text, which every app's index shares (config.store.ngramtext)."""

import random

from django.test import SimpleTestCase, tag

from catalog import keys
from config.keyspace import keyspace
from config.store.ngramtext import Query, fold, grams, words


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

    def test_a_query_needs_its_long_words_inside_and_its_short_words_starting_a_word(self):
        query = Query.parse("Phone x")
        self.assertEqual((query.long, query.short, query.grams), (("phone",), ("x",), ("hon", "one", "pho")))
        self.assertTrue(query.matches("Smartphone X"))
        self.assertFalse(query.matches("Phonograph One"))  # holds every piece, not the word
        self.assertFalse(query.matches("Smartphone Y"))
        self.assertFalse(Query.parse("tv").usable)

    @tag("slow")
    def test_a_query_of_three_character_words_is_exact_holding_its_pieces_is_matching(self):
        self.assertTrue(Query.parse("air").exact)
        self.assertTrue(Query.parse("Air MAX").exact)
        self.assertFalse(Query.parse("phone").exact)  # three pieces: a name may hold them apart
        self.assertFalse(Query.parse("air x").exact)  # a short word must start a word: names are checked
        rng = random.Random(16)
        letters = "abcaeiourstßéÉ_-1 ﬁ"
        names = ["".join(rng.choice(letters) for _ in range(rng.randint(3, 14))) for _ in range(3000)]
        queries = {w[i : i + 3] for name in names[:300] for w in words(name) for i in range(len(w) - 2)}
        for text in sorted(queries)[:300]:
            query = Query.parse(text)
            self.assertTrue(query.exact, text)
            holding = {name for name in names if set(query.grams) <= grams(name)}
            self.assertEqual(holding, {name for name in names if query.matches(name)}, text)

    def test_a_rename_touches_only_the_pieces_that_change(self):
        from catalog.store import NAMES

        dropped, added = NAMES[0].diff("Smartphone X", "Featurephone X")
        lost = [keys.ngram(g, 0) for g in ("art", "mar", "rtp", "sma")] + [keys.word("smartphone", 0)]
        self.assertEqual(dropped, [*lost, keys.ngram("tph", 0)])  # a word of four characters or more: its own set
        self.assertEqual(added[:2], [keys.ngram("atu", 0), keys.ngram("eat", 0)])
        self.assertIn(keys.word("featurephone", 0), added)
        self.assertNotIn(keys.ngram("pho", 0), dropped + added)

    def test_the_key_registry_names_the_catalogs_trigram_sets(self):
        entry = keyspace.match(keys.ngram("pho", 0))
        self.assertEqual((entry.type, entry.pattern), ("set", keys.ngram("*", "*")))
        self.assertIn("trigram", entry.modeling)
