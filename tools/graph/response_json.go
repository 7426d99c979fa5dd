package graph

import "github.com/vaultgraph/vaultgraph/tools"

// The read tools' answers encode themselves (tools.JSONAppender): they are
// mostly note content, and encoding/json's reflection over them was a
// third of a get_node depth=1 call. Each method writes exactly what
// encoding/json writes for the type (response_json_test.go compares them
// byte for byte), so the answers do not depend on which path encoded them.

// nodeAnswer is a NodeResponse that encodes itself. NodeResponse has no
// AppendJSON of its own because the types embedding it would inherit it
// and lose their other fields (UpdateResponse's renamed, a search hit's
// score).
type nodeAnswer NodeResponse

// AppendJSON implements tools.JSONAppender.
func (r nodeAnswer) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst = (*NodeResponse)(&r).appendFields(dst)
	return append(dst, '}')
}

// appendFields appends the members of r, without braces, for the types
// that embed it.
func (r *NodeResponse) appendFields(dst []byte) []byte {
	dst = append(dst, `"id":`...)
	dst = tools.AppendJSONString(dst, r.ID)
	dst = append(dst, `,"title":`...)
	dst = tools.AppendJSONString(dst, r.Title)
	dst = append(dst, `,"content":`...)
	dst = tools.AppendJSONString(dst, r.Content)
	dst = append(dst, `,"tags":`...)
	dst = tools.AppendJSONStrings(dst, r.Tags)
	dst = append(dst, `,"links":`...)
	dst = appendLinks(dst, r.Links)
	if r.Type != "" {
		dst = append(dst, `,"type":`...)
		dst = tools.AppendJSONString(dst, r.Type)
	}
	if r.MIME != "" {
		dst = append(dst, `,"mime":`...)
		dst = tools.AppendJSONString(dst, r.MIME)
	}
	if len(r.Unresolved) > 0 {
		dst = append(dst, `,"unresolved":`...)
		dst = tools.AppendJSONStrings(dst, r.Unresolved)
	}
	return dst
}

func appendLinks(dst []byte, links []LinkInfo) []byte {
	if links == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, l := range links {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"id":`...)
		dst = tools.AppendJSONString(dst, l.ID)
		dst = append(dst, `,"title":`...)
		dst = tools.AppendJSONString(dst, l.Title)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// AppendJSON implements tools.JSONAppender.
func (r NeighborResponse) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst = r.appendFields(dst)
	dst = append(dst, `,"direction":`...)
	dst = tools.AppendJSONString(dst, string(r.Direction))
	return append(dst, '}')
}

// AppendJSON implements tools.JSONAppender.
func (r NodeWithContextResponse) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst = r.appendFields(dst)
	dst = append(dst, `,"incomingCount":`...)
	dst = tools.AppendJSONInt(dst, r.IncomingCount)
	dst = append(dst, `,"outgoingCount":`...)
	dst = tools.AppendJSONInt(dst, r.OutgoingCount)
	dst = append(dst, `,"neighbors":`...)
	if r.Neighbors == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i := range r.Neighbors {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = r.Neighbors[i].AppendJSON(dst)
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// NodeList is a list of nodes as get_neighbors and search_by_tags answer it.
type NodeList []NodeResponse

// AppendJSON implements tools.JSONAppender.
func (l NodeList) AppendJSON(dst []byte) []byte {
	if l == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i := range l {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '{')
		dst = l[i].appendFields(dst)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}
