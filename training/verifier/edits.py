"""One-fact edits of an English sentence, for Factdesk's verifier data and its contrast benchmark.

Each edit function takes a sentence and a `random.Random` (the only source of choice, so a
seeded generator gives the same edit every time) and returns an `Edit` — the edited sentence,
the words taken out and put in, and where they stand — or None when the sentence offers
nothing that edit can change correctly. The kinds (`KINDS`, dispatched by `edit`):

- number: a number or quantity scaled or shifted by a plausible amount, written the way the
  original was (thousands separators, decimals, ordinal suffix; the unit around it kept);
  a small number word ("three") when the sentence has no digits;
- year: a year (or decade) shifted; else the day of a date, else a month or weekday replaced;
- name-same: a capitalised name replaced by another name of the same article, of the same
  shape where there is one (as many words; a place for a place);
- name-other: a name replaced by a name from other articles (one the article never mentions);
- negation: "not" / "n't" / "never" taken out, or "not" put after the main verb's auxiliary
  (is, was, are, were, has, had, have, will, can, could, would, should, did); a past-tense
  verb with no auxiliary becomes "did not <base form>" only where the base form is known
  (a table of irregular verbs and unambiguous regular endings), otherwise nothing is done;
- antonym: one word of a closed set swapped for its opposite (rose/fell, won/lost,
  before/after, first/last, north/south, eastern/western, …);
- role: the two names around a verb swapped ("A beat B" -> "B beat A"), only when the
  sentence has exactly two names, one before and one after a verb.

The module also holds the helpers that the training data (data.py) and the contrast sets
(contrast.py) share: a sentence splitter, content words, the article sentences that best
match a claim, and `perturb`, data.py's own mix of number, name and negation edits for its
`summary-perturbed` kind (kept as it was, so data.py writes the same examples for a seed).

Standard library only.
"""

from __future__ import annotations

import random
import re
from typing import NamedTuple

# ---------------------------------------------------------------------------------------------
# Helpers shared with data.py and contrast.py

STOPWORDS = frozenset(
    """a an and are as at be been but by for from had has have he her his i in into is it its
    of on or our she that the their them they this to was were what when where which who whom
    why will with would you your not no than then there these those do does did so if about
    after before also more most other some such only over under up down out very can could
    said says say""".split()
)


def sentences(text: str) -> list[str]:
    """A plain sentence splitter (also splits 'century.First', a quirk of HaluEval's passages)."""
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"(?<=[a-z0-9)][.!?])(?=[A-Z])", " ", text)
    parts = re.split(r"(?<=[.!?])[\"')\]]?\s+(?=[\"'(\[]?[A-Z0-9])", text)
    return [part.strip() for part in parts if len(part.strip()) > 1]


def words(text: str) -> set[str]:
    """The distinct content words of `text`, lower case, function words left out."""
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOPWORDS}


def best_sentences(claim: str, candidates: list[str], count: int) -> list[str]:
    """The `count` candidates sharing most content words with the claim, best first."""
    target = words(claim)
    ranked = sorted(
        range(len(candidates)),
        key=lambda i: (-len(target & words(candidates[i])), i),
    )
    return [candidates[i] for i in ranked[:count]]


# ---------------------------------------------------------------------------------------------
# data.py's summary-perturbed edits, unchanged (its output for a seed depends on them)

NEGATABLE = [
    (r"\bis\b", "is not"),
    (r"\bwas\b", "was not"),
    (r"\bare\b", "are not"),
    (r"\bwere\b", "were not"),
    (r"\bhas\b", "has not"),
    (r"\bhave\b", "have not"),
    (r"\bwill\b", "will not"),
    (r"\bcan\b", "cannot"),
    (r"\bdid\b", "did not"),
]
NUMBER = re.compile(r"\b\d[\d,.]*\b")
NAME = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*\b")


def perturb(sentence: str, article: str, rng: random.Random) -> tuple[str, str, str, str] | None:
    """The sentence with one fact changed, with the words taken out, the words put in and the
    kind of change ("number", "name" or "negation"); None when nothing could be changed.
    data.py's training edits; the benchmark's finer edits are the functions below."""
    options = []
    numbers = NUMBER.findall(sentence)
    if numbers:
        options.append("number")
    names = [n for n in NAME.findall(sentence) if sentence.find(n) > 0]
    others = sorted({n for n in NAME.findall(article) if n not in sentence and len(n) > 3})
    if names and others:
        options.append("name")
    if any(re.search(pattern, sentence) for pattern, _ in NEGATABLE):
        options.append("negation")
    if not options:
        return None
    kind = rng.choice(options)
    if kind == "number":
        old = rng.choice(numbers)
        digits = old.replace(",", "")
        try:
            value = float(digits)
        except ValueError:
            return None
        factor = rng.choice([2, 3, 0.5, 10])
        new_value = value * factor if value else rng.randint(2, 9)
        new = str(int(new_value)) if new_value == int(new_value) else f"{new_value:.1f}"
        if new == digits:
            return None
        return sentence.replace(old, new, 1), old, new, kind
    if kind == "name":
        old = rng.choice(names)
        new = rng.choice(others)
        return sentence.replace(old, new, 1), old, new, kind
    pattern, replacement = rng.choice([(p, r) for p, r in NEGATABLE if re.search(p, sentence)])
    old = re.search(pattern, sentence).group(0)
    return re.sub(pattern, replacement, sentence, count=1), old, replacement, kind


# ---------------------------------------------------------------------------------------------
# One-fact edits


class Edit(NamedTuple):
    """An edited sentence: `old` (at `old_span` of the original) became `new` (at `new_span`
    of `text`). Spans are [start, end) character offsets."""

    text: str
    old: str
    new: str
    old_span: tuple[int, int]
    new_span: tuple[int, int]


KINDS = ("number", "year", "name-same", "name-other", "negation", "antonym", "role")


def _replace(sentence: str, start: int, end: int, new: str) -> Edit:
    return Edit(
        sentence[:start] + new + sentence[end:],
        sentence[start:end],
        new,
        (start, end),
        (start, start + len(new)),
    )


def _in_text(token: str, text: str) -> bool:
    """Whether `token` stands in `text` as a whole token (not inside a longer number/word)."""
    return re.search(r"(?<![\w.,])" + re.escape(token) + r"(?![\w]|[.,]\d)", text) is not None


def _match_case(word: str, model: str) -> str:
    if model.isupper() and len(model) > 1:
        return word.upper()
    if model[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


# --- numbers ---------------------------------------------------------------------------------

# Letters that may follow a number directly and stay with it (units, multipliers, ordinals).
UNIT_SUFFIXES = frozenset(
    """st nd rd th km m cm mm ft in kg g mg lb lbs oz mph kph kmh ml l bn mn k pm am yr yrs
    mb gb tb kb hz kw mw gw t""".split()
)
ORDINAL_SUFFIXES = ("st", "nd", "rd", "th")
NUMBER_WORDS = (
    "two three four five six seven eight nine ten eleven twelve".split()
)
_NUMBER_TOKEN = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _is_year(digits: str, before: str, after_letters: str) -> bool:
    return (
        len(digits) == 4
        and digits.isdigit()
        and 1800 <= int(digits) <= 2099
        and not before.endswith(("$", "£", "€", "#"))
        and after_letters in ("", "s")
    )


def _numbers(sentence: str) -> list[tuple[int, int, str]]:
    """(start, end, suffix) of each number in the sentence that is a quantity: not a year nor
    a date's day (the year edit's), not part of a code or a name such as 'G20', 'COVID-19' or
    'Apollo 11', not a clock time; `suffix` is an ordinal suffix standing right after it,
    which the edit rewrites."""
    days = {m.start(1) for m in _DAY_MONTH.finditer(sentence)}
    days |= {m.start(1) for m in _MONTH_DAY.finditer(sentence)}
    out = []
    for match in _NUMBER_TOKEN.finditer(sentence):
        if match.start() in days or re.search(r"[A-Z][a-z]* $", sentence[: match.start()]):
            continue
        start, end = match.span()
        token = match.group(0)
        token = token.rstrip(",")
        end = start + len(token)
        before = sentence[max(0, start - 2) : start]
        after = sentence[end:]
        if before[-1:].isalpha() or before[-1:] in (".", ":", "/", "#"):
            continue
        if before[-1:] == "-" and before[:1].isalpha():
            continue
        if re.match(r"[.:/]\d", after):
            continue
        if "," in token and not re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", token):
            continue
        letters = re.match(r"[A-Za-z]*", after).group(0)
        if letters and letters.lower() not in UNIT_SUFFIXES:
            continue
        if _is_year(token, before, letters.lower()):
            continue
        suffix = letters if letters.lower() in ORDINAL_SUFFIXES else ""
        if suffix and "." in token:
            continue
        out.append((start, end, suffix))
    return out


def _ordinal(value: int) -> str:
    if value % 100 in (11, 12, 13):
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(value % 10, "th")


def _format_number(value: float, decimals: int, commas: bool) -> str:
    if decimals:
        text = f"{value:,.{decimals}f}" if commas else f"{value:.{decimals}f}"
    else:
        text = f"{int(round(value)):,}" if commas else str(int(round(value)))
    return text


def _number_candidates(token: str, rng: random.Random) -> list[str]:
    """Other values for the number `token`, in the order the edit tries them."""
    plain = token.replace(",", "")
    decimals = len(plain.split(".")[1]) if "." in plain else 0
    value = float(plain)
    commas = "," in token
    out: list[str] = []
    if decimals:
        factors = [0.5, 0.75, 1.5, 2, 3]
        rng.shuffle(factors)
        for factor in factors:
            new = value * factor
            text = _format_number(new, decimals, commas)
            if float(text.replace(",", "")) > 0:
                out.append(text)
    elif value <= 10:
        shifts = [1, 2, 3, -1, -2]
        rng.shuffle(shifts)
        for shift in shifts:
            new = value + shift
            if new >= 1 or (value == 0 and new > 0):
                out.append(_format_number(new, 0, commas))
    else:
        trailing = len(plain) - len(plain.rstrip("0"))
        step = 10 ** min(trailing, max(len(plain) - 1, 0))
        factors = [0.5, 0.6, 0.75, 1.25, 1.5, 2, 3]
        rng.shuffle(factors)
        for factor in factors:
            new = round(value * factor / step) * step
            if new <= 0:
                continue
            # A number under 1,000 written without separators gets them when it grows past.
            out.append(_format_number(new, 0, commas or (value < 1000 <= new)))
    return [text for text in dict.fromkeys(out) if text.replace(",", "") != plain]


def edit_number(sentence: str, rng: random.Random, article: str = "") -> Edit | None:
    """A number of the sentence scaled or shifted, in its own format; the new value is one the
    article does not hold, when an article is given."""
    found = _numbers(sentence)
    if found:
        order = list(found)
        rng.shuffle(order)
        for start, end, suffix in order:
            token = sentence[start:end]
            for new in _number_candidates(token, rng):
                if suffix:
                    new_full = new + _ordinal(int(new.replace(",", "")))
                    old_end = end + len(suffix)
                else:
                    new_full, old_end = new, end
                if article and _in_text(new, article):
                    continue
                return _replace(sentence, start, old_end, new_full)
        return None
    spelled = [
        m for m in re.finditer(r"\b(" + "|".join(NUMBER_WORDS) + r")\b", sentence, re.IGNORECASE)
    ]
    if not spelled:
        return None
    match = rng.choice(spelled)
    index = NUMBER_WORDS.index(match.group(0).lower())
    choices = [i for i in range(len(NUMBER_WORDS)) if 0 < abs(i - index) <= 3]
    rng.shuffle(choices)
    for choice in choices:
        new = _match_case(NUMBER_WORDS[choice], match.group(0))
        if article and re.search(r"\b" + new + r"\b", article, re.IGNORECASE):
            continue
        return _replace(sentence, match.start(), match.end(), new)
    return None


# --- years and dates -------------------------------------------------------------------------

MONTHS = (
    "January February March April May June July August September October November December"
).split()
WEEKDAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
_MONTH = "|".join(MONTHS)
# A year, not one end of a range ("2000-01", "2014/15").
_YEAR = re.compile(r"(?<![\w$£€#.,])(?<!\d[-–/])(1[89]\d\d|20\d\d)(s?)(?![\w]|[.,/]\d|[-–]\d)")
_DAY_MONTH = re.compile(r"\b(\d{1,2})(st|nd|rd|th)?(?= (?:of )?(?:" + _MONTH + r")\b)")
_MONTH_DAY = re.compile(r"\b(?:" + _MONTH + r")\s+(\d{1,2})(st|nd|rd|th)?\b(?![.:,]\d)")


def _month_spans(sentence: str) -> list[tuple[int, int]]:
    """Month names used as months ("May" only next to a number or after in/of/since/until/by
    /last/next/early/late/mid)."""
    out = []
    for match in re.finditer(r"\b(" + _MONTH + r")\b", sentence):
        if match.group(0) == "May":
            before = sentence[: match.start()].split()[-1:] or [""]
            after = sentence[match.end() :]
            if not (
                re.match(r",? \d", after)
                or before[0].lower().strip("-")
                in ("in", "of", "since", "until", "by", "last", "next", "early", "late", "mid", "and")
            ):
                continue
        out.append(match.span())
    return out


def edit_year(sentence: str, rng: random.Random, article: str = "") -> Edit | None:
    """A year (or decade) shifted by a few years; without one, the day of a date, else a month,
    else a weekday changed. Avoids values the article holds, when given."""
    years = list(_YEAR.finditer(sentence))
    if years:
        match = rng.choice(years)
        year, decade = int(match.group(1)), match.group(2)
        shifts = [10, 20, -10, -20] if decade else [1, 2, 3, -1, -2, -3]
        rng.shuffle(shifts)
        for shift in shifts:
            new = str(year + shift) + decade
            if int(new[:4]) > 2099 or (article and _in_text(new, article)):
                continue
            return _replace(sentence, match.start(), match.end(), new)
        return None
    days = list(_DAY_MONTH.finditer(sentence)) + list(_MONTH_DAY.finditer(sentence))
    if days:
        match = rng.choice(days)
        day = int(match.group(1))
        if 1 <= day <= 31:
            shifts = [s for s in (1, 2, 3, 5, 7, 10, -1, -2, -3, -5, -7, -10) if 1 <= day + s <= 28]
            new_day = day + rng.choice(shifts)
            new = str(new_day) + (_ordinal(new_day) if match.group(2) else "")
            end = match.end(2) if match.group(2) else match.end(1)
            return _replace(sentence, match.start(1), end, new)
    months = _month_spans(sentence)
    if months:
        start, end = rng.choice(months)
        old = sentence[start:end]
        others = [m for m in MONTHS if m != old and m != "May"]
        rng.shuffle(others)
        for new in others:
            if article and re.search(r"\b" + new + r"\b", article):
                continue
            return _replace(sentence, start, end, new)
        return None
    weekdays = list(re.finditer(r"\b(" + "|".join(WEEKDAYS) + r")\b", sentence))
    if weekdays:
        match = rng.choice(weekdays)
        others = [d for d in WEEKDAYS if d != match.group(0)]
        rng.shuffle(others)
        for new in others:
            if article and re.search(r"\b" + new + r"\b", article):
                continue
            return _replace(sentence, match.start(), match.end(), new)
    return None


# --- names -----------------------------------------------------------------------------------

# Titles and roles written before a name: the name after one is a person's.
TITLES = frozenset(
    """Mr Mrs Ms Miss Dr Prof Sir Dame Lord Lady Rev St Sgt Cpl Pc Det Insp Supt Gen Col Lt
    Capt Captain President Prime Minister Prince Princes Princess King Queen Duke Duchess Pope
    Senator Sen Rep Governor Gov Mayor Judge Justice Officer Chief Coach Manager Sheriff
    Ambassador Secretary Chancellor Professor Doctor Father Brother Sister Mother Saint Uncle
    Aunt Detective Inspector Constable Sergeant Corporal Private Major General Colonel
    Lieutenant Commander Admiral Bishop Archbishop Cardinal Rabbi Imam Pastor""".split()
)
# Capitalised words that are not names: function words that open sentences, titles, months,
# weekdays, and the like.
NOT_NAMES = (
    frozenset(
        """The A An This That These Those He She It They We I You His Her Its Their Our My Your
        Him Them Us Me In On At By For From With Without Of To And But Or Nor As After Before
        When While If Since Until During Despite Although Though There Here Now Then Also Some
        Many Most All One Two Three Four Five Six Seven Eight Nine Ten Last Next Both Each Every
        Another Other Such No Not Yes Only Just Even Still Yet So Because Where What Which Who
        Whom Whose Why How Over Under About Around Into Onto Through Across Against Between
        Among Within Up Down Out Off Inside Outside Near Like Unlike Following Above Below
        Behind Beyond Along Amid Upon Toward Towards Via Per Whether However Meanwhile Instead
        Perhaps Maybe Once Twice Again Already Never Always Often Sometimes Speaking Asked
        According Earlier Later Recently Previously Currently Finally Police Former Ex Photo
        Picture Video Click Scroll Watch Read See Daily Mail Online MailOnline CNN Today
        Yesterday Tomorrow""".split()
    )
    | TITLES
    | frozenset(MONTHS)
    | frozenset(WEEKDAYS)
)
# Peoples and faiths: capitalised, yet no one's name.
DEMONYMS = frozenset(
    """British English Scottish Welsh Irish Britons American Americans Australian Australians
    Canadian Canadians French German Germans Italian Italians Spanish Russian Russians Chinese
    Japanese Indian Indians Pakistani Afghan Iraqi Iraqis Iranian Iranians Syrian Syrians
    Israeli Israelis Palestinian Palestinians Mexican Mexicans Brazilian African Africans
    European Europeans Asian Asians Arab Arabs Muslim Muslims Christian Christians Jewish Jews
    Catholic Catholics Islamic Western Eastern Northern Southern Korean Koreans Turkish Greek
    Dutch Swedish Norwegian Danish Polish Ukrainian Ukrainians Egyptian Libyan Nigerian
    Kenyan Saudi Yemeni Cuban Venezuelan Argentine Argentinian Colombian Filipino Thai
    Vietnamese Indonesian Malaysian Swiss Belgian Austrian Portuguese Hispanic Latino""".split()
)
_ACRONYM_WORD = r"[A-Z]{2,6}(?![a-z])"
# A capitalised word: "Obama", "McDonald", "O'Neill", "Jean-Claude" (not "Obama's").
_CAP_WORD = r"[A-Z][a-z]*(?:[A-Z][a-z]+)?(?:[-'’][A-Z][a-z]+)*"
_NAME_WORD = r"(?:" + _ACRONYM_WORD + "|" + _CAP_WORD + ")"
_NAME_RUN = re.compile(
    r"(?<![\w'’-])" + _NAME_WORD + r"(?:\s+(?:(?:de|da|del|der|di|du|van|von|bin|al|la|le)\s+)?"
    + _NAME_WORD + r")*(?![\w-])"
)
# A name after one of these (a determiner aside) is taken for a place.
LOCATIVE = frozenset("in at on near from outside across into around inside via".split())
_DETERMINERS = frozenset("the a an this that these those his her their its our my your".split())
# What follows a person's name: an age between commas, a verb of saying, "who".
_PERSON_AFTER = re.compile(
    r",\s*\d{1,3}(?:,|\s+and\b)|,?\s+(?:said|says|told|tells|added|explained|wrote|tweeted"
    r"|claimed|admitted|denied|insisted|who|whose)\b|['’]s\s+(?:wife|husband|son|daughter"
    r"|mother|father|brother|sister|family|lawyer|girlfriend|boyfriend|partner|children)\b"
)
# Acronyms that name no one ("US" stays: it is a country, swapped as a place would be).
NOT_ACRONYMS = frozenset("I A TV AM PM OK UK US".split())


class Name(NamedTuple):
    text: str
    start: int
    end: int
    shape: tuple[int, str]  # (words, "acronym" | "person" | "place" | "other")


def _sentence_starts(text: str) -> set[int]:
    """Offsets where a sentence (or a quotation, or a caption after a colon) begins."""
    starts = {0}
    for match in re.finditer(r"(?:[.!?:;][\"')\]]?\s+|\n\s*|[\"'‘“(\[])[\"'‘“(\[]?", text):
        starts.add(match.end())
    return starts


def _mid_sentence_words(text: str) -> set[str]:
    """Capitalised words of `text` that stand somewhere other than at a sentence's start:
    capitalised because they are names."""
    starts = _sentence_starts(text)
    out = set()
    for match in re.finditer(r"(?<![\w'’-])" + _CAP_WORD, text):
        if match.start() not in starts:
            out.add(match.group(0))
    return out


def _lower_words(text: str) -> set[str]:
    return set(re.findall(r"(?<![\w'’-])[a-z]+(?![\w-])", text))


def names(text: str, article: str | None = None) -> list[Name]:
    """The names of `text`: runs of capitalised words and acronyms, cut at titles, months,
    weekdays and sentence-opening function words ("Mr", "On", "The"). A leading word that
    the texts also use in lower case ("Writer", "Pupil") is a role, not part of the name; a
    name of one word must not be used in lower case (“Well”, “Kitchen”) nor be a people's
    name ("British"), and when it opens a sentence it must stand capitalised mid-sentence
    somewhere in `text` or `article`. With `article` None (a sentence alone), a word opening
    the sentence counts as a name unless it is a common capitalised word.

    A name is a person's after a title or before ", <age>,", a place's after "in", "at",
    "from" and the like."""
    starts = _sentence_starts(text)
    context = text + "\n" + (article or "")
    known = _mid_sentence_words(context)
    lower = _lower_words(context)
    context_starts = _sentence_starts(context)
    mid_pairs = {
        m.group(0)
        for m in re.finditer(r"(?<![\w'’-])" + _CAP_WORD + r" " + _CAP_WORD, context)
        if m.start() not in context_starts
    }
    out: list[Name] = []
    for match in _NAME_RUN.finditer(text):
        pieces: list[list[tuple[str, int]]] = [[]]
        titled = [False]
        run = list(re.finditer(r"\S+", match.group(0)))
        for index, word in enumerate(run):
            # A title ends a name only before another name word ("Billie Jean King" keeps
            # its "King"; "Prince William" loses its "Prince").
            title_here = word.group(0) in TITLES and (index + 1 < len(run) or not pieces[-1])
            if (word.group(0) in NOT_NAMES and word.group(0) not in TITLES) or title_here:
                pieces.append([])
                titled.append(word.group(0) in TITLES)
            else:
                pieces[-1].append((word.group(0), match.start() + word.start()))
        for piece, after_title in zip(pieces, titled):
            # Lower-case particles ("van", "de") only inside a name; roles off its front.
            while piece and piece[0][0].islower():
                piece.pop(0)
            while piece and piece[-1][0].islower():
                piece.pop()
            # A role before a name of two words ("Writer Sisonke Msimang"), or a word that is
            # capitalised only for opening the sentence ("Married Pasceri"), unless the texts
            # have the two words together mid-sentence ("Secret Service").
            while len(piece) > 1 and piece[0][0].lower() in lower:
                head = piece[0][0]
                role = len(piece) > 2 and re.search(r"(?:er|or|ist|ian|ant|ent|ee|ess)$", head)
                opening = piece[0][1] in starts and f"{head} {piece[1][0]}" not in mid_pairs
                if not (role or opening):
                    break
                piece.pop(0)
            if not piece or piece[-1][0] in DEMONYMS:
                continue
            first, start = piece[0]
            last, last_at = piece[-1]
            end = last_at + len(last)
            if len(piece) == 1:
                if len(first) < 2 or first in DEMONYMS or first.lower() in lower:
                    continue
                if first.isupper() and first in NOT_ACRONYMS:
                    continue
                if start in starts and first not in known and article is not None:
                    continue
            before = [w.lower() for w in text[:start].split()[-2:]]
            if before[-1:] and before[-1] in _DETERMINERS:
                before = before[:-1]
            if all(re.fullmatch(_ACRONYM_WORD, word) for word, _ in piece):
                kind = "acronym"
            elif after_title or _PERSON_AFTER.match(text[end:]):
                kind = "person"
            elif before and before[-1] in LOCATIVE:
                kind = "place"
            else:
                kind = "other"
            out.append(Name(text[start:end], start, end, (len(piece), kind)))
    return out


def _name_words(name: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z]+", name)}


def _kinds(found: list[Name]) -> dict[str, str]:
    """Each name's kind over all its mentions: a person's if any mention says so, else a
    place's if any does, else other. A person's last name is a person's too, and so is a
    longer name ending in a person's single name ("Koetters" and "Joseph Koetters")."""
    out: dict[str, str] = {}
    for name in found:
        seen, kind = out.get(name.text), name.shape[1]
        if seen is None or (seen, kind) in (("other", "person"), ("other", "place"), ("place", "person")):
            out[name.text] = kind
    people = {text.split()[-1] for text, kind in out.items() if kind == "person"}
    for text, kind in out.items():
        if kind in ("other", "place") and text.split()[-1] in people:
            out[text] = "person"
    return out


def _replace_name(sentence: str, rng: random.Random, pool: list[Name], article: str) -> Edit | None:
    """A name of the sentence replaced by one of `pool`'s names, the likest in shape."""
    in_sentence_names = names(sentence, article)
    found = [n for n in in_sentence_names if n.shape[1] != "acronym"]
    if not found or not pool:
        return None
    taken = set().union(*(_name_words(n.text) for n in in_sentence_names))
    kinds = _kinds(pool)
    mentions = _kinds(in_sentence_names + (names(article) if article else []))
    candidates = sorted(
        {n.text for n in pool if kinds[n.text] != "acronym" and not (_name_words(n.text) & taken)}
    )
    order = list(found)
    rng.shuffle(order)
    for old in order:
        words_count, kind = old.shape[0], mentions.get(old.text, old.shape[1])
        size = {text: len(text.split()) for text in candidates}

        # Tiers of likeness: same kind and words; same kind; for a name of no known kind,
        # any name of as many words. A person's name is only ever replaced by a person's, a
        # place's by a place's.
        tiers = [
            [c for c in candidates if kinds[c] == kind and size[c] == words_count],
            [c for c in candidates if kinds[c] == kind],
            [c for c in candidates if kind == "other" and size[c] == words_count],
        ]
        tier = next((t for t in tiers if t), None)
        if tier:
            return _replace(sentence, old.start, old.end, rng.choice(tier))
    return None


def edit_name_same(sentence: str, rng: random.Random, article: str) -> Edit | None:
    """A name of the sentence replaced by another name the article mentions (none of whose
    words the sentence's names hold), of the same kind and length where the article has one."""
    return _replace_name(sentence, rng, names(article, article), article)


def edit_name_other(
    sentence: str, rng: random.Random, others: list[str] | str, article: str = ""
) -> Edit | None:
    """A name of the sentence replaced by a name from `others` (other articles' texts) of
    which the article (when given) mentions no word."""
    texts = [others] if isinstance(others, str) else list(others)
    pool = []
    for text in texts:
        pool.extend(names(text, text))
    if article:
        held = _name_words(" ".join(n.text for n in names(article, article)))
        lowered = article.lower()
        pool = [n for n in pool if not (_name_words(n.text) & held) and n.text.lower() not in lowered]
    return _replace_name(sentence, rng, pool, article)


# --- negation --------------------------------------------------------------------------------

# Irregular simple past -> base form (past forms that are also the base, "put" "cut" "hit",
# are left out: "did not put" would not tell past from present).
IRREGULAR_PAST = dict(
    pair.split(":")
    for pair in """took:take went:go said:say won:win lost:lose made:make gave:give found:find
    told:tell came:come saw:see became:become began:begin left:leave led:lead brought:bring
    bought:buy held:hold kept:keep knew:know got:get thought:think met:meet ran:run sent:send
    spent:spend stood:stand struck:strike threw:throw wrote:write wore:wear broke:break
    chose:choose drove:drive fell:fall felt:feel fought:fight flew:fly forgot:forget froze:freeze
    grew:grow heard:hear hid:hide hung:hang paid:pay rode:ride rose:rise sang:sing sank:sink
    sat:sit shook:shake shot:shoot slept:sleep sold:sell spoke:speak stole:steal swam:swim
    taught:teach tore:tear understood:understand woke:wake built:build caught:catch dealt:deal
    dug:dig drew:draw drank:drink ate:eat fed:feed forgave:forgive meant:mean overtook:overtake
    rang:ring sought:seek shone:shine spun:spin swore:swear swung:swing undertook:undertake
    withdrew:withdraw died:die laid:lay lent:lend bent:bend fled:flee slid:slide stuck:stick
    stung:sting struck:strike sprang:spring bit:bite blew:blow bred:breed lit:light
    beat:beat did:do had:have""".split()
)
_BASE_TO_PAST = {base: past for past, base in IRREGULAR_PAST.items()}
PAST_PARTICIPLES = frozenset(
    """been done gone taken given made found told won lost seen become begun left led brought
    bought held kept known got gotten thought met run sent spent stood struck thrown written
    worn broken chosen driven fallen felt fought flown forgotten frozen grown heard hidden hit
    hung paid ridden risen sung sunk sat shaken shot slept sold spoken stolen swum taught torn
    understood woken beaten built caught dealt dug drawn drunk eaten fed forgiven meant overtaken
    put read said set shut cut let quit spread sought shown sworn withdrawn lent bent fled slid
    stuck stung sprung bitten blown bred lit had""".split()
)
ADVERBS = frozenset(
    """also already just now since recently reportedly allegedly previously still even ever
    long once finally later then initially originally apparently""".split()
)
AUXILIARIES = (
    "is", "was", "are", "were", "has", "had", "have", "will", "can", "could", "would", "should", "did"
)
# Words that cannot follow a modal as its verb.
_NOT_VERBS = frozenset(
    """the a an his her their its our my your this that these those to of in on at by for from
    with and or but""".split()
)
_SUBJECT_WORDS = frozenset("he she they it we i who you".split())
_NOT_SUBJECT = frozenset(
    """the a an his her their its our my your this that these those to of in on at by for from
    with and or but as is was are were be been being has have had not never who which when where
    after before while if than also""".split()
)


def _past_to_base(word: str) -> str | None:
    """The base form of a simple-past verb, where it can be told: the irregular table, or a
    regular -ed form whose base is unambiguous. None otherwise."""
    lower = word.lower()
    if lower in IRREGULAR_PAST:
        return IRREGULAR_PAST[lower]
    if not lower.endswith("ed") or len(lower) < 5 or not lower.isalpha():
        return None
    stem = lower[:-2]
    if lower.endswith("ied") and len(lower) > 5 and lower[-4] not in "aeiou":
        return lower[:-3] + "y"
    if stem in ("add", "err"):
        return stem
    if re.search(r"([bdgmnprt])\1$", stem):  # stopped, planned, admitted, occurred
        return stem[:-1]
    if stem.endswith("ll"):
        # killed, called, spilled; not travelled, fuelled (doubled in British spelling)
        doubled = len(stem) > 5 or (len(stem) > 3 and stem[-3] in "aeiou" and stem[-4] in "aeiou")
        return None if doubled else stem
    if re.search(r"(?:st|nt|rt|rd|ld|nd|rk|nk|lk|lp|sk|ck|sh|ch|gh|ct|pt|ft|lt|rm|rn|lm|mp|mb|ss|ff|zz|wn|rl)$", stem):
        # wasted, tasted, pasted, hasted, basted come from bases ending in -e
        return None if stem in ("wast", "past", "tast", "hast", "bast") else stem
    if re.search(r"(?:ai|ea|ee|oo|ou|oi)[ndklmprt]$", stem) and not stem.endswith("creat"):
        return stem  # gained, needed, looked, joined; not created
    if re.search(r"[aeo][wy]$", stem):  # showed, played, enjoyed, viewed
        return stem
    return None


def _is_participle(word: str) -> bool:
    lower = word.lower()
    return lower in PAST_PARTICIPLES or (lower.endswith("ed") and len(lower) > 3)


_TOKEN = re.compile(r"[A-Za-z]+(?:['’][a-z]+)?|\d[\d,.]*\d|\d|\S")


def _tokens(sentence: str) -> list[tuple[str, int, int]]:
    return [(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(sentence)]


def _remove_negation(sentence: str) -> Edit | None:
    """The first negation taken out: "is not" / "isn't" -> "is", "cannot" / "can't" -> "can",
    "won't" -> "will", "did not go" -> "went" (a verb of the irregular table; else "did go"),
    "never went" -> "went"; else a "not" of its own ("pleaded not guilty" -> "pleaded
    guilty")."""
    pattern = re.compile(
        r"\b(is|was|are|were|has|had|have|will|can|could|would|should|does|do|did|must)"
        r"(?:\s+not\b|n['’]t\b|not\b)|\b(ca|wo)n['’]t\b|\bnever\s+",
        re.IGNORECASE,
    )
    for match in pattern.finditer(sentence):
        text = match.group(0)
        if text.lower().startswith("never"):
            rest = re.match(r"[A-Za-z]+", sentence[match.end() :])
            if not rest:
                continue
            return _replace(sentence, match.start(), match.end() + rest.end(), rest.group(0))
        aux = match.group(1) or {"ca": "can", "wo": "will"}[match.group(2).lower()]
        aux = _match_case(aux.lower(), text)
        if aux.lower() == "did":
            rest = re.match(r"\s+([a-z]+)\b", sentence[match.end() :])
            if rest and rest.group(1) in _BASE_TO_PAST:
                past = _match_case(_BASE_TO_PAST[rest.group(1)], text)
                return _replace(sentence, match.start(), match.end() + rest.end(), past)
        return _replace(sentence, match.start(), match.end(), aux)
    # A "not" of its own ("pleaded not guilty"), not "not only" nor "or not".
    for match in re.finditer(r"(?<![\w'’])not\s+(?!only\b|just\b|least\b|to\b)([a-z]+)", sentence):
        if sentence[: match.start()].rstrip().lower().endswith(" or"):
            continue
        return _replace(sentence, match.start(), match.end(), match.group(1))
    return None


def _add_negation(sentence: str) -> Edit | None:
    """"not" put on the main verb: after its auxiliary ("was" -> "was not", "can" ->
    "cannot"; "has two" -> "does not have two"), else a simple past with a known base form
    as "did not <base>"."""
    tokens = _tokens(sentence)
    candidates = []
    for i, (word, start, end) in enumerate(tokens):
        lower = word.lower()
        following = [t[0] for t in tokens[i + 1 : i + 5] if t[0].isalpha()]
        after = following[0].lower() if following else ""
        previous = tokens[i - 1][0].lower() if i else ""
        # Inside a relative clause ("the man who was ...") is less likely the main verb.
        rank = 1 if previous in ("who", "which", "that") else 0
        if lower in AUXILIARIES:
            if after in ("not", "never") or previous == "to" or (i and word[0].isupper()):
                continue  # already negative; "to have"; "Will" the name
            verb = next((w for w in following if w.lower() not in ADVERBS), "")
            if lower in ("has", "have", "had"):
                if verb and _is_participle(verb):
                    new = word + " not"
                else:
                    new = _match_case({"has": "does", "have": "do", "had": "did"}[lower], word)
                    new += " not have"
            elif lower in ("did", "will", "can", "could", "would", "should"):
                if not verb or not verb.islower() or verb in _NOT_VERBS:
                    continue  # "did the work", "the will of"
                new = _match_case("cannot", word) if lower == "can" else word + " not"
            else:
                new = word + " not"
            candidates.append((rank * 3, start, end, new))
            continue
        base = _past_to_base(word) if word.islower() else None
        if not base or i == 0 or previous in _NOT_SUBJECT or after == "by":
            continue
        before = tokens[i - 1][0]
        if before == ",":
            # "Smith, 24, took ...": an age between commas after a name.
            if not (i >= 3 and tokens[i - 2][0].isdigit() and tokens[i - 3][0] == ","):
                continue
        elif not before[0].isalpha():
            continue
        elif before.lower() not in _SUBJECT_WORDS and not before[0].isupper():
            # After a common noun an -ed word is as often an adjective or a reduced relative
            # ("a man arrested in ..."): only a past form that is no participle there.
            if lower not in IRREGULAR_PAST or lower in PAST_PARTICIPLES:
                continue
        candidates.append((1 + rank * 3, start, end, _match_case("did not " + base, word)))
    if not candidates:
        return None
    _, start, end, new = min(candidates)
    return _replace(sentence, start, end, new)


def edit_negation(sentence: str, rng: random.Random | None = None) -> Edit | None:
    """A negation taken out of the sentence if it has one, else put on its main verb."""
    return _remove_negation(sentence) or _add_negation(sentence)


# --- antonyms --------------------------------------------------------------------------------

_TWO_WAY = """rose:fell rise:fall rises:falls rising:falling risen:fallen increased:decreased
increase:decrease increases:decreases increasing:decreasing won:lost win:lose wins:loses
winning:losing winner:loser winners:losers higher:lower highest:lowest more:less before:after
first:last largest:smallest larger:smaller north:south east:west northern:southern
eastern:western northeast:southwest northwest:southeast above:below maximum:minimum
oldest:youngest older:younger best:worst better:worse top:bottom earlier:later
earliest:latest longest:shortest longer:shorter strongest:weakest stronger:weaker
richest:poorest male:female men:women man:woman boys:girls boy:girl husband:wife
husbands:wives father:mother son:daughter sons:daughters brother:sister brothers:sisters
profit:loss profits:losses accepted:rejected success:failure successful:unsuccessful
inside:outside private:public domestic:foreign ahead:behind alive:dead arrived:departed
bought:sold buy:sell buying:selling summer:winter legal:illegal positive:negative
guilty:innocent cheap:expensive hot:cold wet:dry morning:evening""".split()
ANTONYMS: dict[str, str] = {}
for _pair in _TWO_WAY:
    _a, _b = _pair.split(":")
    ANTONYMS.setdefault(_a, _b)
    ANTONYMS.setdefault(_b, _a)
ANTONYMS.update(
    {"biggest": "smallest", "bigger": "smaller", "gained": "lost", "fewer": "more",
     "without": "with", "approved": "rejected", "survived": "died"}
)
_TIME_NOUNS = frozenset(
    """week month year night season weekend summer winter spring autumn fall time decade
    century term minute minutes day days""".split()
) - {"time"}


def edit_antonym(sentence: str, rng: random.Random) -> Edit | None:
    """One word of a closed set of opposites swapped (lower case, or capitalised at the
    sentence's start only, so "South Africa" and "West Ham" stay)."""
    pattern = re.compile(r"(?<![\w'’])(" + "|".join(sorted(ANTONYMS, key=len, reverse=True)) + r")(?![\w'’])", re.IGNORECASE)
    found = []
    for match in pattern.finditer(sentence):
        word = match.group(0)
        if word != word.lower() and not (match.start() == 0 and word == word.capitalize()):
            continue
        lower = word.lower()
        before = sentence[: match.start()].split()[-1:]
        after = sentence[match.end() :].split()[:1]
        before = before[0].lower() if before else ""
        after = after[0].lower().strip(",.;:") if after else ""
        if lower == "last" and (after in _TIME_NOUNS or before == "at"):
            continue
        if lower == "more" and before in ("no", "any", "once", "the"):
            continue
        if lower == "after" and after == "all":
            continue
        if lower == "dead" and before in ("shot", "stabbed", "gunned", "beaten", "hacked", "mauled", "kicked"):
            continue  # "shot dead" has no opposite
        if lower in ("before", "after") and not re.match(r"\s+[\w'‘“\"]", sentence[match.end() :]):
            continue  # "never seen before.": an adverb, whose opposite is no word
        if lower in ("first", "last") and sentence[match.end() : match.end() + 7] == "-degree":
            continue
        found.append(match)
    if not found:
        return None
    match = rng.choice(found)
    new = _match_case(ANTONYMS[match.group(0).lower()], match.group(0))
    return _replace(sentence, match.start(), match.end(), new)


# --- roles -----------------------------------------------------------------------------------

ROLE_VERBS = frozenset(
    """beat beats defeated defeats faced faces met meets married marries sued sues replaced
    replaces hired hires fired fires killed kills attacked attacks joined joins signed signs
    shot shoots stabbed stabs hit hits thanked thanks praised praises criticised criticized
    criticises criticizes blamed blames accused accuses told tells called calls visited visits
    followed follows succeeded succeeds endorsed endorses interviewed interviews hugged hugs
    kissed kisses punched punches sacked sacks overtook overtakes trails trailed leads led
    dated dates divorced divorces helped helps invited invites rescued rescues saved saves
    tackled tackles challenged challenges""".split()
)


# Lower-case words that may follow a name that is a subject or an object (not a modifier, as
# "Dallas" of "the Dallas native").
_AFTER_NAME = frozenset(
    """in on at for with to from and but or as after before during when while who which that
    by of over since until because if than into against about""".split()
)


def _verb_like(word: str) -> bool:
    return (
        word in ROLE_VERBS
        or word in IRREGULAR_PAST
        or word in AUXILIARIES
        or _past_to_base(word) is not None
    )


def edit_role(sentence: str, rng: random.Random | None = None, article: str | None = None) -> Edit | None:
    """The two names around a verb swapped ("A beat B" -> "B beat A"), when the sentence has
    exactly two different names, the first followed by its verb (adverbs aside) and the second
    after it, at most six words on; neither a place nor behind a determiner ("the Dallas
    native"), and the second not a modifier of a noun ("Marlborough student")."""
    found = names(sentence, article)
    if len(found) != 2:
        return None
    first, second = found
    if _name_words(first.text) & _name_words(second.text):
        return None
    kinds = _kinds(found + (names(article, article) if article else []))
    both = (kinds.get(first.text, first.shape[1]), kinds.get(second.text, second.shape[1]))
    if "place" in both or "acronym" in both or "person" not in both:
        return None
    for name in (first, second):
        before = sentence[: name.start].split()[-1:]
        if before and before[0].lower() in _DETERMINERS:
            return None
    following = re.match(r"\s+([A-Za-z]+)", sentence[second.end :])
    if following and following.group(1).islower() and following.group(1) not in _AFTER_NAME:
        return None
    between = re.findall(r"[A-Za-z'’]+", sentence[first.end : second.start])
    lower = [w.lower() for w in between if w.lower() not in ADVERBS and not w.endswith("ly")]
    if not lower or len(between) > 6 or not _verb_like(lower[0]):
        return None
    if "and" in lower or "or" in lower:
        return None
    region = second.text + sentence[first.end : second.start] + first.text
    edited = sentence[: first.start] + region + sentence[second.end :]
    return Edit(
        edited,
        sentence[first.start : second.end],
        region,
        (first.start, second.end),
        (first.start, first.start + len(region)),
    )


# ---------------------------------------------------------------------------------------------


def edit(
    kind: str,
    sentence: str,
    rng: random.Random,
    article: str = "",
    others: list[str] | None = None,
) -> Edit | None:
    """The edit of `kind` (one of `KINDS`) of `sentence`; `article` is the text the sentence
    summarises (names of the same article; values it holds are avoided), `others` the texts of
    other articles (for name-other)."""
    if kind == "number":
        return edit_number(sentence, rng, article)
    if kind == "year":
        return edit_year(sentence, rng, article)
    if kind == "name-same":
        return edit_name_same(sentence, rng, article)
    if kind == "name-other":
        return edit_name_other(sentence, rng, others or [], article)
    if kind == "negation":
        return edit_negation(sentence, rng)
    if kind == "antonym":
        return edit_antonym(sentence, rng)
    if kind == "role":
        return edit_role(sentence, rng, article or None)
    raise ValueError(f"unknown edit kind {kind!r}; the kinds are {', '.join(KINDS)}")
