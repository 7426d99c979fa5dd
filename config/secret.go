package config

import "log/slog"

// Redacted is what a set secret looks like in every printed form.
const Redacted = "[redacted]"

// Secret is a string that must not reach a log or a terminal: its String,
// GoString, text (YAML, JSON) and slog forms are Redacted (or "" when empty).
// Reveal returns the value for the one place that needs it (a driver, an
// HTTP header).
type Secret string

// Reveal returns the secret's value.
func (s Secret) Reveal() string { return string(s) }

// IsSet reports whether the secret is non-empty.
func (s Secret) IsSet() bool { return s != "" }

// String returns Redacted, or "" when the secret is empty, so that "set" and
// "not set" stay distinguishable in status output.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return Redacted
}

// GoString keeps %#v from printing the value.
func (s Secret) GoString() string { return `config.Secret("` + s.String() + `")` }

// MarshalText redacts the secret in YAML and JSON output.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// LogValue redacts the secret in slog output.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }
