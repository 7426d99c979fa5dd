package memstore

import (
	"encoding/json"
	"slices"
	"testing"
)

// vectorChunk.add reads the records json.Marshal writes in place and any
// other through json.Unmarshal: either way, what it gives must be what
// json.Unmarshal and decodeVector give.
func TestVectorChunkDecodesAsJSONDoes(t *testing.T) {
	marshal := func(sv storedVector) []byte {
		b, err := json.Marshal(sv)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	vec := encodeVector([]float32{0.5, -0.25, 1, 0})
	records := map[string][]byte{
		"written":              marshal(storedVector{Model: "builtin:static256", Hash: "3f2a9c", Vector: vec}),
		"no vector":            marshal(storedVector{Model: "m", Hash: "h"}),
		"empty strings":        marshal(storedVector{Vector: vec}),
		"escaped model":        marshal(storedVector{Model: "a<b>&\"c\\", Hash: "h", Vector: vec}),
		"non-ASCII hash":       marshal(storedVector{Model: "m", Hash: "hé", Vector: vec}),
		"odd vector length":    marshal(storedVector{Model: "m", Hash: "h", Vector: []byte{1, 2, 3}}),
		"spaces":               []byte(`{ "m": "m", "h": "h", "v": "` + string(marshal(storedVector{Vector: vec})[len(`{"m":"","h":"","v":"`):])),
		"keys in other order":  []byte(`{"h":"h","m":"m"}`),
		"null vector":          []byte(`{"m":"m","h":"h","v":null}`),
		"upper-case key":       []byte(`{"M":"m","h":"h"}`),
		"line break in base64": []byte(`{"m":"m","h":"h","v":"AAAA\nAAAA"}`),
		"escaped slash":        []byte(`{"m":"m","h":"h","v":"AAA\/AAAA"}`),
		"escaped letter":       []byte(`{"m":"m","h":"h","v":"\u0041AAAAAAA"}`),
	}
	for name, fast := range map[string]bool{"written": true, "no vector": true, "empty strings": true, "escaped model": false, "non-ASCII hash": false, "spaces": false} {
		if _, _, _, ok := splitStoredVector(records[name]); ok != fast {
			t.Errorf("%s: read in place %v, want %v", name, ok, fast)
		}
	}
	for name, rec := range records {
		var want storedVector
		if err := json.Unmarshal(rec, &want); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var c vectorChunk
		c.add("x", []byte(`{"m":"other","h":"other","v":"AAAAAA=="}`)) // a record before it in the chunk
		if err := c.add("id", rec); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		id, model, hash, got := c.entry(1)
		if id != "id" || model != want.Model || hash != want.Hash || !slices.Equal(got, decodeVector(want.Vector)) {
			t.Errorf("%s: got %q %q %q %v, want %q %q %v", name, id, model, hash, got, want.Model, want.Hash, decodeVector(want.Vector))
		}
		// A stale check's chunk reads the same model and hash, and no
		// vector.
		check := vectorChunk{checkOnly: true}
		if err := check.add("id", rec); err != nil {
			t.Fatalf("%s, check only: %v", name, err)
		}
		if _, model, hash, vec := check.entry(0); model != want.Model || hash != want.Hash || vec != nil {
			t.Errorf("%s, check only: got %q %q %v, want %q %q and no vector", name, model, hash, vec, want.Model, want.Hash)
		}
	}
	// What json.Unmarshal refuses, both refuse: a raw line break or CR
	// in the vector's string (the base64 decoder would skip it), a quote
	// in it, anything not base64.
	for _, bad := range []string{`{"m":"m","h":"h","v":"!!!!"}`, `{"m":"m"`, `[]`,
		"{\"m\":\"m\",\"h\":\"h\",\"v\":\"AAAA\nAAAA\"}", "{\"m\":\"m\",\"h\":\"h\",\"v\":\"AAAA\rAAAA\"}",
		`{"m":"m","h":"h","v":"AA"AA"}`, `{"m":"m","h":"h","v":"AAAA"AAAA"}`} {
		for _, checkOnly := range []bool{false, true} {
			c := vectorChunk{checkOnly: checkOnly}
			if err := c.add("id", []byte(bad)); err == nil {
				t.Errorf("%q (check only %v): no error", bad, checkOnly)
			}
		}
	}
}
