// Package kb is the knowledge-base toolset (spec 002): list_knowledge_bases,
// add_knowledge_base, update_knowledge_base,
// add_knowledge_base_folder_constraint, create_note, update_note,
// append_note, move_note, delete_note, read_note, list_notes and
// validate_note, over the domain service of package
// github.com/vaultgraph/vaultgraph/kb (imported here as kbase).
//
// Each tool has a spec file (name, description, input schema, annotations)
// and a handler file (decode, one call to the service, shape the answer).
// Failures are tool results with isError set whose text is the spec's
// envelope {"error": {"code", "message", ...}}; folder_constraint_violation
// adds "constraint" and "issues", version_conflict adds "current_version".
// Arguments that do not satisfy a tool's input schema are
// schema_validation_failed (the spec has no separate code for them), and
// failures the caller cannot fix (file system, cancelled request) are
// provider_error, their cause logged and never shown.
package kb
