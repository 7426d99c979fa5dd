package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/vaultgraph/vaultgraph/benchgen"
)

// editTimeout bounds how long one saved file may take to reach the store.
const editTimeout = 30 * time.Second

// measureEdits saves n notes of vault one after the other, each with a new
// inline tag appended, and measures from the write to the moment get_node
// through the running serve returns the tag: watcher, debounce, parse, store
// write and the read that sees it. The poll adds up to one get_node call to
// each figure. Notes are restored afterwards.
func measureEdits(ctx context.Context, s *server, vault string, m *benchgen.Manifest, n int, seed uint64) (latencies, error) {
	// Notes under 20 KB: the typical note an editor saves (and get_node
	// returns whole, so the poll stays cheap).
	var small []benchgen.Note
	for _, note := range m.Notes {
		if note.Size < 20<<10 {
			small = append(small, note)
		}
	}
	rng := rand.New(rand.NewPCG(seed, 11))
	rng.Shuffle(len(small), func(i, j int) { small[i], small[j] = small[j], small[i] })
	small = small[:min(n, len(small))]

	originals := make(map[string][]byte, len(small))
	defer func() {
		for p, data := range originals {
			_ = os.WriteFile(p, data, 0o644)
		}
	}()
	lat := make([]time.Duration, 0, len(small))
	for i, note := range small {
		p := filepath.Join(vault, filepath.FromSlash(note.Path))
		data, err := os.ReadFile(p)
		if err != nil {
			return latencies{}, err
		}
		originals[p] = data
		tag := fmt.Sprintf("vgbench-edit-%d", i)
		edited := append(slices.Clone(data), []byte("\n\nEdited by vgbench #"+tag+"\n")...)
		start := time.Now()
		if err := os.WriteFile(p, edited, 0o644); err != nil {
			return latencies{}, err
		}
		for {
			if hasTag(ctx, s, note.ID(), tag) {
				break
			}
			if time.Since(start) > editTimeout {
				return latencies{}, fmt.Errorf("save of %s did not reach the store within %s", note.Path, editTimeout)
			}
			time.Sleep(time.Millisecond)
		}
		lat = append(lat, time.Since(start))
	}
	return latencies{Calls: len(lat), P50: percentileMS(lat, 0.5), P95: percentileMS(lat, 0.95), P99: percentileMS(lat, 0.99)}, nil
}

// hasTag reports whether get_node returns the note with tag.
func hasTag(ctx context.Context, s *server, id, tag string) bool {
	text, _, err := callTool(ctx, s, "get_node", map[string]any{"id": id})
	if err != nil {
		return false
	}
	var node struct {
		Tags []string `json:"tags"`
	}
	if json.Unmarshal([]byte(text), &node) != nil {
		return false
	}
	return slices.Contains(node.Tags, tag)
}
