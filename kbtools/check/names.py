"""File names every checkout can hold: authors write on macOS and Windows, CI and devices
run Linux, and a name Linux takes may not make the trip.

- `windows_problem`: why Git for Windows cannot check a path out (a name Windows reserves
  for a device, `CON.md`, `aux.png`; one of ``<>:"|?*\\`` or a control character; a name
  ending with a dot or a space). Git refuses the whole checkout ("invalid path"), so every
  Windows author loses the repository, not just the file.
- `disk_key`: what a case-insensitive, normalisation-insensitive disk (macOS, Windows)
  compares: `Pump.md` and `pump.md`, or `café.md` composed (NFC) and decomposed (NFD), are
  one file there, and a checkout holds only one of them.
- `decomposed`: a name that is not in the composed form (NFC): macOS file systems hand out
  decomposed names (NFD) and Git commits them as such unless `core.precomposeunicode` is
  set; links typed by authors are composed, and Linux compares names byte for byte.
- `shared_name_message`: a document whose file name another document of the knowledge
  folder has (`knowledge/crops/wheat.md`, `knowledge/pests/wheat.md`): legal, but a
  citation, `kb read` or a page address naming the file alone (`wheat.md`) lists both
  instead of opening one, so a warning naming the other (a folder's `index.md` or
  `README.md`, one in each folder by convention and never cited alone, excepted).
- `too_long`: a path that, inside a clone's own folder, passes Windows' 260-character limit.
- `drawing_message`: what to do with an Obsidian Excalidraw drawing among the documents.
"""

from __future__ import annotations

import re
import unicodedata

from kbtools.errors import bidi_control
from kbtools.markdown.drawings import KEY as DRAWING_KEY
from kbtools.markdown.drawings import drawing_name
from kbtools.render.table_csv import WINDOWS_DEVICES

# what Windows file names cannot hold (a backslash is a folder separator there)
NOT_ON_WINDOWS = frozenset('<>:"|?*\\') | frozenset(map(chr, range(0x20)))
# the other device names Git for Windows refuses (`is_valid_win32_path`)
WINDOWS_RESERVED = WINDOWS_DEVICES | {"conin$", "conout$"}
# Windows' MAX_PATH is 260 UTF-16 units for the whole path; a clone usually sits some 60
# characters deep (C:\Users\<name>\Documents\GitHub\<repo>\), so a repo-relative path
# longer than this fails to check out unless `git config core.longpaths true`
LONG_PATH_UNITS = 200


def disk_key(name: str) -> str:
    """`name` as macOS and Windows disks compare names: composed Unicode, lower case."""
    return unicodedata.normalize("NFC", name).lower()


def decomposed(name: str) -> bool:
    """Whether `name` differs from its composed Unicode form (NFC)."""
    return not unicodedata.is_normalized("NFC", name)


def windows_problem(rel: str) -> str | None:
    """Why the posix path `rel` cannot be checked out on Windows (None: it can)."""
    for part in rel.split("/"):
        if not part:
            continue
        bad = next((c for c in part if c in NOT_ON_WINDOWS), None)
        if bad is not None:
            return f"{part!r} holds {bad!r}, which Windows file names cannot hold"
        if part.split(".")[0].rstrip(" ").lower() in WINDOWS_RESERVED:
            return f"Windows reserves the name {part!r} for a device"
        if part not in (".", "..") and part.endswith((".", " ")):
            return f"{part!r} ends with {'a dot' if part.endswith('.') else 'a space'}, " \
                   "which Windows drops"
    return None


def too_long(rel: str) -> bool:
    """Whether `rel` is longer than `LONG_PATH_UNITS` UTF-16 units (as Windows counts)."""
    return len(rel.encode("utf-16-le", "surrogatepass")) // 2 > LONG_PATH_UNITS


def document_name_problems(rel: str, twins: list[str]) -> list[tuple[str, str, str]]:
    """(code, level, message) for a document's own repo-relative path; `twins`: the other
    paths of the tree that are the same file on macOS and Windows (`FsCache.twins`)."""
    out: list[tuple[str, str, str]] = []
    why = windows_problem(rel)
    if why is not None:
        out.append(("path-windows", "error",
                    f"{why}: Git for Windows cannot check the repository out (invalid path); "
                    "rename the file (git mv)"))
    if twins:
        out.append(("path-collision", "error", collision_message(rel, twins)))
    if (bidi := bidi_control(rel)) is not None:
        out.append(("text-bidi", "error",
                    f"bidirectional control character {bidi[1]} in the file name: it shows "
                    "in another order than it is written (Trojan Source); rename the file "
                    "(git mv)"))
    if decomposed(rel):
        out.append(("path-unicode", "warning",
                    "the file name is decomposed Unicode (NFD, as macOS writes names): links "
                    "typed in the usual composed form (NFC) do not find it on Linux; rename "
                    "it to its composed spelling (git mv) and set "
                    "`git config core.precomposeunicode true` on the Mac"))
    if too_long(rel):
        out.append(("path-long", "warning",
                    f"the path is longer than {LONG_PATH_UNITS} characters: inside a clone's "
                    "folder it passes Windows' 260-character limit, and Git for Windows "
                    "cannot check it out unless `git config core.longpaths true`"))
    return out


# file names a folder's own page has by convention, one in each folder: never cited alone
FOLDER_PAGES = frozenset({"index.md", "_index.md", "readme.md"})


def shared_name_message(rel: str, others: list[str]) -> str | None:
    """What `kb check` says of document `rel` when `others` (the knowledge folder's other
    documents of its file name, as a macOS disk compares names) is not empty; None when it
    is, or the name is a folder's page (`FOLDER_PAGES`)."""
    name = rel.rsplit("/", 1)[-1]
    if not others or disk_key(name) in FOLDER_PAGES:
        return None
    named = ", ".join(f"{o}:1" for o in others)
    return (f"{named} has this file name too: a citation, `kb read` or page address naming "
            f"{name} alone lists both instead of opening one; rename one (git mv) if they "
            "should be told apart by name")


def collision_message(rel: str, twins: list[str]) -> str:
    """What `kb check` says of a path that another path of the tree shares on macOS and
    Windows disks."""
    others = ", ".join(twins)
    if all(unicodedata.normalize("NFC", t) == unicodedata.normalize("NFC", rel) for t in twins):
        how = "Unicode form (composed or decomposed)"
    elif all(t.lower() == rel.lower() for t in twins):
        how = "letter case"
    else:
        how = "letter case and Unicode form"
    return (f"{rel} and {others} differ only in {how}: they are one file on Windows and "
            "macOS, where a checkout holds only one of them; rename or remove one (git mv)")


def conflicted_message(original: str, original_exists: bool) -> str:
    """What `kb check` says of a file-sync tool's conflicted copy (`docfiles.conflicted_copy`):
    it may hold a colleague's edit the document lacks."""
    where = f"{original!r}" if original_exists else f"{original!r} (not there any more)"
    return (f"a file-sync tool's conflicted copy of {where} (Syncthing, Dropbox, "
            "Nextcloud, Obsidian Sync): it may hold an edit that document lacks, and it is not "
            "read or indexed; merge what it changed into the document and delete the copy")


def leftover_message(original: str | None, original_exists: bool) -> str:
    """What `kb check` says of an editor's backup or an Obsidian trashed note beside the
    documents (`docfiles.find_markdown`'s leftovers), `original` the document it copies."""
    if original is None:
        return ("a note in Obsidian's trash (.trash/): not read or indexed; restore it in "
                "Obsidian if it is still wanted, or empty the trash")
    what = (f"an editor's backup of {original!r} (Typora, Emacs, vim, git mergetool): not "
            "read or indexed")
    if original_exists:
        return f"{what}; delete it once {original!r} holds what you want"
    return (f"{what}, and {original!r} is not there: rename the backup to it if that "
            "document was lost, or delete the backup")


_BACKUP_TAIL = re.compile(r"(?:~|_(?:BACKUP|BASE|LOCAL|REMOTE)_\d+)(\.md)$|(\.md)(?:~|\.orig|\.bak)$",
                          re.IGNORECASE)


def backup_original(name: str) -> str:
    """The document an editor's backup named `name` copies: `x~.md`, `x_LOCAL_1234.md`,
    `x.md~`, `x.md.orig` → `x.md`."""
    return _BACKUP_TAIL.sub(lambda m: m[1] or m[2], name)


def drawing_message(rel: str, value: object) -> str:
    """What to do with an Obsidian Excalidraw drawing (`kbtools.markdown.drawings`) found
    among the documents: export its picture, link that, move the drawing out."""
    name = drawing_name(rel)
    return (f"an Obsidian Excalidraw drawing ({DRAWING_KEY}: {value}), not a document: its "
            f"picture is drawing data no reader or search can use; export it as a picture "
            f"(Excalidraw menu → Export image → SVG or PNG, or the plugin's \"Auto-export "
            f"SVG\" setting) into the assets folder, link it from a document by its path "
            f"relative to that document (`![{name}](…/{name}.svg)`) with the drawing's words "
            f"in the text, and move {rel.rsplit('/', 1)[-1]!r} out of the knowledge folder "
            f"(a lenient build indexes its Text Elements alone)")
