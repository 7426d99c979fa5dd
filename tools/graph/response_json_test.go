package graph

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/tools"
)

// encodingJSON is tools.StdJSON(v), failing the test on an error.
func encodingJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := tools.StdJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var texts = []string{"", "a.md", `q"uote`, "back\\slash", "nl\n", "<&>", "日本\u2028", "bad\xff", "#tag"}

func randomText(rng *rand.Rand) string {
	var sb strings.Builder
	for range rng.IntN(4) {
		sb.WriteString(texts[rng.IntN(len(texts))])
	}
	return sb.String()
}

func randomStrings(rng *rand.Rand) []string {
	if rng.IntN(5) == 0 {
		return nil
	}
	ss := make([]string, rng.IntN(4))
	for i := range ss {
		ss[i] = randomText(rng)
	}
	return ss
}

func randomNode(rng *rand.Rand) NodeResponse {
	n := NodeResponse{ID: randomText(rng), Title: randomText(rng), Content: randomText(rng), Tags: randomStrings(rng)}
	if rng.IntN(5) > 0 {
		n.Links = make([]LinkInfo, rng.IntN(4))
		for i := range n.Links {
			n.Links[i] = LinkInfo{ID: randomText(rng), Title: randomText(rng)}
		}
	}
	if rng.IntN(3) == 0 { // a node that is not a note, or has unresolved links
		n.Type, n.MIME, n.Unresolved = randomText(rng), randomText(rng), randomStrings(rng)
	}
	return n
}

func randomContext(rng *rand.Rand) NodeWithContextResponse {
	r := NodeWithContextResponse{NodeResponse: randomNode(rng), IncomingCount: rng.IntN(1000), OutgoingCount: rng.IntN(3)}
	if rng.IntN(5) > 0 {
		r.Neighbors = make([]NeighborResponse, rng.IntN(4))
		for i := range r.Neighbors {
			r.Neighbors[i] = NeighborResponse{NodeResponse: randomNode(rng), Direction: core.DirectionIn}
			if rng.IntN(2) == 0 {
				r.Neighbors[i].Direction = core.DirectionOut
			}
		}
	}
	return r
}

// Every answer type that encodes itself writes what encoding/json writes
// for it, byte for byte: nil lists as null, awkward text escaped alike.
func TestResponsesEncodeAsEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		var list NodeList
		if rng.IntN(5) > 0 {
			list = make(NodeList, rng.IntN(4))
			for i := range list {
				list[i] = randomNode(rng)
			}
		}
		ctx := randomContext(rng)
		node := randomNode(rng)
		values := []any{nodeAnswer(node), ctx, list,
			// Types that embed NodeResponse must not inherit an encoding
			// that drops their own fields.
			node, UpdateResponse{NodeResponse: node, Renamed: &RenameResponse{From: "a", To: "b"}},
			SearchResultResponse{NodeResponse: node, Score: 0.5}}
		for _, n := range ctx.Neighbors {
			values = append(values, n)
		}
		for _, value := range values {
			v, ok := value.(tools.JSONAppender)
			if !ok {
				continue
			}
			got, want := v.AppendJSON(nil), encodingJSON(t, v)
			if !bytes.Equal(got, want) {
				t.Fatalf("%T:\n got %s\nwant %s", v, got, want)
			}
			if text, raw := tools.EncodeJSON(v); text != string(want) || !bytes.Equal(raw, want) {
				t.Fatalf("%T through EncodeJSON:\n got %s\nwant %s", v, raw, want)
			}
		}
	}
}
