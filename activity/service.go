package activity

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
)

// Limits of a page of recent changes.
const (
	DefaultLimit = 20
	MaxLimit     = 100
)

// Service answers recent_changes for one project.
type Service struct {
	project string
	log     core.ChangeLog
	rec     *Recorder // flushed before each read; may be nil
	now     func() time.Time
}

// NewService returns the service of project's log; rec (may be nil) is
// the Recorder writing it in this process.
func NewService(project string, log core.ChangeLog, rec *Recorder) *Service {
	return &Service{project: project, log: log, rec: rec, now: time.Now}
}

// Query selects a page of changes.
type Query struct {
	Since  string // an RFC 3339 time, a date (2006-01-02, UTC) or a duration back from now ("90m", "24h", "7d", "2w"); "" for no bound
	Limit  int    // 1..MaxLimit; 0 means DefaultLimit
	Cursor string // the previous page's NextCursor
}

// Page is one page of changes, newest first.
type Page struct {
	Changes    []core.NoteChange
	NextCursor string // "" on the last page
}

var cursorForm = regexp.MustCompile(`^[0-9]{20}-[0-9a-f]{12}$`)

// Recent returns a page of the log.
func (s *Service) Recent(ctx context.Context, q Query) (*Page, error) {
	limit := q.Limit
	if limit == 0 {
		limit = DefaultLimit
	}
	if limit < 1 || limit > MaxLimit {
		return nil, core.InvalidArgument("limit must be between 1 and %d, got %d", MaxLimit, limit)
	}
	since, err := s.parseSince(q.Since)
	if err != nil {
		return nil, err
	}
	if q.Cursor != "" && !cursorForm.MatchString(q.Cursor) {
		return nil, core.InvalidArgument("cursor %q is not one recent_changes gave; pass next_cursor as it came, or leave it out for the first page", q.Cursor)
	}
	if s.rec != nil {
		_ = s.rec.Flush(ctx) // a store that refuses it fails the read below too
	}
	// One more than asked says whether there is a next page.
	got, err := s.log.Changes(ctx, s.project, core.ChangeQuery{Since: since, Before: q.Cursor, Limit: limit + 1})
	if err != nil {
		return nil, fmt.Errorf("activity: recent changes: %w", err)
	}
	page := &Page{Changes: got}
	if len(got) > limit {
		page.Changes = got[:limit]
		page.NextCursor = got[limit-1].Key
	}
	return page, nil
}

var relative = regexp.MustCompile(`^([0-9]+)\s*(m|min|h|d|w)$`)

// parseSince reads the since argument.
func (s *Service) parseSince(v string) (time.Time, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t, nil
	}
	if m := relative.FindStringSubmatch(strings.ToLower(v)); m != nil {
		n, err := strconv.Atoi(m[1])
		if err == nil && n <= 100_000 {
			unit := map[string]time.Duration{"m": time.Minute, "min": time.Minute, "h": time.Hour, "d": 24 * time.Hour, "w": 7 * 24 * time.Hour}[m[2]]
			return s.now().Add(-time.Duration(n) * unit), nil
		}
	}
	return time.Time{}, core.InvalidArgument("since %q is not a time: give an RFC 3339 time (2026-05-01T09:00:00Z), a date (2026-05-01) or how long back (90m, 24h, 7d, 2w)", v)
}

// Summary is a change in one line for a person or a model: what happened
// and how the size moved ("modified: +120 bytes (1,084 → 1,204)").
func Summary(c core.NoteChange) string {
	switch c.Kind {
	case core.ChangeCreated:
		return "created" + sizeOf(", ", c.SizeAfter)
	case core.ChangeDeleted:
		return "deleted" + sizeOf(", was ", c.SizeBefore)
	case core.ChangeRenamed:
		s := "renamed from " + c.OldPath
		if c.SizeBefore >= 0 && c.SizeAfter >= 0 && c.SizeBefore != c.SizeAfter {
			s += "; " + delta(c.SizeBefore, c.SizeAfter)
		}
		return s
	default:
		if c.SizeBefore < 0 || c.SizeAfter < 0 {
			return "modified" + sizeOf(", now ", c.SizeAfter)
		}
		return "modified: " + delta(c.SizeBefore, c.SizeAfter)
	}
}

func sizeOf(prefix string, n int64) string {
	if n < 0 {
		return ""
	}
	return prefix + bytesText(n)
}

func delta(from, to int64) string {
	d := to - from
	sign := "+"
	if d < 0 {
		sign, d = "-", -d
	}
	if d == 0 {
		return "same size (" + bytesText(to) + ")"
	}
	return sign + bytesText(d) + " (" + group(from) + " → " + group(to) + ")"
}

func bytesText(n int64) string {
	if n == 1 {
		return "1 byte"
	}
	return group(n) + " bytes"
}

// group writes n with thousands separators.
func group(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
