package memory

import (
	"fmt"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
	mem "github.com/vaultgraph/vaultgraph/memory"

	"github.com/vaultgraph/vaultgraph/tools"
)

// The answers below are the data of spec 004's envelope. Where the spec
// gives a shape (memory_store, memory_recall, memory_validate,
// memory_forget, memory_context) its fields come first and keep their
// names; a few fields are added, documented in docs/MEMORY.md. The other
// tools' shapes are vaultgraph's, also documented there.

// MemoryView is a memory in an answer. Confidence and importance are the
// floats clients send (0.9, not 900 thousandths).
type MemoryView struct {
	ID           string         `json:"id"`
	Content      string         `json:"content"`
	MemoryType   string         `json:"memory_type"`
	Namespace    string         `json:"namespace"`
	Confidence   float64        `json:"confidence"`
	Importance   float64        `json:"importance"`
	Score        *float64       `json:"score,omitempty"`
	ContentHash  string         `json:"content_hash"`
	Metadata     map[string]any `json:"metadata"`
	CreatedAt    string         `json:"created_at"`
	UpdatedAt    string         `json:"updated_at"`
	LastAccessed string         `json:"last_accessed"`
	AccessCount  int            `json:"access_count"`
}

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func view(m core.Memory) MemoryView {
	md := m.Metadata
	if md == nil {
		md = map[string]any{}
	}
	return MemoryView{ID: m.ID, Content: m.Content, MemoryType: m.Type, Namespace: m.Namespace,
		Confidence: mem.ToFloat(m.Confidence), Importance: m.Importance, ContentHash: m.ContentHash, Metadata: md,
		CreatedAt: ts(m.CreatedAt), UpdatedAt: ts(m.UpdatedAt), LastAccessed: ts(m.LastAccessed), AccessCount: m.AccessCount}
}

func views(ms []core.Memory) []MemoryView {
	out := make([]MemoryView, len(ms))
	for i, m := range ms {
		out[i] = view(m)
	}
	return out
}

// EventView is a validation history event in an answer.
type EventView struct {
	EventID       string  `json:"event_id"`
	MemoryID      string  `json:"memory_id"`
	EventType     string  `json:"event_type"`
	Positive      *bool   `json:"positive"`
	Context       string  `json:"context"`
	ApplyEventID  string  `json:"apply_event_id,omitempty"`
	SessionID     string  `json:"session_id,omitempty"`
	OldConfidence float64 `json:"old_confidence"`
	NewConfidence float64 `json:"new_confidence"`
	Promoted      bool    `json:"promoted"`
	Timestamp     string  `json:"timestamp"`
}

func eventView(ev core.MemoryEvent) EventView {
	return EventView{EventID: ev.ID, MemoryID: ev.MemoryID, EventType: ev.Kind, Positive: ev.Positive, Context: ev.Context,
		ApplyEventID: ev.ApplyID, SessionID: ev.SessionID, OldConfidence: mem.ToFloat(ev.OldConfidence), NewConfidence: mem.ToFloat(ev.NewConfidence),
		Promoted: ev.Promoted, Timestamp: ts(ev.At)}
}

// FiltersView echoes the filters of memory_recall, memory_count and
// memory_list; a filter not given is null.
type FiltersView struct {
	Namespace     *string  `json:"namespace"`
	MemoryType    *string  `json:"memory_type"`
	MinImportance *float64 `json:"min_importance"`
	MinConfidence *float64 `json:"min_confidence"`
}

func filter(f FiltersView) mem.Filter {
	return mem.Filter{Namespace: tools.Or(f.Namespace, ""), Type: tools.Or(f.MemoryType, ""),
		MinImportance: tools.Or(f.MinImportance, 0), MinConfidence: tools.Or(f.MinConfidence, 0)}
}

// oneOf returns the value of a parameter that has an alias (the original
// server's name beside vaultgraph's): either may be given, both only when
// they agree.
func oneOf(name, value, alias, aliasValue string) (string, error) {
	switch {
	case aliasValue == "":
		return value, nil
	case value == "" || value == aliasValue:
		return aliasValue, nil
	default:
		return "", &mem.Error{Msg: fmt.Sprintf("%s %q and %s %q disagree: give one of them", name, value, alias, aliasValue)}
	}
}

// feedbackView is the common answer of memory_validate and memory_outcome.
func feedbackData(fb mem.Feedback) map[string]any {
	data := map[string]any{
		"memory_id":      fb.Memory.ID,
		"old_confidence": mem.ToFloat(fb.OldConfidence),
		"new_confidence": mem.ToFloat(fb.NewConfidence),
		"promoted":       fb.Promoted,
		"memory_type":    fb.Memory.Type,
		"event_id":       fb.Event.ID,
	}
	if fb.Promoted {
		data["new_type"] = mem.TypeGoldenRule
	}
	return data
}
