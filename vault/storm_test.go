package vault

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/memstore"
)

// TestLiveFolderStormConverges renames and swaps folders while notes in
// them are written and deleted, with a debounce short enough that bursts
// end between the steps of one swap, then checks that the store converges
// to a fresh sync of the final vault (no periodic rescan to hide a missed
// event). Rule: after any sequence of file events, the live store holds
// exactly the vault's notes with their current content.
func TestLiveFolderStormConverges(t *testing.T) {
	rounds := 20
	if testing.Short() {
		rounds = 3
	}
	for round := range rounds {
		t.Run(fmt.Sprint(round), func(t *testing.T) {
			seed := uint64(time.Now().UnixNano())
			rng := rand.New(rand.NewPCG(seed, uint64(round)))
			files := map[string]string{}
			folders := []string{"s/a", "s/b", "s/c"}
			for _, d := range folders {
				for i := range 5 {
					files[fmt.Sprintf("%s/n%d.md", d, i)] = "v0"
				}
			}
			root := writeVault(t, files)
			store := memstore.New()
			m := newTestMirror(t, root, store, func(c *Config) {
				c.Debounce = time.Millisecond
				c.MaxWait = 3 * time.Millisecond
				c.ReconcileInterval = -1
			})
			startWatch(t, m)
			mv := func(from, to string) {
				require.NoError(t, os.Rename(filepath.Join(root, from), filepath.Join(root, to)))
			}
			for k := 1; k <= 300; k++ {
				d := folders[rng.IntN(len(folders))]
				i := rng.IntN(5)
				switch p := rng.IntN(100); {
				case p < 60:
					writeFile(t, root, fmt.Sprintf("%s/n%d.md", d, i), fmt.Sprintf("v%d", k))
				case p < 75:
					_ = os.Remove(filepath.Join(root, d, fmt.Sprintf("n%d.md", i)))
				case p < 90:
					j := rng.IntN(len(folders))
					if folders[j] == d {
						continue
					}
					tmp := fmt.Sprintf("s/t%d", k)
					mv(d, tmp)
					mv(folders[j], d)
					mv(tmp, folders[j])
				default:
					to := fmt.Sprintf("s/f%d", k)
					mv(d, to)
					folders[slices.Index(folders, d)] = to
				}
				if rng.IntN(4) == 0 {
					time.Sleep(time.Duration(rng.IntN(3000)) * time.Microsecond)
				}
			}
			ref := memstore.New()
			_, err := newTestMirror(t, root, ref).Sync(t.Context())
			require.NoError(t, err)
			want, err := ref.NoteHashes(t.Context(), testProject)
			require.NoError(t, err)
			var got map[string]string
			deadline := time.Now().Add(liveDeadline)
			for {
				got, err = store.NoteHashes(t.Context(), testProject)
				require.NoError(t, err)
				if maps.Equal(got, want) || time.Now().After(deadline) {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			if !maps.Equal(got, want) {
				var extra, missing, differ []string
				for id, h := range got {
					if w, ok := want[id]; !ok {
						extra = append(extra, id)
					} else if w != h {
						differ = append(differ, id)
					}
				}
				for id := range want {
					if _, ok := got[id]; !ok {
						missing = append(missing, id)
					}
				}
				// What the index holds for each differing note, beside the
				// file: tells a missed event (old size or mtime) from a
				// read judged safe too soon (the file's size and mtime).
				m.mu.Lock()
				for _, id := range differ {
					e := m.idx.byID[id]
					fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(id)))
					if e != nil && err == nil {
						data, _ := os.ReadFile(filepath.Join(root, filepath.FromSlash(id)))
						t.Logf("%s: file %q size %d mtime %s; index path %s hash==file %v size %d mtime %s racy %v",
							id, data, fi.Size(), fi.ModTime().Format(time.RFC3339Nano), e.path, e.hash == hashOf(data), e.size,
							e.mtime.Format(time.RFC3339Nano), e.racy)
					}
				}
				m.mu.Unlock()
				t.Fatalf("seed %d: the store did not converge: extra %v, missing %v, content differs %v", seed, extra, missing, differ)
			}
		})
	}
}
