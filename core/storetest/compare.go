package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
)

// CompareViewFields reports how got differs from want in what a view of a
// note shows, or nil when they agree: ID, Title, Tags, link targets and
// content up to core.ContextContentChars characters (what NoteContext must
// give of a neighbour; see core.ContextQuery).
func CompareViewFields(want, got core.Note) error {
	var errs []error
	if want.ID != got.ID || want.Title != got.Title {
		errs = append(errs, fmt.Errorf("id and title: want %q %q, got %q %q", want.ID, want.Title, got.ID, got.Title))
	}
	if !slices.Equal(want.Tags, got.Tags) {
		errs = append(errs, fmt.Errorf("tags: want %q, got %q", want.Tags, got.Tags))
	}
	if w, g := want.LinkTargets(), got.LinkTargets(); !slices.Equal(w, g) {
		errs = append(errs, fmt.Errorf("link targets: want %q, got %q", w, g))
	}
	if w, g := core.TruncateContent(want.Content, core.ContextContentChars), core.TruncateContent(got.Content, core.ContextContentChars); w != g {
		errs = append(errs, fmt.Errorf("content: want %q, got %q", w, g))
	}
	return errors.Join(errs...)
}

// CompareView reports how the view got differs from what core.ViewOf
// shows of want with titles (the titles ResolveTitles gives for its links),
// or nil when they agree; content is compared up to
// core.ContextContentChars characters, as in CompareViewFields.
func CompareView(want core.Note, titles map[string]string, got core.NodeView) error {
	w := core.ViewOf(&want, titles)
	var errs []error
	if w.ID != got.ID || w.Title != got.Title {
		errs = append(errs, fmt.Errorf("id and title: want %q %q, got %q %q", w.ID, w.Title, got.ID, got.Title))
	}
	if !slices.Equal(w.Tags, got.Tags) {
		errs = append(errs, fmt.Errorf("tags: want %q, got %q", w.Tags, got.Tags))
	}
	if !slices.Equal(w.Links, got.Links) {
		errs = append(errs, fmt.Errorf("links: want %v, got %v", w.Links, got.Links))
	}
	if wc, gc := core.TruncateContent(w.Content, core.ContextContentChars), core.TruncateContent(got.Content, core.ContextContentChars); wc != gc {
		errs = append(errs, fmt.Errorf("content: want %q, got %q", wc, gc))
	}
	return errors.Join(errs...)
}

// CompareNotes reports how got differs from want in the fields a store must
// give back, or nil when they agree. Precision rules, shared by every store:
//   - Entity is compared with its times as instants (any zone).
//   - Keys is not compared: stores keep keys for link resolution but need not
//     return them.
//   - ModTime is compared as an instant truncated to the millisecond; the
//     time zone and monotonic reading are not part of it.
//   - Tags, Links and Frontmatter: nil and empty are the same; order of Tags
//     and Links matters.
//   - Frontmatter values are compared after normalising: every number
//     (any int, uint or float type) becomes float64, every slice []any and
//     every map with string keys map[string]any, recursively. A store that
//     keeps frontmatter as JSON returns float64 or int64 where YAML gave int;
//     both are accepted.
func CompareNotes(want, got core.Note) error {
	var errs []error
	diff := func(field string, w, g any) {
		errs = append(errs, fmt.Errorf("%s: want %#v, got %#v", field, w, g))
	}
	if want.Project != got.Project {
		diff("Project", want.Project, got.Project)
	}
	if want.ID != got.ID {
		diff("ID", want.ID, got.ID)
	}
	if want.Title != got.Title {
		diff("Title", want.Title, got.Title)
	}
	if want.Path != got.Path {
		diff("Path", want.Path, got.Path)
	}
	if want.Content != got.Content {
		diff("Content", want.Content, got.Content)
	}
	if want.Hash != got.Hash {
		diff("Hash", want.Hash, got.Hash)
	}
	if want.Size != got.Size {
		diff("Size", want.Size, got.Size)
	}
	if !slices.Equal(want.Tags, got.Tags) {
		diff("Tags", want.Tags, got.Tags)
	}
	if !slices.Equal(want.Links, got.Links) {
		diff("Links", want.Links, got.Links)
	}
	if w, g := want.ModTime.Truncate(time.Millisecond), got.ModTime.Truncate(time.Millisecond); !w.Equal(g) {
		diff("ModTime", w.UTC().Format(time.RFC3339Nano), g.UTC().Format(time.RFC3339Nano))
	}
	if w, g := normalizeValue(want.Frontmatter), normalizeValue(got.Frontmatter); !reflect.DeepEqual(w, g) {
		diff("Frontmatter", w, g)
	}
	if w, g := entityForm(want.Entity), entityForm(got.Entity); w != g {
		diff("Entity", w, g)
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("note %q differs: %w", want.ID, errors.Join(errs...))
}

// normalizeValue maps a decoded frontmatter value to a canonical form (see
// CompareNotes). An empty map or slice at the top becomes nil so that a
// missing frontmatter equals an empty one; nested empties stay, since
// "aliases: []" is data.
func normalizeValue(v any) any {
	n := normalizeNested(v)
	switch x := n.(type) {
	case map[string]any:
		if len(x) == 0 {
			return nil
		}
	case []any:
		if len(x) == 0 {
			return nil
		}
	}
	return n
}

func normalizeNested(v any) any {
	if v == nil {
		return nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(rv.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(rv.Uint())
	case reflect.Float32, reflect.Float64:
		return rv.Float()
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return []any{}
		}
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = normalizeNested(rv.Index(i).Interface())
		}
		return out
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return v
		}
		out := make(map[string]any, rv.Len())
		iter := rv.MapRange()
		for iter.Next() {
			out[iter.Key().String()] = normalizeNested(iter.Value().Interface())
		}
		return out
	default:
		return v
	}
}

// entityForm renders an entity for comparison: JSON with every time in
// UTC, so the instant counts and the zone does not; "" for none.
func entityForm(e *core.NoteEntity) string {
	if e == nil {
		return ""
	}
	c := e.Clone()
	c.CreatedAt, c.UpdatedAt = c.CreatedAt.UTC(), c.UpdatedAt.UTC()
	for _, t := range []**time.Time{&c.PublishedAt, &c.ArchivedAt} {
		if *t != nil {
			u := (**t).UTC()
			*t = &u
		}
	}
	b, err := json.Marshal(c)
	if err != nil {
		return fmt.Sprintf("unencodable entity: %v", err)
	}
	return string(b)
}
