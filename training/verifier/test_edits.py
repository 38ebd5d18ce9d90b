"""Tests of edits.py's one-fact edits on hand-written sentences, and of contrast.py's range
guard. Run from this folder: python3 -m unittest"""

from __future__ import annotations

import random
import unittest

import contrast
import edits


def rng(tag: str = "test") -> random.Random:
    return random.Random(tag)


class EditShape(unittest.TestCase):
    def assert_edit(self, sentence: str, change: edits.Edit | None, old: str, new: str) -> edits.Edit:
        self.assertIsNotNone(change, f"no edit of {sentence!r}")
        assert change is not None
        self.assertEqual((change.old, change.new), (old, new))
        start, end = change.old_span
        self.assertEqual(sentence[start:end], old)
        start, end = change.new_span
        self.assertEqual(change.text[start:end], new)
        self.assertEqual(change.text, sentence[: change.old_span[0]] + new + sentence[change.old_span[1] :])
        return change


class Numbers(EditShape):
    def test_keeps_separators_decimals_units_and_ordinals(self):
        for sentence, old in [
            ("The fund raised £1,250,000 last year.", "1,250,000"),
            ("Prices rose 12.5% in March.", "12.5"),
            ("She ran 42km through the desert.", "42"),
            ("He finished 21st in the race.", "21st"),
        ]:
            change = edits.edit_number(sentence, rng(sentence))
            self.assertIsNotNone(change, sentence)
            self.assertEqual(change.old, old)
            self.assertNotEqual(change.new, old)
            if "," in old:
                self.assertRegex(change.new, r"^\d{1,3}(,\d{3})+$")
            if "." in old:
                self.assertRegex(change.new, r"^\d+\.\d$")
            if old.endswith("st"):
                self.assertRegex(change.new, r"^\d+(st|nd|rd|th)$")
                number = int(change.new[:-2])
                suffix = "th" if number % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
                self.assertTrue(change.new.endswith(suffix), change.new)
            self.assertIn(change.new, change.text)

    def test_small_counts_shift_and_words_change_when_there_are_no_digits(self):
        change = edits.edit_number("Three men were arrested.", rng())
        self.assertIsNotNone(change)
        self.assertIn(change.new, ["Four", "Five", "Six", "Two"])
        self.assertTrue(change.text.endswith("men were arrested."))

    def test_leaves_years_dates_codes_and_names_alone(self):
        for sentence in [
            "The law was passed in 2014.",
            "The G20 summit met on March 3.",
            "COVID-19 cases were reported.",
            "Apollo 11 landed on the Moon.",
        ]:
            self.assertIsNone(edits.edit_number(sentence, rng()), sentence)

    def test_avoids_values_the_article_holds(self):
        sentence = "Police arrested 5 men."
        article = "Police arrested 5 men. Earlier 6 and 7 and 8 and 3 and 4 people fled."
        change = edits.edit_number(sentence, rng(), article)
        self.assertIsNone(change)

    def test_is_deterministic(self):
        sentence = "The company employs 3,400 people in 12 countries."
        self.assertEqual(edits.edit_number(sentence, rng("a")), edits.edit_number(sentence, rng("a")))


class Years(EditShape):
    def test_shifts_a_year_and_not_a_range(self):
        change = edits.edit_year("The bridge opened in 1932 after years of work.", rng())
        self.assertIsNotNone(change)
        self.assertEqual(change.old, "1932")
        self.assertRegex(change.new, r"^19[23]\d$")
        self.assertIsNone(edits.edit_year("It ran in the 2000-01 season.", rng()))

    def test_changes_the_day_of_a_date_or_a_weekday(self):
        change = edits.edit_year("He was arrested on March 14 in Leeds.", rng())
        self.assertIsNotNone(change)
        self.assertEqual(change.old, "14")
        self.assertIn("March ", change.text)
        change = edits.edit_year("The team flew home on Tuesday.", rng())
        self.assertIsNotNone(change)
        self.assertEqual(change.old, "Tuesday")
        self.assertIn(change.new, edits.WEEKDAYS)

    def test_may_is_a_month_only_as_a_date(self):
        self.assertIsNone(edits.edit_year("She may leave the club.", rng()))
        change = edits.edit_year("The vote is due in May.", rng())
        self.assertIsNotNone(change)
        self.assertEqual(change.old, "May")


ARTICLE = (
    "Chelsea manager Jose Mourinho praised his players. Mr Mourinho said Eden Hazard was the "
    "best player in England. The game was played at Stamford Bridge in London. Later, John "
    "Terry, 34, told reporters he was proud. Arsenal manager Arsene Wenger said his team "
    "would recover. Wenger, 65, has led Arsenal since 1996."
)


class Names(EditShape):
    def test_name_same_takes_another_person_of_the_article(self):
        sentence = "Jose Mourinho praised the team after the game."
        change = edits.edit_name_same(sentence, rng(), ARTICLE)
        self.assertIsNotNone(change)
        self.assertEqual(change.old, "Jose Mourinho")
        self.assertIn(change.new, ARTICLE)
        self.assertEqual(len(change.new.split()), 2)
        self.assertNotIn("Mourinho", change.new)

    def test_name_same_keeps_places_for_places(self):
        sentence = "The match was played in London."
        change = edits.edit_name_same(sentence, rng(), "Fans gathered in Manchester. " + ARTICLE)
        self.assertIsNotNone(change)
        self.assertEqual((change.old, change.new), ("London", "Manchester"))

    def test_name_other_takes_a_name_the_article_never_mentions(self):
        sentence = "Jose Mourinho praised the team after the game."
        other = "Mr David Cameron, 48, said the vote was close. Nicola Sturgeon disagreed."
        change = edits.edit_name_other(sentence, rng(), [other], ARTICLE)
        self.assertIsNotNone(change)
        self.assertIn(change.new, ("David Cameron", "Nicola Sturgeon"))
        self.assertNotIn(change.new, ARTICLE)

    def test_titles_months_and_peoples_are_not_names(self):
        found = [name.text for name in edits.names("Mr Smith met British officials in June in Paris.", "")]
        self.assertEqual(found, ["Smith", "Paris"])
        kinds = {name.text: name.shape[1] for name in edits.names("Mr Smith met officials in Paris.", "")}
        self.assertEqual(kinds, {"Smith": "person", "Paris": "place"})

    def test_no_name_no_edit(self):
        self.assertIsNone(edits.edit_name_same("the game ended late.", rng(), ARTICLE))


class Negation(EditShape):
    def test_adds_not_after_the_auxiliary(self):
        cases = [
            ("The suspect was arrested on Monday.", "was", "was not"),
            ("Four jets have been sold.", "have", "have not"),
            ("She can swim a mile.", "can", "cannot"),
            ("He has two children.", "has", "does not have"),
            ("They had a dog.", "had", "did not have"),
            ("The device will be sold next year.", "will", "will not"),
        ]
        for sentence, old, new in cases:
            self.assert_edit(sentence, edits.edit_negation(sentence), old, new)

    def test_past_tense_becomes_did_not_only_with_a_known_base(self):
        self.assert_edit(
            "Rone Odendaal, 24, took pictures of two lions.",
            edits.edit_negation("Rone Odendaal, 24, took pictures of two lions."),
            "took",
            "did not take",
        )
        self.assert_edit("He wanted a refund.", edits.edit_negation("He wanted a refund."), "wanted", "did not want")
        self.assert_edit("They stopped the car.", edits.edit_negation("They stopped the car."), "stopped", "did not stop")
        # "created" would need its final -e back; "a man arrested in Leeds" is no main verb.
        self.assertIsNone(edits.edit_negation("She created a charity."))
        self.assertIsNone(edits.edit_negation("A man arrested in Leeds."))

    def test_takes_negations_out(self):
        cases = [
            ("He was not arrested.", "was not", "was"),
            ("The club isn't for sale.", "isn't", "is"),
            ("She cannot swim.", "cannot", "can"),
            ("They won't return.", "won't", "will"),
            ("They didn't take the bus.", "didn't take", "took"),
            ("She never went to Paris.", "never went", "went"),
            ("He pleaded not guilty to murder.", "not guilty", "guilty"),
        ]
        for sentence, old, new in cases:
            self.assert_edit(sentence, edits.edit_negation(sentence), old, new)


class Antonyms(EditShape):
    def test_swaps_closed_set_words_keeping_case(self):
        cases = [
            ("Shares rose sharply on Monday.", "rose", "fell"),
            ("The team won the final.", "won", "lost"),
            ("The fire spread to the eastern side.", "eastern", "western"),
            ("First prize went to a student.", "First", "Last"),
            ("He left after the meeting.", "after", "before"),
        ]
        for sentence, old, new in cases:
            self.assert_edit(sentence, edits.edit_antonym(sentence, rng()), old, new)

    def test_leaves_names_and_idioms(self):
        for sentence in [
            "He moved to South Africa.",
            "They met last week.",
            "I had never seen it before.",
            "He was shot dead.",
        ]:
            self.assertIsNone(edits.edit_antonym(sentence, rng()), sentence)


class Roles(EditShape):
    ARTICLE = "Mr Paul Walker, 24, was attacked. Police said Kyle Major, 19, was arrested."

    def test_swaps_the_names_around_the_verb(self):
        sentence = "Kyle Major killed Paul Walker with a single punch."
        change = self.assert_edit(
            sentence, edits.edit_role(sentence, rng(), self.ARTICLE), "Kyle Major killed Paul Walker", "Paul Walker killed Kyle Major"
        )
        self.assertEqual(change.text, "Paul Walker killed Kyle Major with a single punch.")

    def test_needs_exactly_two_people_around_a_verb(self):
        for sentence in [
            "Kyle Major and Paul Walker were friends.",  # no verb between them
            "Kyle Major met Paul Walker and Jane Doe in Leeds.",  # more than two names
            "Kyle Major moved to Leeds.",  # one name
            "Kyle Major visited the Paul Walker foundation.",  # a modifier, not an object
        ]:
            self.assertIsNone(edits.edit_role(sentence, rng(), self.ARTICLE), sentence)


class Dispatch(unittest.TestCase):
    def test_every_kind_is_dispatched_and_unknown_kinds_refused(self):
        sentence = "Kyle Major, 19, beat Paul Walker in 2014 and won 3,000 pounds."
        for kind in edits.KINDS:
            article = Roles.ARTICLE + " Mrs Jane Doe, 30, watched."
            change = edits.edit(kind, sentence, rng(kind), article, ["Mr Tom Hardy, 37, said so."])
            self.assertIsNotNone(change, kind)
            self.assertNotEqual(change.text, sentence, kind)
        with self.assertRaises(ValueError):
            edits.edit("colour", sentence, rng())


class Helpers(unittest.TestCase):
    def test_sentences_and_best_sentences(self):
        text = "Okra is a plant.It grows in the tropics. Cotton is a mallow too."
        parts = edits.sentences(text)
        self.assertEqual(parts, ["Okra is a plant.", "It grows in the tropics.", "Cotton is a mallow too."])
        self.assertEqual(edits.best_sentences("okra plant", parts, 1), ["Okra is a plant."])

    def test_contrast_refuses_other_ranges_and_keeps_supported_sentences(self):
        with self.assertRaises(SystemExit):
            contrast.build(None, "train", 10, 13, 0.8)
        kept = contrast.supported_sentences(
            "Okra grows in tropical regions. Bananas are yellow.",
            "Okra is a plant grown in tropical regions of the world.",
            0.8,
        )
        self.assertEqual(kept, [])
        kept = contrast.supported_sentences(
            "Okra pods are grown in tropical regions worldwide.",
            "Okra pods are grown in tropical regions worldwide, farmers say.",
            0.8,
        )
        self.assertEqual(kept, ["Okra pods are grown in tropical regions worldwide."])


if __name__ == "__main__":
    unittest.main()
