"""The decisions (docs/decisions/, indexed by docs/semantics-decisions.md): every entry is an anchor keyed by
the ops it settles; every citation of one, in code, docstrings, docs and tests, resolves; no old section
number is cited any more; and the op registry's links (regsim._src.ops.decisions) are the entries'
**Ops:** lines."""

from __future__ import annotations

import re
from pathlib import Path

import regsim as rs
from regsim._src.ops.decisions import DECISIONS

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = ROOT / "docs" / "decisions"
INDEX = ROOT / "docs" / "semantics-decisions.md"
#: an entry: its anchor, a heading, then its **Ops:** line(s) up to **Sources:** or a blank line
ENTRY = re.compile(r'<a id="([a-z0-9-]+)"></a>\n#+ [^\n]+\n+\*\*Ops:\*\*(.*?)(?=\n\*\*Sources:\*\*|\n\n)', re.S)
#: a citation of an entry from anywhere: `decisions/<chapter>.md#<anchor>`
CITATION = re.compile(r"decisions/([a-z-]+)\.md#([a-z0-9-]+)")
#: the old section sign (written escaped here, so that this file cites none)
SECTION = "\u00a7"
#: files a citation may sit in
TEXT = {".py", ".pyi", ".md", ".asc", ".toml", ".txt", ".cfg"}


def chapters() -> dict[str, str]:
    return {p.stem: p.read_text(encoding="utf-8") for p in sorted(CHAPTERS.glob("*.md"))}


def anchors(text: str) -> set[str]:
    """A Markdown file's link targets: explicit `<a id>` anchors and GitHub's heading slugs."""
    slugs = {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in re.findall(r"^#+ (.*)$", text, re.M)}
    return set(re.findall(r'<a id="([^"]+)"', text)) | slugs


def repository_files() -> list[Path]:
    files = [p for p in ROOT.rglob("*") if p.is_file() and p.suffix in TEXT]
    return [p for p in files if not any(part.startswith(".") for part in p.relative_to(ROOT).parts)]


def test_every_entry_is_one_anchor_keyed_by_ops() -> None:
    """Each `<a id>` of a chapter opens an entry with an **Ops:** line naming what it settles (a Reg op
    `Reg.X`, a memory-level API `AscendC.X`, a C function `asc_...`, a public name `rs....`, C++ source);
    anchors are unique across the chapters."""
    seen: dict[str, str] = {}
    for chapter, text in chapters().items():
        ids = re.findall(r'<a id="([^"]+)"', text)
        entries = dict(ENTRY.findall(text))
        assert ids, f"{chapter}.md has no entry"
        for anchor in ids:
            assert anchor not in seen, f"anchor {anchor} in both {seen[anchor]}.md and {chapter}.md"
            seen[anchor] = chapter
            if re.search(rf'<a id="{anchor}"></a>\n#### ', text):
                continue  # a subsection of the entry above, keyed by it
            assert anchor in entries, f"{chapter}.md#{anchor}: no **Ops:** line under its heading"
            assert re.search(r"`[^`]+`", entries[anchor]), f"{chapter}.md#{anchor}: its **Ops:** line names no op"


def registry_links() -> dict[str, tuple[str, ...]]:
    """The Reg ops each entry's **Ops:** line names, as the op table holds them: op -> entries, in the
    index's chapter order."""
    order = re.findall(r"\]\(decisions/([a-z-]+)\.md\)", INDEX.read_text(encoding="utf-8"))
    found: dict[str, list[str]] = {}
    texts = chapters()
    for chapter in dict.fromkeys(order):
        for anchor, ops in ENTRY.findall(texts[chapter]):
            for name in dict.fromkeys(re.findall(r"`Reg\.(\w+)", ops)):
                found.setdefault(name, []).append(f"{chapter}.md#{anchor}")
    return {name: tuple(refs) for name, refs in found.items()}


def test_the_registry_links_each_op_to_the_entries_naming_it() -> None:
    want = registry_links()
    names = {o.name for o in rs.registry.ops()}
    assert set(want) <= names, f"**Ops:** lines name Reg ops that do not exist: {sorted(set(want) - names)}"
    table = "\n".join(f'    "{name}": {refs},' for name, refs in want.items())
    assert dict(DECISIONS) == want, f"regsim/_src/ops/decisions.py is not what the **Ops:** lines give:\n{table}"
    for o in rs.registry.ops():
        assert tuple(f"{d.chapter}.md#{d.anchor}" for d in o.decisions) == want.get(o.name, ())


def test_every_entry_is_reached() -> None:
    """No entry is orphaned: each is linked from the op registry, or names (its reason) a memory-level API,
    a C function or another public name the Reg registry does not hold; and the index maps an old section
    to it."""
    linked = {ref for refs in DECISIONS.values() for ref in refs}
    index = INDEX.read_text(encoding="utf-8")
    for chapter, text in chapters().items():
        assert "(../semantics-decisions.md)" in text, f"{chapter}.md does not link the index"
        assert f"](decisions/{chapter}.md)" in index, f"the index does not list the chapter {chapter}.md"
        for anchor, ops in ENTRY.findall(text):
            other = [name for name in re.findall(r"`([^`]+)`", ops) if not name.startswith("Reg.")]
            keyed = f"{chapter}.md#{anchor}" in linked or other
            assert keyed, f"{chapter}.md#{anchor} is linked from no op and names no other API"
            assert f"(decisions/{chapter}.md#{anchor})" in index, f"{chapter}.md#{anchor}: no old section of the index maps to it"


def test_every_citation_resolves() -> None:
    """Every `decisions/<chapter>.md#<anchor>` in code, docstrings, docs and tests, and every Markdown link
    with a fragment in the docs, points at an existing entry or heading."""
    targets = {chapter: anchors(text) for chapter, text in chapters().items()}
    bad = [
        f"{p.relative_to(ROOT)}: decisions/{chapter}.md#{anchor}"
        for p in repository_files()
        for chapter, anchor in CITATION.findall(p.read_text(encoding="utf-8", errors="replace"))
        if anchor not in targets.get(chapter, set())
    ]
    for page in [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]:
        for target, fragment in re.findall(r"\]\(([^)#:\s]*)#([^)\s]+)\)", page.read_text(encoding="utf-8")):
            linked = (page.parent / target).resolve() if target else page
            if not linked.is_file() or fragment not in anchors(linked.read_text(encoding="utf-8")):
                bad.append(f"{page.relative_to(ROOT)}: {target}#{fragment}")
    assert not bad, "citations of entries or headings that do not exist:\n" + "\n".join(bad)


def test_no_section_number_is_cited() -> None:
    """The decisions are cited by anchor, not by the old section numbers; only the index keeps those (to map
    them), and a standard's own clause ("IEEE 754" and its clause number) is not one of ours."""
    bad = [
        f"{p.relative_to(ROOT)}:{n}: {line.strip()}"
        for p in repository_files()
        if p != INDEX
        for n, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
        if re.search(rf"(?<!IEEE 754 ){SECTION}", line)
    ]
    assert not bad, "section numbers cited instead of decisions/<chapter>.md#<anchor>:\n" + "\n".join(bad)


def test_the_index_maps_every_old_section_once() -> None:
    rows = re.findall(rf'^\| <a id="s(\d+)"></a>{SECTION}(\d+) \|', INDEX.read_text(encoding="utf-8"), re.M)
    numbers = [int(n) for a, n in rows if a == n]
    assert len(numbers) == len(rows) == len(set(numbers)) and numbers == sorted(numbers) and numbers[0] == 1
