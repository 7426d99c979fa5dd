package neo4jstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
)

// noteStateDoc is the state property of a note: what core.NoteStates
// returns besides the hash and targets, apart from doc so that reading the
// states of a project does not read its notes' content. Its fields share
// noteDoc's names, so a note written before states existed is read from
// its doc (Size then missing: unknown, and the vault reads that file).
type noteStateDoc struct {
	Rev     string          `json:"rev"`
	Path    string          `json:"path"`
	Size    *int64          `json:"size,omitempty"`
	ModTime time.Time       `json:"mtime"`
	Links   []stateLinkJSON `json:"links,omitempty"`
}

// stateLinkJSON is a link as noteStateDoc keeps it: what was written and
// its key, with linkRecord's names.
type stateLinkJSON struct {
	Raw string `json:"raw,omitempty"`
	Key string `json:"key,omitempty"`
}

func stateLinks(links []core.Link) []stateLinkJSON {
	out := make([]stateLinkJSON, len(links))
	for i, l := range links {
		out[i] = stateLinkJSON{Raw: l.Raw, Key: l.Key}
	}
	return out
}

// NoteStates implements core.NoteStateReader: one statement returning each
// note's hash, targets and state property (its doc when it has none).
func (s *Neo4jStore) NoteStates(ctx context.Context, project string, fn func(core.NoteState) error) error {
	var states []core.NoteState
	err := s.read(ctx, "note states", func(t txn) error {
		records, err := t.collect(stmtReadStates, map[string]any{"project": project})
		if err != nil {
			return err
		}
		states = states[:0]
		for _, r := range records {
			st, err := decodeState(r.Values[0], r.Values[1], r.Values[2], r.Values[3])
			if err != nil {
				return err
			}
			states = append(states, st)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, st := range states {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(st); err != nil {
			return err
		}
	}
	return nil
}

// decodeState turns a note's id, hash, state (or doc) and targets into its
// state; errTorn when state and targets come from different writes.
func decodeState(id, hash, stateValue, targetsValue any) (core.NoteState, error) {
	raw, targets := str(stateValue), strs(targetsValue)
	if raw == "" || len(targets) == 0 {
		return core.NoteState{}, errTorn // created between the match and the read of its properties
	}
	var d noteStateDoc
	if err := json.Unmarshal([]byte(raw), &d); err != nil {
		return core.NoteState{}, fmt.Errorf("decode state of note %v: %w", id, err)
	}
	if d.Rev != targets[0] || len(targets)-1 != len(d.Links) {
		return core.NoteState{}, errTorn
	}
	st := core.NoteState{ID: str(id), Path: d.Path, Hash: str(hash), Size: -1, ModTime: d.ModTime}
	if d.Size != nil {
		st.Size = *d.Size
	}
	if len(d.Links) > 0 {
		st.Links = make([]core.Link, len(d.Links))
		for i, l := range d.Links {
			st.Links[i] = core.Link{Raw: l.Raw, Key: l.Key, Target: targets[i+1]}
		}
	}
	return st, nil
}
