// Package view is vaultgraph's web view of a vault: a page served by the
// binary itself (every asset embedded, no CDN) that draws the whole note
// graph, focuses on a note's neighbourhood with the note rendered as
// markdown, searches, highlights paths, filters by tag, and follows edits
// live through server-sent events.
//
// It reads what the tools read, through the same contracts: the store's
// core.GraphReader (NoteStates for the overview's notes and links,
// GetNotes for titles and tags, NoteContext for neighbourhoods,
// KeywordSearch when no embedder is configured) and core.GraphService
// (search, find_path, update). It keeps no graph logic of its own beyond
// what drawing needs: positions (a force layout computed once, kept in a
// cache file beside the store and extended as notes change) and the
// in-degree and PageRank it sizes nodes by (core.PageRankScores, the
// function both stores rank hubs with).
//
// Changes reach it from the store the vault mirror writes through (Store
// wraps it, as resources.Changes does), so an edit on disk, a tool's write,
// a rename and a delete are all seen.
//
// Authentication: a browser cannot send a bearer header, so a token (the
// same tokens as /mcp, through a login form) or a one-time link opens a
// session held in an HttpOnly, SameSite=Strict cookie; a read-only token
// opens a read-only session. See docs/DECISIONS.md ("The web view").
package view
