// Package entity derives spec 003's entities from notes: a note whose
// frontmatter declares an entity type (key "type" unless configured) is an
// entity, with fields from its frontmatter and typed relationships from
// its `relations` map. Annotator sets core.Note.Entity on every note
// written to a store, so stores keep the entity with its note and the two
// never disagree.
//
// Frontmatter keys (camelCase, as spec 003's field names):
//
//	type: guide | concept | project | news      (the key is Options.TypeKey)
//	id: <UUID>                                  optional; default derived, see ID
//	slug, summary, status, difficulty, conceptKind, repoUrl, repoDefaultBranch,
//	license, canonicalUrl                       strings
//	publishedAt, archivedAt, createdAt, updatedAt   RFC 3339 date-times or YYYY-MM-DD
//	comparisonTargets: ["[[Note]]", ...]        wikilinks
//	relations:
//	  GUIDE_USES_CONCEPT: ["[[Attention]]", {target: "[[BM25]]", notes: "why"}]
//
// A note with an invalid value (an unknown type, status, difficulty,
// conceptKind or relationship type, an id that is no UUID, a date that does
// not parse, a relation target that is not a wikilink) is not an entity,
// and each problem is a warning; nothing fails.
package entity

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
)

// DefaultTypeKey is the frontmatter key that declares an entity's type.
const DefaultTypeKey = "type"

// Options tunes Derive.
type Options struct {
	// TypeKey is the frontmatter key holding the entity type; "" means
	// DefaultTypeKey.
	TypeKey string
	// Entities reads the entities the store holds (the Annotator keeps
	// each one's first createdAt); nil: the store written to, when it
	// reads entities.
	Entities EntityReader
}

// EntityReader reads an entity a store holds.
type EntityReader interface {
	GetEntity(ctx context.Context, project, id string) (*core.Entity, error)
}

func (o Options) typeKey() string {
	if o.TypeKey == "" {
		return DefaultTypeKey
	}
	return o.TypeKey
}

// ID returns the entity ID of a note without a frontmatter id: a name-based
// UUID of the project and the note ID. It is the same across restarts and
// resyncs, and changes when the note is renamed or moved (its ID is its
// path); a frontmatter id keeps an entity's ID through renames.
func ID(project, noteID string) string {
	return core.NameUUID("entity\x00" + project + "\x00" + noteID)
}

// Derive returns the entity of note n in project, or nil when n is not an
// entity, with a warning for each invalid value ("path: entity: ...").
func Derive(project string, n *core.Note, opts Options) (*core.NoteEntity, []string) {
	fm := n.Frontmatter
	raw, declared := fm[opts.typeKey()]
	if !declared || raw == nil {
		return nil, nil
	}
	d := deriver{note: n, where: n.Path}
	// Values are matched in any letter case ("type: Guide", "status:
	// Published" are common in Obsidian) and answered in spec 003's.
	typ := core.EntityType(canonical(d.str(opts.typeKey(), raw)))
	if d.ok() && !typ.Valid() {
		d.warnf("%s %q is not one of guide, concept, project, news", opts.typeKey(), typ)
	}
	e := &core.NoteEntity{Type: typ}
	d.entityType = typ
	e.ID = ID(project, n.ID)
	if v, ok := fm["id"]; ok && v != nil {
		if id, ok := core.ParseUUID(d.str("id", v)); ok {
			e.ID = id
		} else if d.ok() {
			d.warnf("id %q is not a UUID", v)
		}
	}
	e.Slug = d.optStr("slug")
	if e.Slug == "" {
		e.Slug = Slug(strings.TrimSuffix(path.Base(n.Path), path.Ext(n.Path)))
	}
	e.Summary = d.optStr("summary")
	e.Status = core.EntityStatus(canonical(d.optStr("status")))
	if e.Status == "" {
		e.Status = core.StatusDraft
	} else if !e.Status.Valid() {
		d.warnf("status %q is not one of draft, publish_requested, published, archived", e.Status)
	}
	e.Difficulty = d.enum("difficulty", core.Difficulties)
	e.ConceptKind = d.enum("conceptKind", core.ConceptKinds)
	e.RepoURL = d.optStr("repoUrl")
	e.RepoDefaultBranch = d.optStr("repoDefaultBranch")
	e.License = d.optStr("license")
	e.CanonicalURL = d.optStr("canonicalUrl")
	e.PublishedAt = d.optTime("publishedAt")
	e.ArchivedAt = d.optTime("archivedAt")
	e.UpdatedAt = n.ModTime.UTC()
	if t := d.optTime("updatedAt"); t != nil {
		e.UpdatedAt = *t
	}
	e.CreatedAt = e.UpdatedAt
	if t := d.optTime("createdAt"); t != nil {
		e.CreatedAt = *t
	}
	if v, ok := fm["comparisonTargets"]; ok && v != nil {
		for _, item := range d.list("comparisonTargets", v) {
			if i, ok := d.link("comparisonTargets", item); ok && !slices.Contains(e.Comparisons, i) {
				e.Comparisons = append(e.Comparisons, i)
			}
		}
	}
	e.Relations = d.relations(fm["relations"])
	if !d.ok() {
		return nil, d.warnings
	}
	return e, nil
}

// deriver collects the warnings of one note's derivation.
type deriver struct {
	note       *core.Note
	where      string
	warnings   []string
	entityType core.EntityType // the note's, for the relationships' check
}

func (d *deriver) ok() bool { return len(d.warnings) == 0 }

func (d *deriver) warnf(format string, args ...any) {
	d.warnings = append(d.warnings, d.where+": entity: "+fmt.Sprintf(format, args...)+"; the note is not an entity")
}

// str returns v as a trimmed string; numbers and booleans are written out
// (YAML reads `slug: 2024` as a number), other kinds are a warning.
func (d *deriver) str(key string, v any) string {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x)
	case int, int64, uint64, float64, bool:
		return fmt.Sprint(x)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	default:
		d.warnf("%s must be a string, got %s", key, kindOf(v))
		return ""
	}
}

func (d *deriver) optStr(key string) string {
	v, ok := d.note.Frontmatter[key]
	if !ok || v == nil {
		return ""
	}
	return d.str(key, v)
}

func (d *deriver) enum(key string, allowed []string) string {
	s := d.optStr(key)
	for _, a := range allowed {
		if strings.EqualFold(s, a) {
			return a // answered as spec 003 spells it
		}
	}
	if s != "" {
		d.warnf("%s %q is not one of %s", key, s, strings.Join(allowed, ", "))
	}
	return s
}

// timeLayouts are the date-time forms accepted in frontmatter; a date
// without a time is midnight UTC.
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"}

func (d *deriver) optTime(key string) *time.Time {
	v, ok := d.note.Frontmatter[key]
	if !ok || v == nil {
		return nil
	}
	if t, ok := v.(time.Time); ok {
		t = t.UTC()
		return &t
	}
	s := d.str(key, v)
	if s == "" {
		return nil
	}
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			t = t.UTC()
			return &t
		}
	}
	d.warnf("%s %q is not a date-time (RFC 3339) or a date (YYYY-MM-DD)", key, s)
	return nil
}

// list returns v as a list; a single value is a list of one.
func (d *deriver) list(key string, v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	case map[string]any:
		d.warnf("%s must be a list of wikilinks", key)
		return nil
	default:
		return []any{v}
	}
}

// link returns the index in the note's links of the wikilink v names.
func (d *deriver) link(key string, v any) (int, bool) {
	s, isString := v.(string)
	s = strings.TrimSpace(s)
	if !isString || !strings.HasPrefix(s, "[[") || !strings.HasSuffix(s, "]]") {
		d.warnf("%s: %v is not a wikilink such as \"[[Note]]\"", key, v)
		return 0, false
	}
	i := slices.IndexFunc(d.note.Links, func(l core.Link) bool { return l.Raw == s })
	if i < 0 {
		d.warnf("%s: %s is not a link the vault found in the note", key, s)
		return 0, false
	}
	return i, true
}

// relations reads the relations map: type -> target or list of targets,
// each a wikilink or {target: wikilink, notes: text}. Map keys are read in
// sorted order, so the result does not depend on YAML map order.
func (d *deriver) relations(v any) []core.RelationLink {
	if v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		d.warnf("relations must be a map of relationship type to wikilinks")
		return nil
	}
	types := make([]string, 0, len(m))
	for k := range m {
		types = append(types, k)
	}
	slices.Sort(types)
	var out []core.RelationLink
	for _, k := range types {
		typ := core.RelationType(strings.ToUpper(strings.NewReplacer("-", "_", " ", "_").Replace(strings.TrimSpace(k))))
		if !typ.Valid() {
			d.warnf("relations: %q is not a relationship type of spec 003", k)
			continue
		}
		// A relationship type names the types it joins (GUIDE_USES_CONCEPT:
		// from a guide to a concept); the original system kept to those
		// pairs, so one starting at another type is reported.
		if from := relationSource(typ); from != d.entityType {
			d.warnf("relations: %s starts at a %s, and this note is a %s", typ, from, d.entityType)
			continue
		}
		for _, item := range d.list("relations."+k, m[k]) {
			notes := ""
			if obj, ok := item.(map[string]any); ok {
				item = obj["target"]
				if n, ok := obj["notes"]; ok && n != nil {
					notes = d.str("relations."+k+".notes", n)
				}
			}
			i, ok := d.link("relations."+k, item)
			if !ok {
				continue
			}
			r := core.RelationLink{Type: typ, Link: i, Notes: notes}
			if !slices.ContainsFunc(out, func(o core.RelationLink) bool { return o.Type == r.Type && o.Link == r.Link }) {
				out = append(out, r)
			}
		}
	}
	return out
}

// canonical is an enum value as spec 003 spells it: lower case, words
// joined by underscores ("Publish Requested" -> publish_requested).
func canonical(s string) string {
	return strings.ToLower(strings.NewReplacer("-", "_", " ", "_").Replace(strings.TrimSpace(s)))
}

// relationSource is the entity type a relationship type starts at: the
// word before its first underscore, lower-cased (GUIDE_USES_CONCEPT: guide;
// DISTRIBUTION_PROMOTES_GUIDE: distribution, which no note can be).
func relationSource(t core.RelationType) core.EntityType {
	from, _, _ := strings.Cut(string(t), "_")
	return core.EntityType(strings.ToLower(from))
}

// kindOf names the kind of a YAML value for a warning, in the words of
// YAML rather than Go's type names.
func kindOf(v any) string {
	switch v.(type) {
	case []any, []string:
		return "a list"
	case map[string]any:
		return "a mapping"
	case nil:
		return "nothing"
	default:
		return "another kind of value"
	}
}

// Slug turns a file name into a slug (core.Slug), or the name
// lower-cased when it has no letter or digit ("---" stays "---").
func Slug(name string) string {
	if s := core.Slug(name); s != "" {
		return s
	}
	return strings.ToLower(strings.TrimSpace(name))
}
