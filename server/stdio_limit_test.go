package server

import (
	"bytes"
	"io"
	"log/slog"
	"strings"
	"testing"
)

func TestLineLimiterSkipsAndAnswersOversizedMessages(t *testing.T) {
	huge := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":"` + strings.Repeat("a", 300_000) + `"}}`
	noID := `{"jsonrpc":"2.0","method":"x","params":"` + strings.Repeat("b", 300_000) + `"}`
	in := "first\n" + huge + "\n" + `{"id":"s","p":"` + strings.Repeat("c", 200) + "\"}\n" + noID + "\nlast without newline"
	var out bytes.Buffer
	l := newLineLimiter(strings.NewReader(in), 150, &out, slog.New(slog.NewTextHandler(io.Discard, nil)))
	got, err := io.ReadAll(l)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "first\nlast without newline" {
		t.Errorf("passed through %.200q", got)
	}
	answers := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(answers) != 3 ||
		!strings.HasPrefix(answers[0], `{"error":{"code":-32600,"message":"request too large: 300`) || !strings.Contains(answers[0], `"id":7,`) ||
		!strings.Contains(answers[1], `"id":"s"`) || !strings.Contains(answers[2], `"id":null`) {
		t.Errorf("answers:\n%s", out.String())
	}
	// Lines at the limit pass whole.
	ok := strings.Repeat("d", 149) + "\n"
	got, _ = io.ReadAll(newLineLimiter(strings.NewReader(ok+ok), 150, &out, slog.New(slog.NewTextHandler(io.Discard, nil))))
	if string(got) != ok+ok {
		t.Errorf("lines at the limit: %d bytes", len(got))
	}
}
