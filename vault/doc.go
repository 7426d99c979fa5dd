// Package vault mirrors an Obsidian-style vault (a folder of markdown notes
// with YAML frontmatter, #tags and [[wikilinks]]) into a core.GraphStore,
// keeps it mirrored live, and writes notes safely.
//
// # API
//
//	m, err := vault.NewMirror(vault.Config{Root: dir, Project: "p", Store: store})
//	stats, err := m.Sync(ctx)    // full pass; a warm restart writes nothing
//	err = m.Watch(ctx)           // live mode until ctx is done (runs Sync first if needed)
//	w := m.Writer()              // core.NoteWriter, plus path-based calls and Rename
//	problems := m.Lint().All()   // broken links, bad frontmatter... (vaultgraph check)
//
// Parse, LinkKey, NoteKeys, SanitizeTitle and Mirror.CleanPath expose the
// rules below to other packages. Clients' IDs are matched with
// core.IDCandidates (exact first, then lowercased, then with ".md").
//
// # Which files are notes
//
// Files ending in ".md" (any letter case) under the root, and the
// attachments and canvases beside them (see above). Files and
// folders whose name starts with "." (.obsidian, .trash, .git, editor swap
// and temporary files) are skipped, and so are paths matching
// Config.Ignore: globs over vault-relative paths where "*" and "?" stay in
// one segment and "**" crosses segments; a pattern without "/" matches a
// name anywhere ("templates", "*.excalidraw.md"), one with "/" is anchored
// at the root ("archive/2019"); a matching folder excludes all below it.
// Symbolic links are not followed (they could leave the vault or loop).
// Files over Config.MaxFileSize are skipped with a warning.
//
// # Identity
//
// ID is the vault-relative path with "/" separators and extension,
// lowercased, in Unicode NFC: "Notes/ML Basics.md" has ID "notes/ml
// basics.md"; Path keeps the name as on disk. When paths look the same
// (both "Notes/A.md" and "notes/a.md" exist, possible on case-sensitive
// file systems, or a name composed and decomposed), the one already in the
// ID form gets that ID, or, when none is, the first in byte order; every
// other one gets its exact path as ID. IDs can therefore change when such a twin appears or goes; the
// mirror then deletes the old ID and writes the new one.
//
// Title is the frontmatter "title" when it is a non-empty string, else the
// file name without extension as written. Content is the body without the
// frontmatter block, with CRLF line endings turned into LF. Hash is the hex
// SHA-256 of the file's raw bytes. Keys (NoteKeys) are every folder suffix
// of the lowercased path without extension, in Unicode NFC: "a/b/c.md"
// answers to "a/b/c", "b/c" and "c".
//
// # Frontmatter
//
// YAML between a first line "---" and the next "---" or "..." line, at the
// very top of the file (a UTF-8 BOM and CRLF line endings are accepted;
// without a closing line it is body). YAML a strict parser rejects (such
// as "- @handle" or pattern: "\d+") does not cost the note: its body is
// indexed as usual, every top-level entry that parses alone is kept, the
// others are kept as raw text (a string, a "[a, b]" list, or "- item"
// lines), and each problem becomes a warning "notes/x.md:3: frontmatter:
// <message>" naming the file and line (at most five per note).
//
// # Tags
//
// Frontmatter "tags" (or the older "tag"), as a list or as a string split
// at commas and blanks, with or without "#"; then inline #tags of the
// body. An inline tag starts with "#" at the start of a line or after a
// blank, so URL fragments (http://x/#frag), "a#b", headings' "# " and
// "\#" are not tags, nor is anything in code spans, fenced or indented
// code blocks, %% comments %%, <!-- HTML comments --> or links. Tag
// characters are letters of any script, marks, digits, "_", "-" and "/"
// (nesting: #a/b); a tag made only of digits (#123) is not a tag. Tags are
// de-duplicated case-insensitively keeping the first spelling (frontmatter
// first). A dropped duplicate gives "Duplicate tag ignored: <tag>" when it
// was listed twice in the frontmatter or is spelled differently (#ML after
// #ml); repeating an inline tag, or a frontmatter tag in the body, exactly
// as written is ordinary use and silent.
//
// # Links
//
// Wikilinks [[target]], [[target|alias]], [[target#heading]],
// [[target#^block]] (Heading keeps the "^"), embeds ![[...]], "\|" for the
// pipe inside tables, on one line. [[#heading]] is a link within the note
// and not a graph link. Markdown links [text](dest) and ![text](dest) are
// links when the destination is local: no URL scheme (http:, mailto:,
// obsidian:, C:), not "//host", not "#anchor", not an attachment, not a
// folder ("x/"). Its path (before "?" and "#") is URL-decoded, in <angle
// brackets> or not, with or without ".md"; a title ([x](a.md "t")) is
// not part of it; "#heading" and "#^block" become the Heading. Both kinds
// are then resolved alike (Resolution). Reference-style markdown links
// are not read.
//
// Attachments and canvases are nodes (issue 45.2, filenode.go): a file
// whose extension core.KindOf knows (images, audio, video, .pdf, .canvas,
// office documents, .txt, .json, .csv, ...) is walked, watched and stored
// like a note, with the same ID rule and keys that keep the extension
// ("img/pic.png", "pic.png"), so ![[pic.png]], [[doc.pdf]] and
// ![](../img/pic.png) resolve to it by the one resolver, and one to a
// missing file is unresolved. An attachment is not read (its "hash" is its
// size, mtime and inode); a canvas's file cards and the links of its text
// cards are its links. Any other dot belongs to the note name ([[v1.2]]).
// Links inside code (spans and blocks) and comments are not links.
// Wikilinks in frontmatter values (owner: "[[Ada]]") are links, as in
// Obsidian's properties, and come first. Duplicates are kept, in document
// order.
//
// A link's Key (LinkKey, linkKeyIn) is its target (a markdown link's
// decoded path) lowercased, without a leading "/" and without ".md", in
// NFC; "\" is never a separator. A target starting with "./" or "../" is
// relative to the linking note's folder: its key is the vault path it
// names ([[../B/Dup]] in "a/x.md" has the key "b/dup"; one that climbs
// above the root answers to no note).
//
// # Resolution
//
// One rule for every link form, as Obsidian's getFirstLinkpathDest: among
// the notes having the key (a folder suffix of their path), a link
// resolves to the note whose path without extension equals its key when
// there is one; otherwise to one in the linking note's own folder;
// otherwise to the shortest path, then the first by lowercased path in
// byte order (case twins: the all-lowercase one first). So [[Note]],
// [x](Note.md) and [x](Note) find "Note.md" by name from any folder,
// [x](Folder/Note%20Name.md) and [x](/Folder/Note%20Name.md) find the note
// at that vault path, and [x](./Sib.md), [[../B/Dup]] the note at that
// path relative to the linking note.
// Unresolved links are kept with Target "" and are a problem "Broken link:
// [[x]]", x being the target as written (see Lint).
//
// # Sync and live mode
//
// Mirror keeps an index of the vault in memory (paths, IDs, hashes,
// links; not bodies) and decides from it what a change affects: when a
// note appears, moves or goes, every note with a link on one of its keys
// is resolved again and written if a target changed. Sync and Watch
// describe the rest. A failing store never stops the mirror: changes stay
// queued (coalesced per note) and are retried with backoff. Problems of
// notes go to the Lint registry and the log; a tool call's own go to its
// core.CallWarnings.
//
// # Writes
//
// Every file operation goes through a confine.Root on the vault: nothing
// a client sends and nothing swapped for a symbolic link mid-operation
// makes it act outside (package confine). Writer writes new files
// atomically (a temporary file renamed into place without replacing) and
// changes existing ones by compare-and-swap, re-applying its change when
// an editor changed the note meanwhile (Writer). The index and the store
// are updated in the same call. Client paths go through CleanPath: no
// "..", no absolute paths, no NUL or control characters, no backslashes,
// no hidden names, no ignored paths, no symbolic link and no file along
// the path; new names follow core.CheckNewName; refusals wrap
// core.ErrInvalidPath. Notes created or renamed from a title are named
// after it as Obsidian does (TitleFileName; Config.FileNames "slug":
// SanitizeTitle) and keep the exact title in frontmatter when the name
// does not show it; a note created without a folder goes where the
// vault's Obsidian settings put new notes (newFileLocation,
// newFileFolderPath). A delete follows the vault's Obsidian setting for deleted
// files (.obsidian/app.json trashOption): the note moves to the vault's
// .trash folder ("system", the default, and "local") or is deleted
// ("none"); a delete by ID (delete_node) then removes the folders it left
// empty. Writes that add, move or delete a note keep the meaning of
// every other link (linkplan.go); a rename is journaled (journal.go). A link
// rewritten to follow its note keeps its form: a markdown link stays one,
// URL-escaped as it was (or in <>), with its text, heading and title; a
// relative link stays relative, a "/" link stays so, ".md" stays or stays
// away; a link by name gets the shortest text that finds the note.
package vault
