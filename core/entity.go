package core

import (
	"context"
	"crypto/rand"
	"crypto/sha1" //nolint:gosec // UUID version 5 is defined over SHA-1; no security rests on it
	"encoding/hex"
	"slices"
	"strings"
	"time"
)

// Entities (spec 003) are notes whose frontmatter declares an entity type.
// Package entity derives a NoteEntity from a note when the note is
// written; stores keep it with the note and answer the EntityReader
// queries over the notes of one project only.

// EntityType is the kind of an entity.
type EntityType string

// The entity types of spec 003.
const (
	EntityGuide   EntityType = "guide"
	EntityConcept EntityType = "concept"
	EntityProject EntityType = "project"
	EntityNews    EntityType = "news"
)

// EntityTypes lists every entity type, in spec order.
var EntityTypes = []EntityType{EntityGuide, EntityConcept, EntityProject, EntityNews}

// Valid reports whether t is one of EntityTypes.
func (t EntityType) Valid() bool { return slices.Contains(EntityTypes, t) }

// EntityStatus is an entity's publication status.
type EntityStatus string

// The statuses of spec 003; StatusDraft is the default.
const (
	StatusDraft            EntityStatus = "draft"
	StatusPublishRequested EntityStatus = "publish_requested"
	StatusPublished        EntityStatus = "published"
	StatusArchived         EntityStatus = "archived"
)

// EntityStatuses lists every status, in spec order.
var EntityStatuses = []EntityStatus{StatusDraft, StatusPublishRequested, StatusPublished, StatusArchived}

// Valid reports whether s is one of EntityStatuses.
func (s EntityStatus) Valid() bool { return slices.Contains(EntityStatuses, s) }

// Difficulties are the values of an entity's difficulty.
var Difficulties = []string{"beginner", "intermediate", "advanced"}

// ConceptKinds are the values of an entity's conceptKind.
var ConceptKinds = []string{"standard", "model", "comparison"}

// RelationType is the type of a relationship between two entities.
type RelationType string

// RelationTypes lists every relationship type of spec 003, in spec order.
// Some name kinds of records vaultgraph has no entity for (sources,
// distributions, videos); they are accepted and, having no entity at their
// other end, never appear in a graph (spec 003's entity-only traversal).
var RelationTypes = []RelationType{
	"GUIDE_USES_CONCEPT",
	"GUIDE_EXPLAINS_CONCEPT",
	"GUIDE_REFERENCES_SOURCE",
	"CONCEPT_RELATES_TO_CONCEPT",
	"CONCEPT_REFERENCES_SOURCE",
	"NEWS_DERIVED_FROM_SOURCE",
	"NEWS_REFERENCES_SOURCE",
	"NEWS_REFERENCES_CONCEPT",
	"PROJECT_IMPLEMENTS_CONCEPT",
	"PROJECT_REFERENCES_SOURCE",
	"PROJECT_HAS_GUIDE",
	"DISTRIBUTION_PROMOTES_GUIDE",
	"DISTRIBUTION_PROMOTES_CONCEPT",
	"DISTRIBUTION_PROMOTES_PROJECT",
	"DISTRIBUTION_PROMOTES_NEWS",
	"VIDEO_EXPLAINS_GUIDE",
	"VIDEO_EXPLAINS_CONCEPT",
	"VIDEO_EXPLAINS_PROJECT",
	"VIDEO_EXPLAINS_NEWS",
}

// Valid reports whether r is one of RelationTypes.
func (r RelationType) Valid() bool { return slices.Contains(RelationTypes, r) }

// NoteEntity is what makes a note an entity, as derived from its
// frontmatter. Targets of comparisons and relations are indexes into the
// note's Links (the wikilinks that name them), so they resolve exactly as
// the note's links do, including later, when the target note appears.
// Title and contentRef are not here: they are the note's Title and Path.
type NoteEntity struct {
	ID                string         `json:"id"` // lowercase UUID
	Type              EntityType     `json:"type"`
	Slug              string         `json:"slug"`
	Summary           string         `json:"summary,omitempty"` // "" means null
	Status            EntityStatus   `json:"status"`
	Difficulty        string         `json:"difficulty,omitempty"`
	ConceptKind       string         `json:"conceptKind,omitempty"`
	RepoURL           string         `json:"repoUrl,omitempty"`
	RepoDefaultBranch string         `json:"repoDefaultBranch,omitempty"`
	License           string         `json:"license,omitempty"`
	CanonicalURL      string         `json:"canonicalUrl,omitempty"`
	PublishedAt       *time.Time     `json:"publishedAt,omitempty"`
	ArchivedAt        *time.Time     `json:"archivedAt,omitempty"`
	CreatedAt         time.Time      `json:"createdAt"`
	UpdatedAt         time.Time      `json:"updatedAt"`
	Comparisons       []int          `json:"comparisons,omitempty"` // link indexes of comparisonTargets
	Relations         []RelationLink `json:"relations,omitempty"`
}

// RelationLink is one typed relationship declared by a note: its type, the
// index in the note's Links of the wikilink naming the target, and the
// optional notes written with it.
type RelationLink struct {
	Type  RelationType `json:"type"`
	Link  int          `json:"link"`
	Notes string       `json:"notes,omitempty"`
}

// Clone returns a copy of e sharing nothing mutable with it.
func (e *NoteEntity) Clone() *NoteEntity {
	if e == nil {
		return nil
	}
	c := *e
	c.Comparisons = slices.Clone(e.Comparisons)
	c.Relations = slices.Clone(e.Relations)
	return &c
}

// RelationTarget returns the note ID that link number link of n resolves
// to: the target of a relationship or comparison naming that link; "" while
// the link is unresolved or when there is no such link.
func (n *Note) RelationTarget(link int) string {
	if link < 0 || link >= len(n.Links) {
		return ""
	}
	return n.Links[link].Target
}

// EntitySummary is an entity as lists show it (search_entities, graph
// nodes).
type EntitySummary struct {
	ID        string
	Type      EntityType
	Title     string
	Slug      string
	Summary   string // "" means null
	Status    EntityStatus
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Entity is an entity with every detail (get_entity).
type Entity struct {
	EntitySummary
	Difficulty        string
	ConceptKind       string
	ComparisonTargets []string // entity IDs of the comparison targets that are entities of the project
	RepoURL           string
	RepoDefaultBranch string
	License           string
	CanonicalURL      string
	ContentRef        string // the note's vault-relative path
	PublishedAt       *time.Time
	ArchivedAt        *time.Time
	Outgoing          int // distinct (type, target entity) relationships from the entity
	Incoming          int // distinct (type, source entity) relationships to the entity
}

// NewEntity builds the Entity of note n, which must carry one, with
// comparison targets given as entity IDs and counts left at zero.
func NewEntity(n *Note, comparisonTargets []string) *Entity {
	e := n.Entity
	return &Entity{
		EntitySummary:     n.EntitySummary(),
		Difficulty:        e.Difficulty,
		ConceptKind:       e.ConceptKind,
		ComparisonTargets: comparisonTargets,
		RepoURL:           e.RepoURL,
		RepoDefaultBranch: e.RepoDefaultBranch,
		License:           e.License,
		CanonicalURL:      e.CanonicalURL,
		ContentRef:        n.Path,
		PublishedAt:       e.PublishedAt,
		ArchivedAt:        e.ArchivedAt,
	}
}

// EntitySummary returns the summary of n's entity; n must carry one.
func (n *Note) EntitySummary() EntitySummary {
	e := n.Entity
	return EntitySummary{
		ID: e.ID, Type: e.Type, Title: n.Title, Slug: e.Slug, Summary: e.Summary,
		Status: e.Status, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt,
	}
}

// EntityQuery is a search_entities request: Text is matched
// case-insensitively as a substring of title, slug and summary; Types
// (empty: all) filters by type; at most Limit entities are returned.
type EntityQuery struct {
	Text  string
	Types []EntityType
	Limit int
}

// EntitySearchResult is a page of matches and the count of all matches.
type EntitySearchResult struct {
	Entities []EntitySummary
	Total    int
}

// EntityGraphQuery is a get_entity_graph request.
type EntityGraphQuery struct {
	Depth    int            // 1 or 2
	Types    []RelationType // relationships followed and returned; empty: all
	MaxNodes int            // root included
	MaxEdges int
}

// EntityGraphNode is a node of an entity graph with its distance from the
// root (0 for the root).
type EntityGraphNode struct {
	EntitySummary
	Depth int
}

// EntityEdge is a relationship between two entities of a project.
type EntityEdge struct {
	From  string // entity ID
	To    string // entity ID
	Type  RelationType
	Notes string // "" means null
}

// EntityGraph is an entity's neighbourhood (get_entity_graph).
type EntityGraph struct {
	Nodes []EntityGraphNode
	Edges []EntityEdge
}

// EntityReader answers spec 003's entity queries inside one project.
//
// Only notes carrying an Entity are entities. When several notes of a
// project carry the same entity ID (a frontmatter id copied between notes),
// the one with the smallest note ID is the entity and the others are not
// entities at all, in every query. A relationship counts only when its
// target resolves to an entity of the same project.
type EntityReader interface {
	// SearchEntities returns up to q.Limit matching entities ordered by
	// UpdatedAt descending then ID ascending, and the count of all matches.
	SearchEntities(ctx context.Context, project string, q EntityQuery) (EntitySearchResult, error)

	// GetEntity returns the entity with this ID and its relationship
	// counts, or an error wrapping ErrNotFound.
	GetEntity(ctx context.Context, project, id string) (*Entity, error)

	// EntityGraph returns the entity's neighbourhood as BuildEntityGraph
	// shapes it, or an error wrapping ErrNotFound when id is no entity.
	// Neo4j answers it with one query.
	EntityGraph(ctx context.Context, project, id string, q EntityGraphQuery) (*EntityGraph, error)
}

// Project is a vault as spec 003 lists it. Key is the project name every
// node of the vault carries in the store; ID is its UUID, the vault's
// identity (see vault.Identity). Host and Path say, for people, where the
// vault was last served from; they are not part of any spec answer.
type Project struct {
	Key         string
	ID          string
	Name        string
	Slug        string
	Description string // "" means null
	Host        string // host name of the process that last served it
	Path        string // vault folder on that host
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// ProjectStore keeps project records, the store's durable data that has no
// file.
type ProjectStore interface {
	// SaveProject creates or replaces the record with p.ID.
	SaveProject(ctx context.Context, p Project) error
	// ListProjects returns every project record, by ID.
	ListProjects(ctx context.Context) ([]Project, error)
}

// EntityStore is what a store offers for entities and projects.
type EntityStore interface {
	EntityReader
	ProjectStore
}

// uuidNamespace is the namespace of vaultgraph's name-based UUIDs (a
// version 4 UUID chosen once; changing it changes every derived ID).
var uuidNamespace = [16]byte{0x6f, 0x1d, 0x3a, 0x52, 0x9b, 0x0e, 0x4c, 0x7a, 0x8d, 0x21, 0x5e, 0x90, 0xc4, 0x3b, 0x77, 0x15}

// NameUUID returns the version 5 (SHA-1, name-based) UUID of name in
// vaultgraph's namespace, lowercase: the same name always gives the same
// UUID, on every machine.
func NameUUID(name string) string {
	h := sha1.New() //nolint:gosec // see the import
	h.Write(uuidNamespace[:])
	h.Write([]byte(name))
	var u [16]byte
	copy(u[:], h.Sum(nil))
	u[6] = (u[6] & 0x0f) | 0x50
	u[8] = (u[8] & 0x3f) | 0x80
	return formatUUID(u)
}

// NewUUID returns a random (version 4) UUID, lowercase.
func NewUUID() string {
	var u [16]byte
	_, _ = rand.Read(u[:])
	u[6] = (u[6] & 0x0f) | 0x40
	u[8] = (u[8] & 0x3f) | 0x80
	return formatUUID(u)
}

func formatUUID(u [16]byte) string {
	var buf [36]byte
	hex.Encode(buf[0:8], u[0:4])
	buf[8] = '-'
	hex.Encode(buf[9:13], u[4:6])
	buf[13] = '-'
	hex.Encode(buf[14:18], u[6:8])
	buf[18] = '-'
	hex.Encode(buf[19:23], u[8:10])
	buf[23] = '-'
	hex.Encode(buf[24:], u[10:])
	return string(buf[:])
}

// ParseUUID returns s as a lowercase canonical UUID (8-4-4-4-12 hex digits,
// either case, as JSON Schema's "uuid" format), and whether it is one.
func ParseUUID(s string) (string, bool) {
	if len(s) != 36 {
		return "", false
	}
	for i := 0; i < 36; i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return "", false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return "", false
			}
		}
	}
	return strings.ToLower(s), true
}
