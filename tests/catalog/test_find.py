"""Finding products: the trigram name index (writes, reads, drift, races, growth), autocomplete,
live filter counts, "Save and add another" / "Save and continue editing", and bulk delete."""

import random
import threading
from unittest import mock

from django.test import tag

from catalog import keys, store
from catalog.documents import Product, searched_text
from catalog.integrity import name_trigrams
from catalog.store.batch import Batch
from config.redis import client
from config.store import EditConflict
from config.store.ngramtext import Query, all_grams, kept_words, words
from tests.base import RedisTestCase, run_concurrently
from tests.catalog.helpers import SKU_TRIP, TESTER, holders_of, make_product, part, review, waves
from tests.catalog.test_integrity import messages, repair
from tests.catalog.test_views import EARBUDS_POST


def holders(gram):
    return holders_of(keys.ngram, gram)


def gram_keys():
    return sorted(client().scan_iter(match=keys.ngram("*", "*")))


class TrigramWriteTest(RedisTestCase):
    sign_in = False

    def test_a_product_script_keeps_the_trigrams_of_its_name(self):
        phone = store.new_product_id()
        product = Product(type="phone", name="Smartphone X", brand="", sku="", price=None, tags=[], attrs={})
        with self.assertRoundTrips(1), self.assertCommands(1):  # still one script
            store.create(phone, product, actor=TESTER)
        self.assertEqual(gram_keys(), sorted(keys.ngram(g, part(phone)) for g in all_grams("Smartphone X")))
        self.assertEqual(holders("pho"), {str(phone)})
        product = store.get(phone)
        product.name = "Featurephone Y"
        store.update(phone, product, product.rev, actor=TESTER)
        self.assertEqual(holders("sma"), set())  # only in the old name: gone
        self.assertEqual(holders("fea"), {str(phone)})
        self.assertEqual(holders("pho"), {str(phone)})  # in both: kept
        store.delete(phone, actor=TESTER)
        self.assertEqual(gram_keys(), [])

    def test_an_edit_refuses_when_the_stored_name_is_not_the_one_its_trigrams_came_from(self):
        phone = make_product("Smartphone X", type="phone", attrs={})
        read = store.get(phone)
        client().hset(keys.product(phone), "name", "Planted Name")  # a writer that bypassed the store
        changed = store.get(phone)
        changed.name = "Renamed"
        with self.assertRaises(EditConflict):
            store.update(phone, changed, read.rev, actor=TESTER, current=read)
        self.assertEqual(holders("ren"), set())  # nothing written
        self.assertEqual(client().hget(keys.product(phone), "name"), "Planted Name")

    def test_seeding_and_importing_index_names_too(self):
        product = Product(type="phone", name="Pocket Phone", brand="", sku="", price=None, tags=[], attrs={})
        [new] = store.import_products([(product, [])], actor=TESTER, at=1000.0)
        self.assertEqual(holders("poc"), {str(new)})
        self.assertEqual(messages(), [])


@tag("cluster")
class TrigramSearchTest(RedisTestCase):
    sign_in = False

    def setUp(self):
        super().setUp()
        self.phone = make_product("Smartphone X", type="phone", attrs={}, sku="SPX-1")
        self.gramophone = make_product("Phonograph One", type="appliance", attrs={})  # holds pho, hon, one
        self.honey = make_product("Honey Stone", type="appliance", attrs={})
        self.cafe = make_product("Café Crème Maker", type="appliance", attrs={})

    def test_a_suggestion_is_one_round_trip_of_set_intersection_and_a_joined_page(self):
        with self.assertRoundTrips(1) as trace:
            found = store.suggest("phone")
        self.assertEqual(found, [(str(self.phone), "Smartphone X")])  # "Phonograph One" is a candidate, checked out
        (commands,) = waves(trace)
        search = ["EVAL"]  # each partition's, on one pipeline with several
        names = ["MULTI", *search, "EXEC"] if keys.PARTITIONS == 1 else search * keys.PARTITIONS
        self.assertEqual(sorted(c.name for c in commands), sorted(names))  # on a cluster, grouped by node
        # the name index and the pieces' sets, intersected and ordered in one script, in bounded steps
        intersected = [c.keys[:-1] for c in commands if c.name == "EVAL"]
        self.assertIn((keys.sort_index("name", 0), *(keys.ngram(g, 0) for g in ("hon", "one", "pho"))), intersected)
        self.assertEqual(list(client().scan_iter(match=keys.temp("*", "*"))), [])

    def test_a_search_of_one_piece_orders_that_pieces_own_set(self):
        with self.assertRoundTrips(1) as trace:
            found = store.suggest("one")
        self.assertEqual([name for _, name in found], ["Honey Stone", "Phonograph One", "Smartphone X"])
        (commands,) = waves(trace)
        search = ["EVAL"]  # no SINTERSTORE: no copy of the piece's set to make and free
        names = ["MULTI", *search, "EXEC"] if keys.PARTITIONS == 1 else search * keys.PARTITIONS
        self.assertEqual(sorted(c.name for c in commands), sorted(names))
        ordered = [c.keys for c in commands if c.name == "EVAL"]
        self.assertTrue(all(keys.ngram("one", p) in sources for p, sources in zip(keys.partitions(), ordered)))
        self.assertTrue(any(client().exists(keys.ngram("one", p)) for p in keys.partitions()))
        self.assertEqual(list(client().scan_iter(match=keys.temp("*", "*"))), [])

    def test_any_part_of_a_name_in_any_case_and_accents_finds_it(self):
        self.assertEqual(store.suggest("MARTPH"), [(str(self.phone), "Smartphone X")])
        self.assertEqual(store.suggest("creme"), [(str(self.cafe), "Café Crème Maker")])
        self.assertEqual([name for _, name in store.suggest("one")], ["Honey Stone", "Phonograph One", "Smartphone X"])
        self.assertEqual(store.suggest("phone x"), [(str(self.phone), "Smartphone X")])  # short word: a word start
        self.assertEqual(store.suggest("phone y"), [])
        self.assertEqual(store.suggest("zz"), [])  # too short to suggest

    def test_the_list_searches_any_part_of_a_name_or_an_exact_sku(self):
        def names(q):
            return [row.name for row in store.list_products(store.ProductQuery(q=q, order="name")).rows]

        with self.assertRoundTrips(2):  # the search with the tag names to count, then the list
            self.assertEqual(names("phone"), ["Smartphone X"])
        self.assertEqual(names("one"), ["Honey Stone", "Phonograph One", "Smartphone X"])
        self.assertEqual(names("spx-1"), ["Smartphone X"])
        self.assertEqual(names("ph"), ["Phonograph One", "Smartphone X"])  # one or two letters: anywhere
        self.assertEqual(names("phone ph"), ["Smartphone X"])
        self.assertEqual(names("phone zq"), [])

    def test_the_lists_search_is_set_algebra_of_pieces_and_the_vocabularys_words_no_name_read(self):
        def searched(q):
            with self.assertRoundTrips(2) as trace:
                rows = store.list_products(store.ProductQuery(q=q, order="name")).rows
            return [row.name for row in rows], [c.name for c in waves(trace)[0]]

        found, sent = searched("one sto")  # words of three characters: their pieces' sets, sized
        self.assertEqual(found, ["Honey Stone"])
        self.assertEqual(sorted(set(sent) - {"MULTI", "EXEC"}), ["HGET", "SCARD"])
        found, sent = searched("phone")  # "Phonograph One" holds its three pieces, but no word holding it
        self.assertEqual(found, ["Smartphone X"])
        self.assertEqual(sorted(set(sent) - {"MULTI", "EXEC"}), ["EVAL", "HGET"])  # the vocabulary's read alone
        found, _ = searched("phon ton")  # names hold each, none both
        self.assertEqual(found, [])
        found, _ = searched("stone hone")
        self.assertEqual(found, ["Honey Stone"])
        found, _ = searched("mart one")  # a word of four and one of three, intersected
        self.assertEqual(found, ["Smartphone X"])
        self.assertEqual(list(client().scan_iter(match=keys.temp("*", "*"))), [])

    def test_a_word_inside_too_many_words_searches_the_pieces_and_checks_names_instead(self):
        with mock.patch("config.store.ngrams.VOCABULARY_LIMIT", 0), self.assertRoundTrips(3) as trace:
            rows = store.list_products(store.ProductQuery(q="phone", order="name")).rows
        self.assertEqual([row.name for row in rows], ["Smartphone X"])  # "Phonograph One", a candidate, checked out
        asked, searched, _ = ([c.name for c in wave] for wave in waves(trace))
        self.assertIn("EVAL", asked)
        self.assertIn("EVAL", searched)  # the pieces intersected in name order, the names read (``_ORDERED``)
        self.assertEqual(list(client().scan_iter(match=keys.temp("*", "*"))), [])

    def test_a_word_of_three_letters_lists_its_pieces_set_itself_uncapped_with_an_exact_sku_beside(self):
        query = store.ProductQuery(q="one", order="name", live_counts=True)
        with mock.patch("catalog.store.prefetch.SEARCH_LIMIT", 1), self.assertRoundTrips(2) as trace:
            result = store.list_products(query)
        self.assertEqual([row.name for row in result.rows], ["Honey Stone", "Phonograph One", "Smartphone X"])
        self.assertEqual((result.total, result.search_capped), (3, False))  # every match: no cap to reach
        searched, listed = ([c.name for c in wave] for wave in waves(trace))
        self.assertIn("SCARD", searched)  # how many match, not who: the list reads the set
        self.assertNotIn("ZINTERSTORE", searched)
        self.assertNotIn("SADD", listed)
        pieces = {keys.ngram("one", p) for p in keys.partitions()}
        self.assertTrue(any(set(c.keys) & pieces for c in waves(trace)[1] if c.name == "ZINTERSTORE"))
        widget = make_product("Widget", type="appliance", attrs={}, sku="one")  # its SKU is the search's text
        with mock.patch("catalog.store.prefetch.SEARCH_LIMIT", 1), self.assertRoundTrips(2) as trace:
            result = store.list_products(query)
        self.assertEqual([row.id for row in result.rows][-1], widget)
        self.assertEqual((result.total, result.search_capped), (4, False))
        listed = [(c.name, c.keys) for c in waves(trace)[1]]
        self.assertTrue(any(name == "SINTERSTORE" and set(ks[1:]) & pieces for name, ks in listed))  # copied once
        self.assertIn("SADD", [name for name, _ in listed])  # and the SKU's product beside the piece's set
        self.assertEqual(list(client().scan_iter(match=keys.temp("*", "*"))), [])


class GrowthTest(RedisTestCase):
    """The search's work follows its rarest trigram, not the catalog: counted at two sizes."""

    sign_in = False

    def fill(self, count, start):
        items = [
            (Product(type="appliance", name=f"Honey Stone {start + n}", brand="", sku="", price=None), [])
            for n in range(count)
        ]
        store.write_batches(items, actor=TESTER, at=1000.0)

    def measure(self):
        with self.assertRoundTrips(1) as trace:
            found = store.suggest("phone", limit=8)
        smallest = min(len(holders(g)) for g in ("pho", "hon", "one"))
        (commands,) = waves(trace)
        sort = next(c for c in commands if c.name == "EVAL")
        return found, sorted(str(c) for c in commands if c.name != "UNLINK"), smallest, sort

    def test_ten_times_the_products_sharing_two_of_three_trigrams_cost_the_search_nothing_more(self):
        for n in range(3):
            make_product(f"Smartphone {n}", type="phone", attrs={})
        self.fill(100, 0)
        small = self.measure()
        self.fill(900, 100)
        self.assertEqual(len(holders("hon")), 1003)  # the common pieces grew tenfold
        large = self.measure()
        self.assertEqual(len(small[0]), 3)
        self.assertEqual(small[0], large[0])
        self.assertEqual(small[2], large[2], "the smallest set Redis walks stays the three phones")
        self.assertEqual(small[2], 3)
        self.assertEqual(
            [c for c in small[1] if "tmp" not in c], [c for c in large[1] if "tmp" not in c]
        )  # the same commands: nothing reads more as the catalog grows


class TrigramIntegrityTest(RedisTestCase):
    sign_in = False

    def test_a_planted_drift_is_caught_and_repaired(self):
        phone = make_product("Smartphone X", type="phone", attrs={})
        other = make_product("Honey Stone", type="appliance", attrs={})
        self.assertEqual(list(name_trigrams()), [])
        client().srem(keys.ngram("pho", part(phone)), str(phone))
        client().sadd(keys.ngram("zzz", part(other)), str(other))
        client().sadd(keys.ngram("abc", part(999)), "999")  # a product that does not exist
        found = messages()
        self.assertIn(f"product {phone}: its name's pieces ['pho'] do not list it", found)
        self.assertIn(f"product {other} is listed under ['zzz'], which its name does not hold", found)
        self.assertIn("product 999 is listed under ['abc'], which its name does not hold", found)
        repair()
        self.assertEqual(messages(), [])
        self.assertEqual(holders("pho"), {str(phone)})
        self.assertFalse(client().exists(keys.ngram("zzz", part(other)), keys.ngram("abc", part(999))))

    def test_renames_racing_leave_the_index_exact(self):
        ids = [make_product(f"Racer {n}", type="phone", attrs={}) for n in range(3)]
        words = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot"]
        conflicts = []
        lock = threading.Lock()

        def worker(seed):
            rng = random.Random(seed)
            for _ in range(15):
                product_id = rng.choice(ids)
                for _ in range(500):  # bounded: a test never spins forever
                    read = store.get(product_id)
                    changed = store.get(product_id)
                    changed.name = f"{rng.choice(words)} {rng.choice(words)} {seed}"
                    try:
                        store.update(product_id, changed, read.rev, actor=TESTER, current=read)
                        break
                    except EditConflict:
                        with lock:
                            conflicts.append(seed)

        run_concurrently(worker, [(n,) for n in range(8)])
        self.assertEqual(messages(), [])
        listed = {i: searched_text(store.get(i).name, store.get(i).sku) for i in ids}  # the name and the SKU
        for product_id in ids:
            for gram in all_grams(listed[product_id]):
                self.assertIn(str(product_id), holders(gram))
        held = {key.rsplit(":", 1)[1] for key in gram_keys()}
        self.assertEqual(held, set().union(*(all_grams(text) for text in listed.values())))
        self.assertEqual(vocabulary_words(), set().union(*(kept_words(text) for text in listed.values())))


def vocabulary_words(p=None):
    """The words the vocabulary holds (every partition's, or ``p``'s)."""
    held = set()
    for q in keys.partitions() if p is None else (p,):
        held |= {entry.split("\x00", 1)[1] for entry in client().zrange(keys.vocabulary(q), 0, -1)}
    return held


class VocabularyTest(RedisTestCase):
    """The names' words: each one's set of ids, and the vocabulary of their suffixes that finds them."""

    sign_in = False

    def test_a_product_script_keeps_its_words_and_a_word_no_name_holds_leaves_the_vocabulary(self):
        phone = store.new_product_id()
        product = Product(type="phone", name="Smartphone X2", brand="", sku="", price=None, tags=[], attrs={})
        with self.assertRoundTrips(1), self.assertCommands(1):  # still one script
            store.create(phone, product, actor=TESTER)
        self.assertEqual(client().smembers(keys.word("smartphone", part(phone))), {str(phone)})
        self.assertFalse(client().exists(keys.word("x2", part(phone))))  # shorter than four: its pieces do
        entries = client().zrange(keys.vocabulary(part(phone)), 0, -1)
        self.assertEqual(sorted(entries), sorted(f"{'smartphone'[i:]}\x00smartphone" for i in range(7)))
        twin = make_product("Smartphone Y", type="phone", attrs={}, sku="TW-1")  # an SKU with no word kept
        for renamed, name in ((phone, "Featurephone X2"), (twin, "Pocket Radio")):
            product = store.get(renamed)
            product.name = name
            store.update(renamed, product, product.rev, actor=TESTER)
            if renamed == phone:  # the twin still holds the word: it stays
                self.assertIn("smartphone", vocabulary_words())
        self.assertEqual(vocabulary_words(), {"featurephone", "pocket", "radio"})
        self.assertFalse(any(client().exists(keys.word("smartphone", p)) for p in keys.partitions()))
        self.assertEqual(messages(), [])
        for product_id in (phone, twin):
            store.delete(product_id, actor=TESTER)
        self.assertEqual(vocabulary_words(), set())
        self.assertEqual(list(client().scan_iter(match=keys.word("*", "*"))), [])

    def test_the_lists_search_finds_exactly_the_names_that_hold_the_query(self):
        """Against ``Query.matches`` over every name, for names nobody here wrote the words of: accents,
        ligatures, digits, ``ß``, punctuation; written in bulk and one by one."""
        rng = random.Random(23)
        letters = "abcdeilnorst1éßﬁ"

        def word():  # now and then longer than the vocabulary keeps
            return "".join(rng.choice(letters) for _ in range(rng.choice([rng.randint(1, 9), rng.randint(20, 30)])))

        names = [
            " ".join(word() for _ in range(rng.randint(1, 4))) + rng.choice(["", "-x", "_2", "!"]) for _ in range(160)
        ]
        items = [(Product(type="appliance", name=name, brand="", sku="", price=None), []) for name in names[:120]]
        ids = store.write_batches(items, actor=TESTER, at=1000.0)
        ids += [make_product(name, type="appliance", attrs={}) for name in names[120:]]
        by_id = dict(zip(map(str, ids), names))
        queries = {
            w[i : i + n] for name in names[:40] for w in words(name) for n in (3, 4, 6) for i in range(len(w) - n + 1)
        }
        queries = sorted(q for q in queries if len(q) >= 3)[:60]
        queries += [f"{a} {b}" for a, b in zip(queries[::7], queries[3::7])] + ["zzzz", "ssss", "FINE"]
        for text in queries:
            query = Query.parse(text)
            with self.subTest(q=text):
                listed = store.list_products(store.ProductQuery(q=text, order="name", limit=500))
                self.assertEqual(
                    {row.id for row in listed.rows},
                    {int(i) for i, name in by_id.items() if query.matches(name)},
                )
                self.assertFalse(listed.search_capped)
        self.assertEqual(messages(), [])

    def test_a_word_too_long_to_keep_lists_its_name_among_the_long_ones_which_a_search_checks(self):
        long_word = "Supercalifragilisticexpialidocious"  # 34 letters: 31 entries of up to 68 bytes, not kept
        phone = make_product("Smartphone X", type="phone", attrs={})
        with self.assertRoundTrips(2):  # no long names: the vocabulary alone
            self.assertEqual([r.id for r in store.list_products(store.ProductQuery(q="phone")).rows], [phone])
        odd = make_product(f"{long_word} Phone", type="appliance", attrs={}, sku="ODD-1")
        p = part(odd)
        self.assertEqual(client().smembers(keys.long_names(p)), {str(odd)})
        self.assertEqual(vocabulary_words(p), {"phone"} | ({"smartphone"} if part(phone) == p else set()))
        self.assertFalse(client().exists(keys.word(long_word.lower(), p)))
        with self.assertRoundTrips(3) as trace:  # the long names' pieces and names, one round trip more
            found = store.list_products(store.ProductQuery(q="fragilistic", order="name")).rows
        self.assertEqual([row.id for row in found], [odd])
        self.assertIn(keys.long_names(p), [k for c in waves(trace)[1] if c.name == "EVAL" for k in c.keys])
        both = store.list_products(store.ProductQuery(q="phone", order="name")).rows
        self.assertEqual([row.id for row in both], sorted([phone, odd], key=lambda i: store.get(i).name.lower()))
        self.assertEqual(store.list_products(store.ProductQuery(q="fragilistic smart")).rows, [])
        self.assertEqual(messages(), [])
        product = store.get(odd)
        product.name = "Plain Phone"
        store.update(odd, product, product.rev, actor=TESTER)
        self.assertFalse(client().exists(keys.long_names(p)))
        self.assertEqual(messages(), [])

    def test_a_planted_drift_of_words_or_vocabulary_is_caught_and_repaired(self):
        phone = make_product("Smartphone X", type="phone", attrs={})
        p = part(phone)
        odd = make_product("Supercalifragilisticexpialidocious", type="appliance", attrs={})
        client().srem(keys.long_names(part(odd)), str(odd))
        client().srem(keys.word("smartphone", p), str(phone))
        client().zrem(keys.vocabulary(p), "phone\x00smartphone")
        client().zadd(keys.vocabulary(p), {"stray\x00stray": 0})
        found = messages()
        self.assertIn(f"product {phone}: its name's pieces ['smartphone'] do not list it", found)
        self.assertIn(f"product {odd}: its name's pieces ['(a word too long to keep)'] do not list it", found)
        self.assertIn("the vocabulary lacks the words ['smartphone'] (1 in all), which names hold", found)
        self.assertIn("the vocabulary holds the words ['stray'] (1 in all), which no name holds", found)
        repair()
        self.assertEqual(messages(), [])
        self.assertEqual(vocabulary_words(), {"smartphone"})
        self.assertEqual(client().smembers(keys.long_names(part(odd))), {str(odd)})
        names = store.list_products(store.ProductQuery(q="phone")).rows
        self.assertEqual([row.id for row in names], [phone])


HTMX = {"HX-Request": "true"}  # what htmx sends with every request


class AutocompleteViewTest(RedisTestCase):
    def test_suggestions_are_one_round_trip_links_to_the_products_and_escaped(self):
        phone = make_product("Smartphone <X>", type="phone", attrs={})
        with self.assertRoundTrips(1):
            response = self.client.get("/catalog/products/suggest/?q=phone&listbox=id_q-listbox", headers=HTMX)
        self.assertContains(response, 'role="option"')
        self.assertContains(response, f'data-href="/catalog/products/{phone}/"')
        self.assertContains(response, "Smartphone &lt;X&gt;")
        self.assertNotContains(response, "<X>")
        self.assertContains(response, 'id="id_q-listbox-1"')

    def test_two_latin_letters_suggest_names_holding_them_anywhere_in_one_round_trip(self):
        phone = make_product("Smartphone X", type="phone", attrs={})
        make_product("Laptop Pro", type="laptop", attrs={})
        with self.assertRoundTrips(1):
            response = self.client.get("/catalog/products/suggest/?q=Ph", headers=HTMX)
        self.assertContains(response, f'data-href="/catalog/products/{phone}/"')
        self.assertNotContains(response, "Laptop Pro")
        self.assertNotContains(response, "letters or more")

    def test_a_field_of_another_name_is_read_by_the_name_htmx_gives(self):
        make_product("Smartphone X", type="phone", attrs={})
        named = {**HTMX, "HX-Trigger-Name": "manager"}
        response = self.client.get("/catalog/products/suggest/?manager=phone", headers=named)
        self.assertContains(response, "Smartphone X")

    def test_short_text_asks_for_more_without_reading_and_nothing_found_says_so(self):
        with self.assertRoundTrips(0):
            response = self.client.get("/catalog/products/suggest/?q=p", headers=HTMX)
        self.assertContains(response, "Type 2 letters or more")
        response = self.client.get("/catalog/products/suggest/?q=nothing", headers=HTMX)
        self.assertContains(response, "Nothing matches “nothing”")

    def test_the_list_search_box_is_a_combobox_fed_by_the_suggestions(self):
        response = self.client.get("/catalog/products/")
        self.assertContains(response, 'role="combobox"')
        self.assertContains(response, 'hx-get="/catalog/products/suggest/"')
        self.assertContains(response, "delay:250ms")
        self.assertContains(response, "js/autocomplete.js")
        self.assertNotContains(response, "<script>")  # no inline script

    def test_signed_out_is_sent_to_sign_in(self):
        self.client.logout()
        response = self.client.get("/catalog/products/suggest/?q=phone", headers=HTMX)
        self.assertEqual(response.status_code, 302)
        self.assertTrue(response["Location"].startswith("/accounts/login/"))

    def test_opened_in_the_browser_it_is_the_list_searched_for_the_text(self):
        """The key browser links the screens that read a key, this fragment's view among them."""
        make_product("Smartphone X", type="phone", attrs={})
        response = self.client.get("/catalog/products/suggest/?q=phone x", follow=True)
        self.assertEqual(response.redirect_chain, [("/catalog/products/?q=phone+x", 302)])
        self.assertContains(response, "<title>")
        self.assertContains(response, "Smartphone X")
        self.assertRedirects(self.client.get("/catalog/products/suggest/"), "/catalog/products/")


class LiveCountTest(RedisTestCase):
    def test_type_and_tag_counts_follow_the_filter_and_chosen_chips_are_marked(self):
        make_product("Quiet Buds", tags=["wireless", "noise-cancelling"])
        make_product("Loud Buds", tags=["wireless"])
        make_product("Box", type="game_console", tags=["wireless", "retro"])
        response = self.client.get("/catalog/products/")
        self.assertContains(response, 'data-tag="wireless">wireless · 3</a>', html=False)
        response = self.client.get("/catalog/products/?tags_all=wireless&type=earbuds")
        body = response.content.decode()
        self.assertIn('data-tag="noise-cancelling">noise-cancelling · 1</a>', body)
        self.assertIn('data-tag="wireless" aria-current="true"', body)
        self.assertIn("wireless · 2</a>", body)
        self.assertNotIn('data-tag="retro"', body)  # none of the filtered list carries it
        self.assertIn('data-type="earbuds" aria-current="true">earbuds · 2</a>', body)
        chosen = response.context["result"].tag_cloud
        self.assertEqual(chosen, [("wireless", 2), ("noise-cancelling", 1)])


class SaveAndTest(RedisTestCase):
    def test_save_and_add_another_opens_a_new_form_of_the_same_type(self):
        response = self.client.post("/catalog/products/add/?type=earbuds", {**EARBUDS_POST, "_addanother": "1"})
        self.assertRedirects(response, "/catalog/products/add/?type=earbuds", fetch_redirect_response=False)
        response = self.client.get(response["Location"])
        self.assertContains(response, "Added earbuds “Sonique Air 2”. You may add another below.")
        self.assertContains(response, "Save and continue editing")

    def test_save_and_continue_editing_comes_back_to_the_edit_form(self):
        response = self.client.post("/catalog/products/add/?type=earbuds", {**EARBUDS_POST, "_continue": "1"})
        product_id = store.sku_owner(EARBUDS_POST["sku"])  # its id came from the process's block
        self.assertRedirects(response, f"/catalog/products/{product_id}/edit/", fetch_redirect_response=False)
        edit = {**EARBUDS_POST, "name": "Sonique Air 3", "version": "1", "_continue": "1"}
        response = self.client.post(f"/catalog/products/{product_id}/edit/", edit, follow=True)
        self.assertContains(response, "Saved “Sonique Air 3”. You may edit it again below.")
        self.assertEqual(response.redirect_chain[-1][0], f"/catalog/products/{product_id}/edit/")


@tag("cluster")
class BulkDeleteTest(RedisTestCase):
    def setUp(self):
        super().setUp()
        self.a = make_product("Alpha Buds", tags=["wireless"])
        self.b = make_product("Beta <Buds>")
        self.c = make_product("Gamma Buds")
        review(self.a, 5)

    def test_ticked_rows_are_listed_and_nothing_is_deleted_until_confirmed(self):
        response = self.client.post("/catalog/products/delete/", {"ids": [self.a, self.b, "x", self.a, 12345]})
        self.assertContains(response, "Delete 2 products?")
        self.assertContains(response, "Beta &lt;Buds&gt;")
        self.assertContains(response, "1 of the selected products no longer exists")
        self.assertContains(response, f'<input type="hidden" name="ids" value="{self.a}">', html=True)
        self.assertTrue(client().exists(keys.product(self.a), keys.product(self.b)) == 2)

    def test_confirming_deletes_them_in_one_script_a_partition_and_names_them(self):
        scripts = len({part(self.a), part(self.b)})  # one a partition: all its products go together
        with self.assertRoundTrips(1 + scripts + SKU_TRIP):  # every hash and review ids, the scripts (the releases)
            response = self.client.post("/catalog/products/delete/", {"ids": [self.a, self.b], "confirm": "yes"})
        response = self.client.get(response["Location"])
        self.assertContains(response, "Deleted 2 products with their reviews: “Alpha Buds”, “Beta &lt;Buds&gt;”.")
        self.assertFalse(client().exists(keys.product(self.a), keys.product(self.b)))
        self.assertTrue(client().exists(keys.product(self.c)))
        self.assertEqual(holders("alp"), set())
        self.assertEqual(messages(), [])
        self.assertEqual(client().zcard(keys.product_reviews(self.a)), 0)

    def test_an_edit_between_the_read_and_the_script_makes_the_batch_read_again(self):
        real, calls = Batch.run, []

        def edit_first(batch):  # an edit lands once, after the products were read
            calls.append(1)
            if len(calls) == 1:
                product = store.get(self.c)
                product.name = "Gamma Buds II"
                store.update(self.c, product, product.rev, actor=TESTER)
            return real(batch)

        with mock.patch.object(Batch, "run", edit_first):
            deleted, gone = store.delete_many([self.b, self.c], actor=TESTER)
        self.assertEqual(sorted(p.id for p in deleted), sorted([self.b, self.c]))
        self.assertEqual(gone, 0)
        self.assertGreaterEqual(len(calls), 3)  # the edit's own script, the refused batch, the batch again
        self.assertFalse(client().exists(keys.product(self.b), keys.product(self.c)))
        self.assertEqual(messages(), [])

    def test_nothing_ticked_says_so_and_a_get_is_refused(self):
        response = self.client.post("/catalog/products/delete/", {}, follow=True)
        self.assertContains(response, "Tick the products to delete first; nothing was deleted.")
        self.assertRedirects(self.client.get("/catalog/products/delete/"), "/catalog/products/")  # deletes nothing

    def test_the_list_offers_a_checkbox_per_row_in_a_post_form(self):
        response = self.client.get("/catalog/products/")
        self.assertContains(response, f'name="ids" value="{self.a}"')
        self.assertContains(response, 'action="/catalog/products/delete/"')
        self.assertContains(response, "csrfmiddlewaretoken")


class CatalogWideCountTest(RedisTestCase):
    sign_in = False

    def test_a_caller_that_does_not_ask_for_live_counts_keeps_one_command_and_catalog_counts(self):
        make_product("Quiet Buds", tags=["wireless"])
        make_product("Box", type="game_console", tags=["wireless", "retro"])
        store.list_products(store.ProductQuery())
        # one EVALSHA: page, total and chips (with several partitions, one script each, sent together)
        with self.assertRoundTrips(1), self.assertCommands(keys.PARTITIONS) as trace:
            result = store.list_products(store.ProductQuery(type="earbuds"))
        self.assertEqual(trace.round_trips[0].commands[0].name, "EVALSHA")
        self.assertEqual(result.type_counts["game_console"], 1)
        self.assertEqual(dict(result.tag_cloud), {"wireless": 2, "retro": 1})
        live = store.list_products(store.ProductQuery(type="earbuds", live_counts=True))
        self.assertEqual((live.type_counts["game_console"], dict(live.tag_cloud)), (0, {"wireless": 1}))
