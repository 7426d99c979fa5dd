// Package kb is the domain of the knowledge-base toolset (spec 002):
// knowledge bases inside a vault, folder constraints, and note writes
// checked against them. It knows no MCP; tools/kb shapes its results.
//
// # API
//
//	svc, err := kb.New(kb.Config{Root: vaultDir, Files: mirror.Writer(), Logger: logger})
//	defer svc.Close() // the handle on the vault folder
//	list, err := svc.ListKnowledgeBases(ctx)
//	res, err := svc.CreateNote(ctx, "ai-research", "papers/2025-12-10-x.md", content)
//
// CheckNoteWrite is the folder constraint check for other writers (the
// graph tools): give it to the vault writer with WithCheck.
//
// Failures a caller can act on are *Error with a spec code (Code*
// constants); anything else is a plain error (file system, cancelled
// context).
//
// # Storage (compatible with the Obsidian plugin that defined spec 002)
//
// A knowledge base lives in .llm_bridges/knowledge_base/{name}/meta.md:
// frontmatter create_time, description, subfolder; the body is the
// organization rules. Folder constraints live in
// .llm_bridges/knowledge_base/{name}/folder_constraints/*.md: a frontmatter
// subfolder and the rules as the first ```yaml fenced block. New
// constraint files are named after their folder as the plugin names them
// ("research/ai/papers" → research_ai_papers.md; a hash when no ASCII
// letter or digit remains, or when the name is taken). The files are read
// on every call, so the plugin's and a person's edits count at once.
//
// Reading is lenient: the plugin writes regular expressions raw between
// double quotes (pattern: "^\d{4}$"), which strict YAML refuses. When a
// file does not parse, each double-quoted scalar that YAML refuses alone
// is taken literally between its quotes, as the plugin reads it, and the
// file is parsed again; scalars YAML accepts keep their YAML meaning (a
// properly escaped "^\\d{4}$" is ^\d{4}$ as well). meta.md frontmatter
// falls back to the plugin's own key: value reader. Leading and trailing
// "/" of a stored subfolder are dropped, as the plugin does.
//
// Writing produces valid YAML that the plugin's line-based reader reads
// back to the same values: strings double-quoted when nothing needs
// escaping (what the plugin writes), else single-quoted, else (line
// breaks, control characters) double-quoted with escapes; regular
// expressions always single-quoted; field names plain where YAML allows.
// The rules block lists the frontmatter section last, because the
// plugin's reader drops the last required field when another section
// follows it. meta.md is rewritten whole, in the plugin's layout (other
// frontmatter keys are not kept). Every metadata write is atomic (a
// temporary file renamed into place).
//
// Every file operation of the package goes through a handle on the vault
// folder that New opens and Close releases (package confine): metadata
// reads and writes, the folders it creates or removes, list_notes' walk.
// Each path is walked from that handle one name at a time without
// following a symbolic link, so nothing, not even a folder swapped for a
// link between a check and a write, makes it act outside the vault.
// Notes go through Files, the vault's writer, confined the same way.
//
// add_knowledge_base is all or nothing: it makes the folders first (the
// subfolder, then the knowledge base's own folder) and meta.md, which
// makes the knowledge base exist, last, never replacing one; when a step
// fails, the folders it made are removed again (when still empty), so
// nothing is registered and a retry works. update_knowledge_base makes a
// new subfolder before it rewrites meta.md, and removes it again if that
// fails.
//
// When .llm_bridges/knowledge_base/metadata.json (the plugin's list cache)
// exists, it is rewritten after every knowledge base change, because the
// plugin lists from it when it is not empty; it is not created when
// missing. Its other keys are kept. vaultgraph itself lists from meta.md.
//
// # Names and path frames
//
// Names the package creates (a knowledge base's name, the folders of a
// subfolder, a constraint's subfolder, the folders and file name of a
// note it creates or moves) follow core.CheckNewName, the rule of every
// toolset: not empty, no leading dot or blank, no trailing blank or dot,
// no control or text-direction characters, none of < > : " / \ | ? *, no
// name Windows reserves (CON, nul.md, COM1...), at most 255 bytes; they
// are created in Unicode NFC. A knowledge base name may not be
// "metadata.json" either (schema_validation_failed for a bad name,
// invalid_note_path for a bad path). add_knowledge_base refuses a name
// equal to an existing one ignoring letter case and Unicode form
// (knowledge_base_already_exists); a lookup takes the exact name first,
// else the one knowledge base whose name matches that way.
//
// Paths: a knowledge base's subfolder and a constraint's subfolder are
// vault-relative; note_path, origin_note_path, new_note_path and
// list_notes' subfolder filter are relative to the knowledge base's
// subfolder. Answers give vault-relative paths (as in the spec's
// examples). A note path must end in ".md" (any letter case). Refused
// with invalid_note_path everywhere: ".." segments, absolute paths
// (leading "/", "C:"), NUL and other control characters, backslashes (never
// a separator), names starting with "." (.llm_bridges, .obsidian, .trash:
// the vault does not index them), names over 255 bytes, and any existing
// symbolic link along the path (whether or not it leaves the vault: the
// vault neither follows nor indexes links). "" and "/" trailing or
// repeated separators are cleaned ("a//b/" is "a/b"). The vault's writer
// further refuses paths its ignore globs exclude and note names holding
// # ^ [ ] | (they would break wikilinks), also as invalid_note_path.
// note_not_found for a note_path that starts with the subfolder says to
// leave that prefix out. A path through an existing file
// ("Canvas.md/x.md", a subfolder that is a file) is invalid_note_path
// naming the file.
//
// Letter case and Unicode form: a note path may be given as the graph's
// IDs are (lowercased, NFC). Each folder is the one on disk: the exact
// name first, else the one folder matching it in letter case and Unicode
// form (several: invalid_note_path naming them); a folder to create is
// created only when none matches, so no twin folder appears. An existing
// note is the one the vault's writer finds (Files.NotePath: the exact
// path, else the one note matching it that way; several:
// invalid_note_path naming them). Validation and answers use the path as
// it is on disk. A new note whose path matches an existing note that way
// is note_already_exists naming it; move_note to another letter case of
// the note's own path renames it.
//
// Folder containment compares whole segments, ignoring letter case (one
// folder on case-insensitive file systems): "notesX" is not inside
// "notes", "Notes/a" is. Knowledge base subfolders may not overlap (one
// inside the other, the vault root "" containing all):
// subfolder_overlap. A constraint's subfolder must be the knowledge
// base's subfolder or lie inside it, else invalid_note_path (with a hint
// when the value looks knowledge-base-relative). add_knowledge_base (and
// update_knowledge_base) create the subfolder in the vault when missing,
// as the plugin does.
//
// update_knowledge_base changes only the fields given; create_time stays.
// A subfolder change moves no note and no constraint; the answer's notes
// say how many notes remain at the old place and which constraints now
// lie outside the knowledge base (they no longer apply). A call with no
// field changes nothing and says so in notes.
//
// # Which constraint applies
//
// The constraint of the deepest folder that contains the note decides
// (constraints outside the knowledge base are ignored); when several
// files declare that same folder, the note must pass all of them. No
// matching constraint: the note passes. Empty rules ({}) therefore exempt
// a folder from its parent's constraint. add_knowledge_base_folder_constraint
// for a folder that already has one replaces it: the first file declaring
// that folder gets the new rules, the others are removed.
//
// # Validation
//
// Rules are checked when the constraint is created: unknown keys, wrong
// types, an unknown field type, duplicate field names, a regular
// expression that does not compile (Go RE2 syntax: no lookaround or
// backreferences), allowed values that cannot have the field's type,
// negative lengths, min_length above max_length and empty section names
// are schema_validation_failed, each problem named, and nothing is
// stored. A constraint file on disk whose rules cannot be used (edited by
// hand) fails the note calls it applies to with schema_validation_failed
// naming the file, rather than letting notes through unchecked; a file
// without a readable subfolder is skipped and logged.
//
// Note checks, in rule order, all reported at once:
//   - frontmatter (the YAML between a first line "---" and the next "---"
//     or "..."; a BOM and CRLF are accepted): a required field that is
//     missing or null is missing_required_field. Types: string (a YAML
//     string; an unquoted date counts, as in the plugin), number, boolean,
//     date (a YAML timestamp, or a string holding a date: 2025-12-10,
//     RFC 3339 2025-12-10T14:30:00Z, or 2025-12-10T14:30[:00] and
//     "2025-12-10 14:30[:00]" without a zone), array.
//     A wrong type is invalid_field_type and skips the field's other
//     checks. pattern must match somewhere in the value's text (anchor
//     with ^ and $), allowed_values compares strings exactly, numbers by
//     value and booleans as booleans; for an array both apply to every
//     item ("frontmatter.tags[1]"). Frontmatter that is not valid YAML is
//     one invalid_frontmatter issue (only when fields are required);
//   - filename: the pattern is matched against the file name with its
//     extension ("2025-12-10-x.md");
//   - content: lengths count characters (Unicode code points) of the body
//     without the frontmatter, CRLF counted as one; required sections
//     match ATX (# to ######) and setext headings of any level, outside
//     fenced code, ignoring letter case and repeated blanks, whether the
//     rule says "Summary" or "## Summary".
//
// Every issue has field, error, expected, actual and message;
// pattern_mismatch also has pattern (the spec's example).
//
// # Writes, versions and concurrency
//
// Notes are read and written through Files, the vault's writer: each
// write replaces the file atomically and updates the graph store in the
// same call, so the graph tools see the change when the call returns
// (and the watcher later finds nothing to do). A note that fails
// validation is not written; a move that fails leaves the note where it
// was; create and move never replace a note (note_already_exists).
// move_note rewrites links of other notes to the moved note, as Obsidian
// does when it moves a file (links_updated in the answer). delete_note
// of a missing note is note_not_found (not idempotent), so a mistyped
// path is noticed. append_note adds "\n" and the text to the original.
//
// A note's version is the hex SHA-256 of its file's bytes, returned by
// read_note, create_note, update_note, append_note and validate_note.
// update_note's expected_version must equal it, else version_conflict
// (with current_version) and nothing is written; validation comes first,
// as the spec orders the steps. Writes of one note through the Service
// are serialised (a per-path lock) and every write is a compare-and-write
// against the version read, so of concurrent writers with the same
// expected_version exactly one wins, and a writer outside vaultgraph
// (an editor) is detected too: without expected_version the write is
// retried on the new content (up to three times), with it the answer is
// version_conflict.
//
// read_note pages by characters (code points) of the whole file,
// frontmatter included, never splitting a UTF-8 sequence: offset is
// where the page starts (clamped to the end), next_offset = offset +
// characters returned, has_more = next_offset < total, remaining_chars =
// total - next_offset. list_notes lists ".md" files (any letter case),
// sorted by path, leaving out hidden names and symbolic links, a page at a
// time: offset counts notes, limit is DefaultListLimit (500) unless given
// (at most MaxListLimit, 5000), and the answer says where the page lies
// (offset, next_offset, has_more, remaining_notes, total_notes). Its
// subfolder filter is relative to the knowledge base's subfolder; a
// filter written vault-relative (starting with that subfolder, when no
// such folder exists inside it) is invalid_note_path saying what to pass.
package kb
