package entities

import (
	"time"
)

// timestamp writes t as RFC 3339 in UTC.
func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// optTimestamp is timestamp, or null for nil.
func optTimestamp(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := timestamp(*t)
	return &s
}

// optString is s, or null for "".
func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
