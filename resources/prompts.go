package resources

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/core"
)

// Prompt names.
const (
	PromptExplore = "explore_note"
	PromptConnect = "connect_notes"
	PromptTidy    = "tidy_vault"
	PromptReview  = "weekly_review"
)

// Bounds of what a prompt embeds, so that one click cannot fill a context.
const (
	maxBacklinks   = 20 // titles of backlinks listed by explore_note
	maxReviewNotes = 20 // notes embedded by weekly_review
	defaultDays    = 7
	maxDays        = 366
	maxCompletions = 100 // the MCP spec's limit for one completion answer
	noteArgDesc    = "a note's ID as the tools give it (e.g. concepts/bm25.md) or its title; completable"
)

// Prompts returns the prompts with their handlers.
func (d Deps) Prompts() []server.ServerPrompt {
	return []server.ServerPrompt{
		{
			Prompt: mcp.NewPrompt(PromptExplore,
				mcp.WithPromptTitle("Explore a note"),
				mcp.WithPromptDescription("Summarise a note with its neighbourhood: the notes it links to and the notes that link to it."),
				mcp.WithArgument("id", mcp.RequiredArgument(), mcp.ArgumentDescription("the note to explore: "+noteArgDesc))),
			Handler: d.explore,
		},
		{
			Prompt: mcp.NewPrompt(PromptConnect,
				mcp.WithPromptTitle("Connect two notes"),
				mcp.WithPromptDescription("Find how one note leads to another through links (find_path) and explain the chain."),
				mcp.WithArgument("source", mcp.RequiredArgument(), mcp.ArgumentDescription("where the path starts: "+noteArgDesc)),
				mcp.WithArgument("target", mcp.RequiredArgument(), mcp.ArgumentDescription("where it ends: "+noteArgDesc))),
			Handler: d.connect,
		},
		{
			Prompt: mcp.NewPrompt(PromptTidy,
				mcp.WithPromptTitle("Tidy the vault"),
				mcp.WithPromptDescription("Find orphan notes (no links in or out) and weakly linked ones, and propose links or merges to fix."),
				mcp.WithArgument("tag", mcp.ArgumentDescription("only notes with this tag; completable"))),
			Handler: d.tidy,
		},
		{
			Prompt: mcp.NewPrompt(PromptReview,
				mcp.WithPromptTitle("Weekly review"),
				mcp.WithPromptDescription("Review the notes changed in the last days: what moved, what is unfinished, what to link."),
				mcp.WithArgument("days", mcp.ArgumentDescription("how many days back (default 7)"))),
			Handler: d.review,
		},
	}
}

// embedded is a prompt message holding a note as an embedded resource.
func (d Deps) embedded(ctx context.Context, n *core.Note) (mcp.PromptMessage, error) {
	contents, err := d.Read(ctx, URI(n.ID))
	if err != nil {
		return mcp.PromptMessage{}, err
	}
	return mcp.NewPromptMessage(mcp.RoleUser, mcp.NewEmbeddedResource(contents[0])), nil
}

// note finds the note a prompt argument names (an ID in any form, or a
// title), or says which argument names nothing.
func (d Deps) note(ctx context.Context, arg, value string) (*core.Note, error) {
	if strings.TrimSpace(value) == "" {
		return nil, fmt.Errorf("resources: argument %s is required: %s", arg, noteArgDesc)
	}
	if n, err := d.find(ctx, value); err == nil {
		return n, nil
	}
	ids, err := d.sortedIDs(ctx)
	if err != nil {
		return nil, err
	}
	// By title: the first note whose title equals the value, any case.
	for _, c := range d.rank(ctx, ids, value, maxCompletions) {
		if strings.EqualFold(c.title, value) {
			return d.find(ctx, c.id)
		}
	}
	return nil, fmt.Errorf("resources: argument %s: no note has the ID or title %q", arg, value)
}

func (d Deps) explore(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	n, err := d.note(ctx, "id", req.Params.Arguments["id"])
	if err != nil {
		return nil, err
	}
	note, err := d.embedded(ctx, n)
	if err != nil {
		return nil, err
	}
	in, err := d.Store.Neighbors(ctx, d.Project, n.ID, core.DirectionIn, maxBacklinks)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Explore the note %q (ID %s), embedded below. ", n.Title, n.ID)
	b.WriteString("Call get_node with depth 1 for its neighbours, then summarise what the note says and how it fits among them: what it builds on (its links) and what builds on it (its backlinks).")
	if len(in) > 0 {
		b.WriteString("\n\nNotes that link to it:")
		for _, nb := range in {
			fmt.Fprintf(&b, "\n- %s (%s)", nb.Note.Title, nb.Note.ID)
		}
	} else {
		b.WriteString("\n\nNo note links to it yet: suggest notes that should.")
	}
	return &mcp.GetPromptResult{
		Description: "Explore " + n.Title,
		Messages:    []mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(b.String())), note},
	}, nil
}

func (d Deps) connect(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	src, err := d.note(ctx, "source", req.Params.Arguments["source"])
	if err != nil {
		return nil, err
	}
	dst, err := d.note(ctx, "target", req.Params.Arguments["target"])
	if err != nil {
		return nil, err
	}
	a, err := d.embedded(ctx, src)
	if err != nil {
		return nil, err
	}
	b, err := d.embedded(ctx, dst)
	if err != nil {
		return nil, err
	}
	text := fmt.Sprintf("How does %q (%s) lead to %q (%s)? Call find_path with source %q and target %q, read the notes on the path with get_node, and explain the chain step by step: why each note links to the next. If there is no path, say which links would connect them. Both notes are embedded below.",
		src.Title, src.ID, dst.Title, dst.ID, src.ID, dst.ID)
	return &mcp.GetPromptResult{
		Description: "Connect " + src.Title + " and " + dst.Title,
		Messages:    []mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(text)), a, b},
	}, nil
}

func (d Deps) tidy(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	scope := "the vault"
	tagHint := ""
	if tag := strings.TrimSpace(req.Params.Arguments["tag"]); tag != "" {
		scope = "the notes tagged #" + strings.TrimPrefix(tag, "#")
		tagHint = fmt.Sprintf(" (search_by_tags with tags [%q] lists them)", strings.TrimPrefix(tag, "#"))
	}
	text := fmt.Sprintf("Help me tidy %s%s. Use get_hubs with metric in_degree and out_degree to find the most and least connected notes, random_node to sample, and get_node with depth 1 to check a note's links. List orphans (no links in or out) and notes whose links are broken or missing, and for each propose one fix: a link to add (with the exact [[wikilink]]), a merge, or a tag. Do not change any note before I agree.", scope, tagHint)
	return &mcp.GetPromptResult{
		Description: "Tidy " + scope,
		Messages:    []mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(text))},
	}, nil
}

func (d Deps) review(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	days := defaultDays
	if v := strings.TrimSpace(req.Params.Arguments["days"]); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxDays {
			return nil, fmt.Errorf("resources: argument days: %q is not a whole number from 1 to %d", v, maxDays)
		}
		days = n
	}
	since := time.Now().Add(-time.Duration(days) * 24 * time.Hour)
	type recent struct {
		id  string
		mod time.Time
	}
	var found []recent
	err := d.Store.NoteStates(ctx, d.Project, func(st core.NoteState) error {
		if st.ModTime.After(since) {
			found = append(found, recent{st.ID, st.ModTime})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(found, func(a, b recent) int { return b.mod.Compare(a.mod) })
	var changed []core.Note
	for _, r := range found[:min(len(found), maxReviewNotes)] {
		if n, err := d.Store.GetNote(ctx, d.Project, r.id); err == nil && n != nil {
			changed = append(changed, *n)
		}
	}
	more := max(0, len(found)-len(changed))
	var b strings.Builder
	fmt.Fprintf(&b, "Weekly review: %d notes changed in the last %d days", len(changed)+more, days)
	if more > 0 {
		fmt.Fprintf(&b, " (the %d most recent are embedded below)", len(changed))
	}
	b.WriteString(". Summarise what moved, point out what looks unfinished, and propose links between these notes and the rest of the vault (get_node with depth 1 shows a note's neighbours).")
	msgs := []mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(b.String()))}
	for i := range changed {
		m, err := d.embedded(ctx, &changed[i])
		if err != nil {
			continue // deleted since: the review goes on without it
		}
		msgs = append(msgs, m)
	}
	return &mcp.GetPromptResult{Description: fmt.Sprintf("Review of the last %d days", days), Messages: msgs}, nil
}

// candidate is a note offered as a completion.
type candidate struct {
	id, title string
	rank      int
}

// rank returns up to limit notes whose ID or title matches value, best
// first: ID prefix, then title prefix, then ID or title containing it, all
// case-insensitive; ties in ID order.
func (d Deps) rank(ctx context.Context, ids []string, value string, limit int) []candidate {
	v := strings.ToLower(strings.TrimSpace(value))
	var out []candidate
	titles, err := d.Store.ResolveTitles(ctx, d.Project, ids)
	if err != nil {
		d.logger().WarnContext(ctx, "completion: reading titles failed", "err", err)
	}
	for _, id := range ids {
		title := titles[id]
		lid, lt := strings.ToLower(id), strings.ToLower(title)
		r := -1
		switch {
		case strings.HasPrefix(lid, v):
			r = 0
		case strings.HasPrefix(lt, v):
			r = 1
		case strings.Contains(lid, v) || strings.Contains(lt, v):
			r = 2
		}
		if r >= 0 {
			out = append(out, candidate{id: id, title: title, rank: r})
		}
	}
	slices.SortStableFunc(out, func(a, b candidate) int { return cmp.Compare(a.rank, b.rank) })
	return out[:min(len(out), limit)]
}

// completeNotes completes a note argument with IDs.
func (d Deps) completeNotes(ctx context.Context, value string) (*mcp.Completion, error) {
	ids, err := d.sortedIDs(ctx)
	if err != nil {
		return nil, err
	}
	all := d.rank(ctx, ids, value, len(ids))
	values := make([]string, 0, min(len(all), maxCompletions))
	for _, c := range all[:min(len(all), maxCompletions)] {
		values = append(values, c.id)
	}
	return &mcp.Completion{Values: values, Total: len(all), HasMore: len(all) > len(values)}, nil
}

// completeTags completes a tag argument with the vault's tags.
func (d Deps) completeTags(ctx context.Context, value string) (*mcp.Completion, error) {
	ids, err := d.sortedIDs(ctx)
	if err != nil {
		return nil, err
	}
	v := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(value), "#"))
	seen := map[string]bool{}
	var prefix, contains []string
	for chunk := range slices.Chunk(ids, 500) {
		notes, err := d.Store.GetNotes(ctx, d.Project, chunk)
		if err != nil {
			return nil, err
		}
		for _, n := range notes {
			for _, t := range n.Tags {
				lt := strings.ToLower(t)
				if seen[lt] {
					continue
				}
				seen[lt] = true
				switch {
				case strings.HasPrefix(lt, v):
					prefix = append(prefix, t)
				case strings.Contains(lt, v):
					contains = append(contains, t)
				}
			}
		}
	}
	slices.Sort(prefix)
	slices.Sort(contains)
	all := append(prefix, contains...)
	return &mcp.Completion{Values: all[:min(len(all), maxCompletions)], Total: len(all), HasMore: len(all) > maxCompletions}, nil
}

// CompleteResourceArgument completes the note template's id (mcp-go's
// ResourceCompletionProvider).
func (d Deps) CompleteResourceArgument(ctx context.Context, uri string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	switch {
	case uri == URITemplate && arg.Name == "id":
		return d.completeNotes(ctx, arg.Value)
	case uri == FileURITemplate && arg.Name == "path" && d.Attachments != nil:
		return d.completeAttachments(ctx, arg.Value)
	}
	return &mcp.Completion{Values: []string{}}, nil
}

// CompletePromptArgument completes the prompts' note and tag arguments
// (mcp-go's PromptCompletionProvider).
func (d Deps) CompletePromptArgument(ctx context.Context, prompt string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	switch {
	case prompt == PromptExplore && arg.Name == "id",
		prompt == PromptConnect && (arg.Name == "source" || arg.Name == "target"):
		return d.completeNotes(ctx, arg.Value)
	case prompt == PromptTidy && arg.Name == "tag":
		return d.completeTags(ctx, arg.Value)
	}
	return &mcp.Completion{Values: []string{}}, nil
}

var (
	_ server.ResourceCompletionProvider = Deps{}
	_ server.PromptCompletionProvider   = Deps{}
)
