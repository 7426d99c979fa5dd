package view

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/json"
	"math"
	"slices"
)

// DefaultOverviewMax is how many notes the overview draws unless the page
// asks for more: the most central ones by PageRank, with the links among
// them. A 100k-note vault is drawn as its 20,000 most central notes, the
// rest reachable by search and focus (each neighbourhood is read from the
// store, whole); 20,000 nodes and their links stay smooth on the canvas
// fallback too, and the page weighs a fifth.
const DefaultOverviewMax = 20000

// overviewJSON is the overview as the page receives it: parallel arrays
// (a few hundred kilobytes for thousands of notes, where one object per
// note would be twice that) over the notes shown, numbered 0..shown-1.
type overviewJSON struct {
	Rev     uint64   `json:"rev"`
	Total   int      `json:"total"`   // notes in the vault
	Shown   int      `json:"shown"`   // notes drawn
	Laying  bool     `json:"laying"`  // a full layout runs: positions are provisional
	Folders []string `json:"folders"` // top folders, most notes first ("" = the vault's root)
	Tags    []string `json:"tags"`    // tags, most notes first

	IDs      []string  `json:"ids"`
	Titles   []string  `json:"titles"`
	Folder   []int32   `json:"folder"` // index into Folders
	NoteTags [][]int32 `json:"noteTags"`
	X        []float32 `json:"x"`
	Y        []float32 `json:"y"`
	In       []int32   `json:"in"`   // distinct in-degree in the whole vault
	Out      []int32   `json:"out"`  // distinct out-degree in the whole vault
	Rank     []float32 `json:"rank"` // PageRank in the whole vault
	Edges    []int32   `json:"edges"`

	Ghosts     []string  `json:"ghosts"` // keys of unresolved links from the notes shown
	GhostX     []float32 `json:"ghostX"`
	GhostY     []float32 `json:"ghostY"`
	GhostEdges []int32   `json:"ghostEdges"` // pairs (note, ghost)
}

// overview returns the overview of at most max notes (0: all), gzipped,
// built once per revision and size.
func (v *View) overview(max int) []byte {
	s := v.snapshot()
	v.mu.Lock()
	if v.snap == s && v.overviews[max] != nil {
		b := v.overviews[max]
		v.mu.Unlock()
		return b
	}
	laying := v.laying
	// Positions are read from the nodes, which change under the lock.
	o := buildOverview(s, max, laying)
	v.mu.Unlock()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	_ = json.NewEncoder(zw).Encode(o) // the view's own types, no NaN (finite32)
	_ = zw.Close()
	b := buf.Bytes()
	v.mu.Lock()
	if v.snap == s {
		if v.overviews == nil {
			v.overviews = map[int][]byte{}
		}
		v.overviews[max] = b
	}
	v.mu.Unlock()
	return b
}

// buildOverview picks the notes shown (all, or the max most central) and
// lays the arrays out; call it under the view's lock (positions).
func buildOverview(s *snapshot, max int, laying bool) *overviewJSON {
	n := len(s.nodes)
	shown := make([]int32, 0, n)
	for i := range s.nodes {
		shown = append(shown, int32(i))
	}
	if max > 0 && n > max {
		slices.SortFunc(shown, func(a, b int32) int {
			return cmp.Or(cmp.Compare(s.rank[b], s.rank[a]), cmp.Compare(a, b))
		})
		shown = shown[:max]
		slices.Sort(shown)
	}
	pos := make([]int32, n) // note index -> position in shown, or -1
	for i := range pos {
		pos[i] = -1
	}
	for k, i := range shown {
		pos[i] = int32(k)
	}
	o := &overviewJSON{Rev: s.rev, Total: n, Shown: len(shown), Laying: laying, Folders: s.folders, Tags: s.tags,
		IDs: make([]string, len(shown)), Titles: make([]string, len(shown)), Folder: make([]int32, len(shown)),
		NoteTags: make([][]int32, len(shown)), X: make([]float32, len(shown)), Y: make([]float32, len(shown)),
		In: make([]int32, len(shown)), Out: make([]int32, len(shown)), Rank: make([]float32, len(shown)),
		Edges: []int32{}, Ghosts: []string{}, GhostX: []float32{}, GhostY: []float32{}, GhostEdges: []int32{}}
	for k, i := range shown {
		nd := s.nodes[i]
		o.IDs[k], o.Titles[k], o.Folder[k] = nd.ID, nd.Title, s.folderOf[i]
		o.NoteTags[k] = s.tagsOf[i]
		if o.NoteTags[k] == nil {
			o.NoteTags[k] = []int32{}
		}
		o.X[k], o.Y[k] = finite32(nd.X), finite32(nd.Y)
		o.In[k], o.Out[k], o.Rank[k] = s.in[i], s.out[i], float32(s.rank[i])
	}
	for e := 0; e < len(s.edges); e += 2 {
		a, b := pos[s.edges[e]], pos[s.edges[e+1]]
		if a >= 0 && b >= 0 {
			o.Edges = append(o.Edges, a, b)
		}
	}
	// Ghosts sit by the notes that link them.
	gpos := map[int32]int32{}
	var sx, sy []float64
	var cnt []int
	for e := 0; e < len(s.gEdges); e += 2 {
		a, g := pos[s.gEdges[e]], s.gEdges[e+1]
		if a < 0 {
			continue
		}
		k, ok := gpos[g]
		if !ok {
			k = int32(len(o.Ghosts))
			gpos[g] = k
			o.Ghosts = append(o.Ghosts, s.ghosts[g])
			sx, sy, cnt = append(sx, 0), append(sy, 0), append(cnt, 0)
		}
		sx[k] += float64(o.X[a])
		sy[k] += float64(o.Y[a])
		cnt[k]++
		o.GhostEdges = append(o.GhostEdges, a, k)
	}
	for k, key := range o.Ghosts {
		jx, jy := jitter("ghost:" + key)
		o.GhostX = append(o.GhostX, finite32(sx[k]/float64(cnt[k])+jx*4))
		o.GhostY = append(o.GhostY, finite32(sy[k]/float64(cnt[k])+jy*4))
	}
	return o
}

// finite32 is f as a float32 JSON can carry (a broken position is 0).
func finite32(f float64) float32 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return float32(f)
}
