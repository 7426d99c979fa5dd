package graph

import "github.com/vaultgraph/vaultgraph/core"

// LinkInfo is a link with its target's title (spec 000).
type LinkInfo = core.LinkInfo

// NodeResponse is a node as spec 000 shapes it.
type NodeResponse struct {
	ID      string     `json:"id"`
	Title   string     `json:"title"`
	Content string     `json:"content"` // may end in "... [truncated]"
	Tags    []string   `json:"tags"`
	Links   []LinkInfo `json:"links"` // outgoing, with resolved titles
	// Type and MIME mark a node that is not a note: "attachment" or
	// "canvas" and the file's MIME type (issue 45.2). A note has neither,
	// so its shape is spec 000's exactly (docs/DECISIONS.md).
	Type string `json:"type,omitempty"`
	MIME string `json:"mime,omitempty"`
	// Unresolved are the node's links to nothing, as written (get_node's
	// node only; left out when none).
	Unresolved []string `json:"unresolved,omitempty"`
}

// NeighborResponse is a neighbour inside a get_node depth 1 answer. The
// spec asks to tell incoming from outgoing neighbours; vaultgraph marks
// each with its direction (option 2 of the spec).
type NeighborResponse struct {
	NodeResponse
	Direction core.Direction `json:"direction"` // "in" or "out"
}

// NodeWithContextResponse is get_node's answer at depth 1.
type NodeWithContextResponse struct {
	NodeResponse
	IncomingCount int                `json:"incomingCount"` // distinct nodes linking to this node
	OutgoingCount int                `json:"outgoingCount"` // distinct nodes this node links to
	Neighbors     []NeighborResponse `json:"neighbors"`     // up to 20, outgoing first
}

// SearchResultResponse is one search hit.
type SearchResultResponse struct {
	NodeResponse
	Score float64 `json:"score"` // 0-1, higher = more similar
}

// HubResponse is one get_hubs entry.
type HubResponse struct {
	ID    string  `json:"id"`
	Title string  `json:"title"`
	Score float64 `json:"score"` // the metric's value
	// Type marks a hub that is not a note, as NodeResponse's does: an
	// image many notes embed is a hub too.
	Type string `json:"type,omitempty"`
}

// PathResponse is find_path's answer.
type PathResponse struct {
	Path   []string `json:"path"`   // [source, ...intermediates, target]
	Length int      `json:"length"` // len(path) - 1, the number of edges
}

// DeleteResponse is delete_node's answer.
type DeleteResponse struct {
	Deleted bool `json:"deleted"`
}

// UpdateResponse is update_node's answer: the updated node and, when the
// title changed, what the rename rewrote.
type UpdateResponse struct {
	NodeResponse
	Renamed *RenameResponse `json:"renamed,omitempty"`
}

// CreateResponse is create_node's answer: the created node and, when the
// create rewrote other notes so that no link changes meaning (a bare link
// the new note would have taken over is written longer), those notes by
// ID with how many of their links changed (issue 45.5). Without such
// notes the answer is exactly spec 000's NodeResponse.
type CreateResponse struct {
	NodeResponse
	Relinked []RelinkedResponse `json:"relinked,omitempty"`
}

// RenameResponse reports a rename done by update_node: the node's ID
// changed from From to To, and FilesChanged other notes were rewritten so
// that their LinksChanged links still point at it.
type RenameResponse struct {
	From         string `json:"from"`
	To           string `json:"to"`
	FilesChanged int    `json:"filesChanged"`
	LinksChanged int    `json:"linksChanged"`
	// Relinked are the other notes the rename rewrote, by ID, with how
	// many of their links changed each.
	Relinked []RelinkedResponse `json:"relinked"`
}

// RelinkedResponse is a note a write rewrote so that its links keep
// their meaning.
type RelinkedResponse struct {
	ID    string `json:"id"`
	Links int    `json:"links"`
}

// relinkedResponse lists r's rewritten notes ([] when none).
func relinkedResponse(r []core.Relinked) []RelinkedResponse {
	out := make([]RelinkedResponse, 0, len(r))
	for _, n := range r {
		out = append(out, RelinkedResponse{ID: n.ID, Links: n.Links})
	}
	return out
}

// kindOf is the type an answer gives the node id: "" for a note (spec
// 000's shape), "attachment" or "canvas" otherwise.
func kindOf(id string) string {
	if k := core.KindOf(id); k != core.KindNote {
		return string(k)
	}
	return ""
}

func nodeResponse(v core.NodeView) NodeResponse {
	tags, links := v.Tags, v.Links
	if tags == nil {
		tags = []string{}
	}
	if links == nil {
		links = []LinkInfo{}
	}
	r := NodeResponse{ID: v.ID, Title: v.Title, Content: v.Content, Tags: tags, Links: links, Unresolved: v.Unresolved}
	if r.Type = kindOf(v.ID); r.Type != "" {
		r.MIME = core.MIMETypeOf(v.ID)
	}
	return r
}

func nodeResponses(vs []core.NodeView) NodeList {
	out := make(NodeList, len(vs))
	for i, v := range vs {
		out[i] = nodeResponse(v)
	}
	return out
}
