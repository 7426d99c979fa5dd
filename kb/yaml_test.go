package kb

import (
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestLenientYAMLReadsRawRegexesAsThePluginWroteThem(t *testing.T) {
	src := "frontmatter:\n  required_fields:\n    - name: published_date\n      type: date\n" +
		"      pattern: \"^\\d{4}-\\d{2}-\\d{2}$\"\n" + // raw, as the plugin writes it: strict YAML refuses \d
		"      allowed_values: [\"2024-01-01\", \"\\d,x\"]\n" +
		"filename:\n  pattern: \"^\\\\d+\\\\.md$\"\n" // properly escaped: keeps its YAML meaning
	if _, err := decodeYAML(src); err == nil {
		t.Fatal("precondition: strict YAML must refuse the raw regex")
	}
	v, err := decodeLenientYAML(src)
	if err != nil {
		t.Fatal(err)
	}
	r, problems := rulesFromValue(v, false)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	f := r.Frontmatter.RequiredFields[0]
	if f.Pattern != `^\d{4}-\d{2}-\d{2}$` {
		t.Errorf("raw pattern read as %q", f.Pattern)
	}
	if !reflect.DeepEqual(f.AllowedValues, []any{"2024-01-01", `\d,x`}) {
		t.Errorf("flow list read as %#v", f.AllowedValues)
	}
	if r.Filename.Pattern != `^\d+\.md$` {
		t.Errorf("escaped pattern read as %q", r.Filename.Pattern)
	}
}

func TestLenientYAMLStillRefusesBrokenYAML(t *testing.T) {
	if _, err := decodeLenientYAML("a: [unclosed\nb: \"x\\d\""); err == nil {
		t.Fatal("YAML broken beyond raw regexes must stay an error")
	}
}

// nastyStrings are values the writers must keep intact.
var nastyStrings = []string{
	"", "plain", "with: colon", "# not a comment", "- not a list", `quote "inside"`, `back\slash`, `^\d{4}-\d{2}$`,
	"it's", `both ' and "`, "line\nbreak", "tab\tinside", "trailing ", " leading", "true", "null", "123", "1.5",
	"{flow}", "[list]", "&anchor", "*alias", "!tag", "%percent", "@at", "`tick`", "ünïcödé ✓", "a\x7fb", "---", "...",
	"nel\u0085", "sep\u2028", "bom\ufeff", "emoji 👋🏽", "cr\r", "nul\x00", "bad \xff byte",
	"nel\u0085", "sep\u2028", "bom\ufeff", "emoji 👋🏽", "cr\r", "nul\x00", "bad \xff byte",
}

func TestWrittenScalarsAreValidYAMLAndReadBackExactly(t *testing.T) {
	for _, s := range nastyStrings {
		for _, write := range []func(string) string{quoted, literal, name} {
			text := write(s)
			var m map[string]any
			if err := yaml.Unmarshal([]byte("v: "+text+"\n"), &m); err != nil {
				t.Fatalf("%q written as %s is not YAML: %v", s, text, err)
			}
			if want := strings.ToValidUTF8(s, "\ufffd"); m["v"] != want {
				t.Fatalf("%q written as %s reads back as %#v", s, text, m["v"])
			}
			if strings.Contains(text, "\n") {
				t.Fatalf("%q written over two lines: %s", s, text)
			}
		}
	}
}

func TestWrittenScalarsReadBackThroughThePluginsReader(t *testing.T) {
	// The plugin strips one pair of quotes and unescapes nothing, so a
	// value it can read back exactly must be written without escapes.
	for _, s := range nastyStrings {
		if hasControl(s) || strings.Contains(s, "'") {
			continue // the plugin cannot read these back exactly whatever we write
		}
		for _, text := range []string{quoted(s), literal(s)} {
			if got := pluginUnquote(text); got != s {
				t.Errorf("plugin reads %s as %q, want %q", text, got, s)
			}
		}
	}
}
