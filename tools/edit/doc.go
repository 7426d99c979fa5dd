// Package edit is the "edit" toolset: edit_note, one careful edit of one
// note (a section's lines, an exact text span, a frontmatter key) that
// returns a unified diff and the note's new version, and recent_changes,
// what changed in the vault lately, newest first. Both act in the primary
// project. Errors use spec 000's shape, {"error": {"code", "message"}}.
package edit
