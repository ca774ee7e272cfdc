"""Every finding code `kb check` gives, with what it means (stable identifiers; the docs'
list of codes is generated from this), and which of them a lenient check downgrades."""

from __future__ import annotations

from kbtools.check import assets, vocabulary

# Every finding code with what it means (stable identifiers; docs are generated from this).
CODES: dict[str, str] = {
    "file-empty": "the file is empty or only whitespace",
    "file-binary": "the file contains NUL bytes and is not UTF-8 (binary, not Markdown)",
    "file-nul": "UTF-8 text with NUL characters in it (a lenient build indexes it as it is)",
    "file-too-large": "the file exceeds the size limit (kb.toml [check] max_bytes, 2 MB)",
    "file-unreadable": "the file cannot be read (permissions, a dangling symlink, I/O error)",
    "file-not-regular": "a FIFO, device, socket or directory named *.md: not read",
    "encoding-not-utf8": "bytes that are not valid UTF-8",
    "encoding-utf16": "UTF-16 or UTF-32 text (Windows Notepad's \"Unicode\"), not UTF-8: not read",
    "encoding-bom": "a UTF-8 byte-order mark (warning)",
    "encoding-crlf": "CRLF or CR line endings (warning)",
    "path-not-utf8": "the file name is not valid UTF-8",
    "file-extension": "a document named *.MD, *.markdown …: only a lower-case .md is read and "
                      "indexed",
    "conflicted-copy": "a file-sync tool's conflicted copy of a document (Syncthing's "
                       "`x.sync-conflict-…md`, Dropbox's `x (… conflicted copy …).md`): may "
                       "hold a colleague's edit; not indexed",
    "editor-leftover": "an editor's backup (Typora's `x~.md`, `x.md~`, `x.md.orig`) or a note "
                       "in Obsidian's `.trash/`: not read or indexed (warning)",
    "merge-conflict": "Git's conflict markers (`<<<<<<<`, `=======`, `>>>>>>>`) left in the "
                      "file: a merge conflict never resolved",
    "doc-drawing": "an Obsidian Excalidraw drawing (`excalidraw-plugin` front matter), not a "
                   "document: export it as a picture and link that; a lenient build indexes "
                   "its Text Elements alone",
    "fm-missing": "no front matter block",
    "fm-unterminated": "the front matter block is never closed",
    "fm-empty": "the front matter block is empty",
    "fm-not-mapping": "the front matter is a list or scalar, not a mapping",
    "yaml-syntax": "YAML syntax error (with its line)",
    "yaml-1.1-value": "an unquoted value YAML 1.1 reads otherwise than it is written: "
                      "`code: 010` is 8 (octal), `0x1F` 31, `1:30` 90 (base 60), `1_000` 1000, "
                      "`.inf` a number, `answer: no` / `yes` / `on` / `off` booleans; quote "
                      "it (`code: \"010\"`) or write what YAML reads (`false`) (warning)",
    "duplicate-key": "a key appears twice in the front matter",
    "yaml-bomb": "the front matter has over 20,000 nodes (an alias bomb?) or nests too deeply",
    "fm-missing-key": "a required key is missing (base or category schema)",
    "fm-unknown-key": "a key the schema does not know (with a did-you-mean)",
    "fm-type": "a value has the wrong type",
    "fm-value": "a value breaks another schema rule (enum, pattern, length ...)",
    "fm-timestamp": "not an ISO 8601 timestamp with offset, or not a real date",
    "fm-tag-hash": "a list item written with Obsidian's `#` (`tags: [\"#迁飞性害虫\"]`): "
                   "indexed with it, so facets and routing miss the document (warning)",
    "fm-list-joined": "a list item holding several values joined by Chinese list "
                      "punctuation (`tags: [液压、检修]`): one value to the index, so "
                      "`--where tags=液压`, facets and routing miss the document (warning)",
    "fm-unknown-category": "the category has no schema in schemas/categories/",
    "fm-verified-without-reviewer": "verified: true without verified_by and verified_at",
    "body-empty": "front matter but no content",
    "markdown-too-deep": "lists or quotes nest deeper than Markdown is read (20 levels)",
    "footnote-undefined": "a footnote reference [^x] with no definition [^x]: …: shown as "
                          "literal text",
    "heading-skip": "a heading more than one level below the one before it (`#` then `###`; "
                    "the title counts as level 1): a level missing from its heading path; "
                    "not where a <!-- markdownlint-disable MD001 --> comment holds (warning)",
    "footnote-unused": "a footnote definition [^x]: … that nothing references (warning)",
    "path-absolute": "absolute path (/home/..., C:\\..., file://) in a link or image",
    "path-backslash": "backslashes in a link or image path",
    "path-escapes-repo": "a relative path that leaves the repository",
    "path-missing": "the link or image target does not exist",
    "path-case": "the target exists only with different letter case",
    "path-unicode": "a link composed (NFC) to a file name decomposed (NFD, as macOS writes "
                    "names) or the other way round: Linux does not find it; a document's own "
                    "decomposed name is a warning",
    "path-collision": "two paths that differ only in letter case or Unicode form: one file on "
                      "Windows and macOS, which check out only one of them",
    "path-shared-name": "a document whose file name another document of the knowledge folder "
                        "has (`crops/wheat.md`, `pests/wheat.md`): a citation or address "
                        "naming the file alone lists both (warning)",
    "path-windows": "a document or link target Windows cannot hold (CON, aux.png, a:b.md, "
                    "<>\"|?*, a trailing dot or space): Git for Windows cannot check out the "
                    "repository",
    "path-long": "a path longer than 200 characters: over Windows' 260 inside a clone (warning)",
    "path-symlink-folder": "a symlink to a folder holding Markdown: kb follows none, so its "
                           "documents are neither checked nor released",
    "path-outside-knowledge": "a document named on the command line outside the knowledge "
                              "folder: the release leaves it out (warning)",
    "path-symlink-escape": "a symlink leading outside the repository, into a hidden entry "
                           "of it (.git, .env) or to a file Git ignores: a document so "
                           "linked is not read",
    "image-remote": "a remote image; offline devices cannot load it (warning)",
    "media-remote": "a remote video, sound or page an HTML element plays or frames "
                    "(`<video src=\"https://…\">`, `<iframe>`); offline devices cannot load it "
                    "(warning)",
    "image-no-alt": "an image without alternative text (`![](x.png)`, `<img>` without `alt`): "
                    "nothing for a screen reader or search (warning)",
    "link-empty": "a link or image with an empty target (warning)",
    "link-anchor": "a #anchor that matches no heading in the target document",
    "link-wikilink": "an Obsidian [[wikilink]] or ![[embed]]: text to kbtools, never followed",
    "math-unbalanced": "a $$ without its closing $$",
    "code-unclosed": "a code fence never closed: the rest of the document is code (warning)",
    "link-space": "a link or image with a space in its path (`![a](x y.png)`): Typora shows "
                  "it, kbtools and GitHub read text (warning)",
    "heading-no-space": "a line written as a heading without the space after its #s "
                        "(`##安装`): Typora shows a heading, kbtools and GitHub text (warning)",
    "math-invalid": "a formula the allowlist refuses, or one an earlier build could not render",
    "decision-malformed": "a decision table that cannot be read as rules",
    "decision-overlap": "two rules of a decision table match the same inputs",
    "decision-gap": "inputs inside a decision table's ranges that no rule matches",
    "html-table": "an HTML <table> (pasted from Word, Excel, a web page): shown as its source, "
                  "no rows or CSV for search (warning)",
    "html-swallows-markdown": "Markdown (a picture, link, heading, list item, bold) on the lines "
                              "under a line that opens with an HTML tag (Typora's `<img … "
                              "style=\"zoom:50%;\" />`, `<br>`, `<div align=\"center\">`, "
                              "`<details>`), up to a blank line: raw HTML, never checked, "
                              "shipped or rendered; insert a blank line above it (warning)",
    "html-comment-unclosed": "an HTML comment `<!--` never closed by `-->`: what follows it "
                             "is one comment, shown by no editor, its headings and links "
                             "not read (warning)",
    "obsidian-comment": "an Obsidian %% comment never closed: kept as text, shown and "
                        "searched (a closed one is hidden everywhere) (warning)",
    "table-cells": "a table row whose cell count differs from the header",
    "table-text-row": "a line with no '|' right after a one-column table: Markdown reads it "
                      "as one more row (warning)",
    "table-unread": "lines that look like a table but are read as text: header and '---' "
                    "line of different widths, no blank line after a list item or quote, or "
                    "full-width ｜ or —— (warning)",
    "table-large": "a Markdown table longer than kb.toml [check] max_table_rows (1,000 rows): "
                   "a passage per row to embed and search (warning)",
    "table-csv-duplicate": "a <!-- csv: name --> annotation used twice in the corpus",
    "table-csv-name": "a <!-- csv: name --> annotation the build cannot use as a file name "
                      "(a path, a leading dot, a character file systems refuse)",
    "text-bidi": "a bidirectional control character (U+202A–202E, U+2066–2069) that shows "
                 "a line in another order than it is written (Trojan Source): an error in a "
                 "file name, the front matter or a heading, a warning in the text",
    "check-failed": "a plugged-in content check raised an exception (a bug to report)",
    "verification-lapsed": "a verified document changed after its review (or its review does "
                           "not hold): the build serves those lines as unverified (warning; "
                           "`kb check` inside Git)",
    **vocabulary.CODES,
    **assets.CODES,
}
# Front-matter codes: downgraded to warnings in lenient mode (foreign corpora).
FRONT_MATTER_CODES = frozenset({
    "fm-missing", "fm-unterminated", "fm-empty", "fm-not-mapping", "yaml-syntax",
    "duplicate-key", "yaml-bomb", "fm-missing-key", "fm-unknown-key", "fm-type", "fm-value",
    "fm-timestamp", "fm-unknown-category", "fm-verified-without-reviewer", "fm-tag-hash",
    "yaml-1.1-value", "fm-list-joined",
})
