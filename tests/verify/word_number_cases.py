"""Cases for numbers written in words (critic8): a source sentence, a claim, and the status each
of the claim's numbers must get on that source (in the claim's order). Written before the fix was
run, then split with a fixed seed into a tuning half and a held-out half (:func:`split`)."""

from __future__ import annotations

import random

CASES: list[tuple[str, str, str, list[str]]] = [
    # (language, source sentence, claim, statuses of the claim's numbers)
    # a number word with a unit after it: the unit counts, as after digits
    ("en", "The siren gives one blast of five seconds every thirty seconds.", "a blast of 5 seconds", ["found"]),
    ("en", "Two strokes every twenty seconds are struck by hand.", "every 20 seconds", ["found"]),
    ("en", "The tank holds twelve litres of oil.", "it holds 12 liters", ["found"]),
    ("en", "The tank holds twelve litres of oil.", "it holds 12 kg", ["found_without_unit"]),
    ("en", "The survey asked three hundred people.", "300 people were asked", ["found"]),
    ("de", "Er zeigt ein Feuer mit einer Periode von sechs Sekunden.", "eine Periode von 6 Sekunden", ["found"]),
    ("de", "Die Wache dauert vier Stunden.", "Wachen von 4 Stunden", ["found"]),
    ("de", "Die Wache dauert vier Stunden.", "Wachen von 4 Tagen", ["found_without_unit"]),
    ("fr", "La sirène donne trois sons toutes les soixante secondes.", "toutes les 60 secondes", ["found"]),
    ("fr", "Le moteur tourne pendant dix minutes.", "pendant 10 minutes", ["found"]),
    ("fr", "Le gardien reste huit jours au phare.", "il reste 8 jours", ["found"]),
    ("es", "La sirena suena cada cuarenta segundos.", "cada 40 segundos", ["found"]),
    ("es", "El faro tiene dos años.", "tiene 2 años", ["found"]),
    ("it", "La sirena suona ogni cinquanta secondi e dura tre secondi.", "ogni 50 secondi", ["found"]),
    ("it", "Il guardiano resta sei giorni.", "resta 6 giorni", ["found"]),
    ("de", "Der Kessel fasst sechzig Liter.", "er fasst 60 Liter", ["found"]),
    ("de", "Das Licht reicht achtzig Kilometer weit.", "80 km weit", ["found"]),
    ("fr", "Le phare a quatre-vingts marches.", "il a 90 marches", ["not_found"]),
    # English words that are also number words of another language are not numbers in English
    ("en", "The delay was due to the storm.", "The delay of 2 hours", ["not_found"]),
    ("en", "The ship was due at noon.", "2 ships", ["not_found"]),
    ("en", "It costs one cent per page.", "100 pages", ["not_found"]),
    ("en", "The drawing is in the DOS format.", "2 formats", ["not_found"]),
    ("en", "The elf stood by the door.", "11 doors", ["not_found"]),
    ("en", "The log of Sept. 5 records the storm.", "7 storms", ["not_found"]),
    ("en", "A wire of ten mil thickness.", "1000 wires", ["not_found"]),
    # ... while the same words before a unit in their own language still count
    ("it", "Il faro resta acceso due ore.", "acceso 2 ore", ["found"]),
    ("fr", "Il attend sept jours.", "7 jours", ["found"]),
    ("es", "Tiene dos años.", "2 años", ["found"]),
]
"""Each source sentence is the whole page 1 of a text file."""

SEED = 8


def split() -> tuple[list, list]:
    """``(tuning, held_out)``: the cases shuffled with :data:`SEED`, halved."""
    cases = list(CASES)
    random.Random(SEED).shuffle(cases)
    half = len(cases) // 2
    return cases[:half], cases[half:]
