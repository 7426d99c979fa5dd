package memory

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/vaultgraph/vaultgraph/core"
)

// contextCandidates bounds how many memories memory_context considers.
const contextCandidates = 200

// ContextResult is memory_context's answer.
type ContextResult struct {
	Context         string
	TokenEstimate   int
	MemoryCount     int
	GoldenRuleCount int
	IDs             []string // the memories in the block, in block order
}

// EstimateTokens approximates the tokens of text: one per four bytes,
// rounded up (the usual rule of thumb for English and code).
func EstimateTokens(text string) int { return tokensOf(len(text)) }

func tokensOf(bytes int) int { return (bytes + 3) / 4 }

// sections are the context block's headings, in order.
var sections = []struct{ typ, title string }{
	{TypeGoldenRule, "Golden Rules (High Confidence)"},
	{TypePreference, "Preferences"},
	{TypeDecision, "Decisions"},
	{TypePattern, "Patterns"},
	{TypeFact, "Facts"},
	{TypeSession, "Sessions"},
}

const contextHeader = "## Relevant Memories\n"

// Context builds the markdown block of memory_context: golden rules first
// (a memory at the golden threshold counts as one), then one section per
// type, each line with its confidence. With a query the memories are the
// golden rules and the memories at least ContextFloor relevant (see rank), by
// relevance; without, all memories by confidence then importance. With a
// namespace, memories of that namespace and global ones are used. Lines
// are added in rank order while the whole block stays within budget
// tokens; a line that does not fit is skipped, so a long memory does not
// hide shorter ones after it.
func (s *Service) Context(ctx context.Context, query, namespace string, budget int) (ContextResult, error) {
	var f core.MemoryFilter
	if namespace != "" {
		if err := CheckNamespace(namespace); err != nil {
			return ContextResult{}, err
		}
		f.Namespaces = []string{namespace}
		if namespace != NamespaceGlobal {
			f.Namespaces = append(f.Namespaces, NamespaceGlobal)
		}
	}
	var ranked []core.Memory
	if strings.TrimSpace(query) != "" {
		// Ranked first: it embeds the query, and fails before anything
		// else is read when semantic search is off.
		hits, err := s.rank(ctx, query, f, contextCandidates)
		if err != nil {
			return ContextResult{}, err
		}
		// Golden rules apply whatever the query: they come first.
		seen := map[string]bool{}
		for _, gf := range []core.MemoryFilter{{Namespaces: f.Namespaces, Type: TypeGoldenRule}, {Namespaces: f.Namespaces, MinConfidence: GoldenThreshold}} {
			golden, _, err := s.store.ListMemories(ctx, s.project, gf, core.MemoryPage{Order: core.OrderConfidence, Descending: true, Limit: contextCandidates})
			if err != nil {
				return ContextResult{}, err
			}
			for _, m := range golden {
				if !seen[m.ID] {
					seen[m.ID] = true
					ranked = append(ranked, m)
				}
			}
		}
		for _, h := range hits {
			if h.Score >= ContextFloor && !seen[h.ID] {
				ranked = append(ranked, h.Memory)
			}
		}
	} else {
		all, _, err := s.store.ListMemories(ctx, s.project, f, core.MemoryPage{Order: core.OrderConfidence, Descending: true, Limit: contextCandidates * 5})
		if err != nil {
			return ContextResult{}, err
		}
		slices.SortStableFunc(all, func(a, b core.Memory) int {
			return cmp.Or(cmp.Compare(b.Confidence, a.Confidence), cmp.Compare(b.Importance, a.Importance), cmp.Compare(a.ID, b.ID))
		})
		ranked = all
	}
	return buildContext(ranked, budget), nil
}

func section(m core.Memory) string {
	if IsGolden(m.Type, m.Confidence) {
		return TypeGoldenRule
	}
	return m.Type
}

// buildContext picks memories in rank order while the block fits budget,
// then lays them out by section.
func buildContext(ranked []core.Memory, budget int) ContextResult {
	line := func(m core.Memory) string {
		content := strings.Join(strings.Fields(m.Content), " ")
		return "- " + content + " [confidence: " + Format(m.Confidence) + "]\n"
	}
	heading := func(typ string) string {
		for _, sec := range sections {
			if sec.typ == typ {
				return "\n### " + sec.title + "\n"
			}
		}
		return "\n### " + typ + "\n"
	}
	size := len(contextHeader)
	used := map[string]bool{}
	picked := map[string][]core.Memory{}
	for _, m := range ranked {
		sec := section(m)
		extra := len(line(m))
		if !used[sec] {
			extra += len(heading(sec))
		}
		if tokensOf(size+extra) > budget {
			continue
		}
		size += extra
		used[sec] = true
		picked[sec] = append(picked[sec], m)
	}
	var b strings.Builder
	res := ContextResult{IDs: []string{}}
	if EstimateTokens(contextHeader) > budget {
		return res
	}
	b.WriteString(contextHeader)
	for _, sec := range sections {
		ms := picked[sec.typ]
		if len(ms) == 0 {
			continue
		}
		b.WriteString(heading(sec.typ))
		for _, m := range ms {
			b.WriteString(line(m))
			res.IDs = append(res.IDs, m.ID)
			res.MemoryCount++
			if sec.typ == TypeGoldenRule {
				res.GoldenRuleCount++
			}
		}
	}
	res.Context = b.String()
	res.TokenEstimate = EstimateTokens(res.Context)
	return res
}
