package memory_test

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/memory"
	"github.com/vaultgraph/vaultgraph/memstore"
)

// The analyses evaluation of docs/MEMORY.md ("Analyses"): the labelled
// pairs of memory/testdata/analyses.json, each stored alone (a, then b an
// hour later, same namespace and type) and put to the three analyses as
// they run by default. Re-run it with
//
//	go test ./memory -run TestAnalysesOnLabelledPairs -v
//
// (VAULTGRAPH_EVAL_* choose another embedder, as for the recall set).

type labelledPair struct {
	Label, Type, A, B string
}

// analysisLabels says, per analysis, which labels it should flag (true)
// and which it must not (false); a label missing is not counted.
var analysisLabels = map[string]map[string]bool{
	// Pairs that cannot both hold now: a contradiction, or an old value
	// next to its replacement.
	"memory_detect_contradictions": {"contradict": true, "supersede": true, "agree": false, "duplicate": false, "unrelated": false},
	// b replaces a. A contradicting pair is left out: whether the newer of
	// two opposite rules replaces the older is the user's call.
	"memory_check_supersedes": {"supersede": true, "agree": false, "duplicate": false, "unrelated": false},
	// The same statement twice: one can go.
	"memory_analyze_health duplicates": {"duplicate": true, "agree": false, "contradict": false, "supersede": false, "unrelated": false},
}

var analysisNames = []string{"memory_detect_contradictions", "memory_check_supersedes", "memory_analyze_health duplicates"}

func TestAnalysesOnLabelledPairs(t *testing.T) {
	raw, err := os.ReadFile("testdata/analyses.json")
	require.NoError(t, err)
	var set struct {
		Pairs []labelledPair `json:"pairs"`
	}
	require.NoError(t, json.Unmarshal(raw, &set))
	emb := evalEmbedder(t)
	labels := []string{"agree", "contradict", "supersede", "duplicate", "unrelated"}
	flagged := map[string]map[string]int{}
	total := map[string]int{}
	cosines := map[string][]float64{}
	var wrong []string
	type parts struct {
		label             string
		cos               float64
		conflict, replace bool // a conflict at any similarity; b supersedes a at any similarity
	}
	var all []parts
	for _, name := range analysisNames {
		flagged[name] = map[string]int{}
	}
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for _, p := range set.Pairs {
		total[p.Label]++
		now := t0
		svc := memory.New("eval", memstore.New(), emb, memory.WithClock(func() time.Time { return now }))
		a, _, err := svc.Store(t.Context(), memory.StoreInput{Content: p.A, Type: p.Type, Namespace: "global", Importance: 0.5})
		require.NoError(t, err)
		now = t0.Add(time.Hour)
		b, _, err := svc.Store(t.Context(), memory.StoreInput{Content: p.B, Type: p.Type, Namespace: "global", Importance: 0.5})
		require.NoError(t, err)
		cosines[p.Label] = append(cosines[p.Label], core.Cosine01(a.Vector, b.Vector))

		cs, _, err := svc.DetectContradictions(t.Context(), "", "", memory.DefaultContradictionThreshold)
		require.NoError(t, err)
		_, cands, err := svc.CheckSupersedes(t.Context(), b.ID, a.ID, memory.DefaultSupersedeThreshold)
		require.NoError(t, err)
		h, err := svc.AnalyzeHealth(t.Context(), "", memory.DefaultStaleDays)
		require.NoError(t, err)
		anyConflict, _, err := svc.DetectContradictions(t.Context(), "", "", 0)
		require.NoError(t, err)
		_, anyReplace, err := svc.CheckSupersedes(t.Context(), b.ID, a.ID, 0)
		require.NoError(t, err)
		all = append(all, parts{p.Label, core.Cosine01(a.Vector, b.Vector), len(anyConflict) > 0, anyReplace[0].Supersedes})
		got := map[string]bool{
			"memory_detect_contradictions":     len(cs) > 0,
			"memory_check_supersedes":          len(cands) == 1 && cands[0].Supersedes,
			"memory_analyze_health duplicates": len(h.Duplicates) > 0,
		}
		for _, name := range analysisNames {
			if got[name] {
				flagged[name][p.Label]++
			}
			if want, counted := analysisLabels[name][p.Label]; counted && want != got[name] {
				reason := ""
				if len(cs) > 0 {
					reason = cs[0].Reason
				}
				wrong = append(wrong, fmt.Sprintf("%s %v on %s %q / %q (cosine %.2f; %s)", name, got[name], p.Label, p.A, p.B, core.Cosine01(a.Vector, b.Vector), reason))
			}
		}
	}
	t.Logf("embedder %s; thresholds: contradictions %.2f, supersedes %.2f, duplicates %.2f", emb.Model(),
		memory.DefaultContradictionThreshold, memory.DefaultSupersedeThreshold, memory.DuplicateThreshold)
	for _, l := range labels {
		cs := slices.Clone(cosines[l])
		slices.Sort(cs)
		t.Logf("cosine of %-10s pairs: min %.2f, median %.2f, max %.2f", l, cs[0], cs[len(cs)/2], cs[len(cs)-1])
	}
	header := fmt.Sprintf("%-34s", "flagged pairs, by label")
	for _, l := range labels {
		header += fmt.Sprintf(" %-11s", l)
	}
	t.Log(header + " precision recall")
	for _, name := range analysisNames {
		line := fmt.Sprintf("%-34s", name)
		tp, fp, fn := 0, 0, 0
		for _, l := range labels {
			line += fmt.Sprintf(" %-11s", fmt.Sprintf("%d/%d", flagged[name][l], total[l]))
			want, counted := analysisLabels[name][l]
			switch {
			case !counted:
			case want:
				tp += flagged[name][l]
				fn += total[l] - flagged[name][l]
			default:
				fp += flagged[name][l]
			}
		}
		precision, recall := 1.0, float64(tp)/float64(tp+fn)
		if tp+fp > 0 {
			precision = float64(tp) / float64(tp+fp)
		}
		t.Logf("%s %.2f      %.2f", line, precision, recall)
		if defaultEmbedder() {
			floor := analysisFloors[name]
			if precision < floor[0] || recall < floor[1] {
				t.Errorf("%s: precision %.2f, recall %.2f, below what the default model gave (%.2f, %.2f)", name, precision, recall, floor[0], floor[1])
			}
		}
	}
	t.Logf("wrong answers:\n  %s", strings.Join(wrong, "\n  "))

	// The thresholds: each analysis at other similarities, from the same
	// readings (a contradiction: similar and a conflict; a supersession:
	// similar and b replaces a; a duplicate: similar and no conflict).
	t.Logf("%-34s %s", "precision / recall at similarity", "0.50       0.60       0.65       0.70       0.75       0.80       0.85       0.90       0.95")
	for _, name := range analysisNames {
		line := fmt.Sprintf("%-34s", name)
		for _, th := range []float64{0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95} {
			tp, fp, fn := 0, 0, 0
			for _, p := range all {
				want, counted := analysisLabels[name][p.label]
				if !counted {
					continue
				}
				var got bool
				switch name {
				case "memory_detect_contradictions":
					got = p.cos >= th && p.conflict
				case "memory_check_supersedes":
					got = p.cos >= th && p.replace
				default:
					got = p.cos >= th && !p.conflict
				}
				switch {
				case want && got:
					tp++
				case want:
					fn++
				case got:
					fp++
				}
			}
			precision := 1.0
			if tp+fp > 0 {
				precision = float64(tp) / float64(tp+fp)
			}
			line += fmt.Sprintf(" %.2f/%.2f  ", precision, float64(tp)/float64(tp+fn))
		}
		t.Log(line)
	}
}

// analysisFloors are the precision and recall TestAnalysesOnLabelledPairs
// holds with the default embedder: those it gave, less a little.
// (0.89/0.97, 0.80/1.00, 0.79/0.94 when set).
var analysisFloors = map[string][2]float64{
	"memory_detect_contradictions":     {0.85, 0.93},
	"memory_check_supersedes":          {0.75, 0.95},
	"memory_analyze_health duplicates": {0.75, 0.9},
}
