package vault

import (
	"bytes"
	"strings"

	"gopkg.in/yaml.v3"
)

// fmField is one frontmatter property to write.
type fmField struct {
	key   string
	value any
}

// editFrontmatter returns raw (a whole note file) with the top-level
// frontmatter entries named in remove or set taken out (names compared
// case-insensitively) and the set entries appended, encoded as YAML. The
// rest of the block is kept byte for byte, comments and even YAML that
// does not parse included; so are the BOM and the line endings (CRLF when
// the file's first line has one). A block left empty is removed; a file
// without one gets one when there is something to set.
func editFrontmatter(raw []byte, set []fmField, remove []string) []byte {
	text := string(raw)
	bom := ""
	if strings.HasPrefix(text, utf8BOM) {
		bom, text = utf8BOM, text[len(utf8BOM):]
	}
	eol := "\n"
	if i := strings.IndexByte(text, '\n'); i > 0 && text[i-1] == '\r' {
		eol = "\r\n"
	}
	body := text
	var lines []string
	if fm, ok := splitFrontmatter(text); ok {
		body = text[fm.bodyStart:]
		block := strings.TrimSuffix(strings.ReplaceAll(fm.yaml, "\r\n", "\n"), "\n")
		if block != "" {
			lines = strings.Split(block, "\n")
		}
	}
	drop := func(key string) bool {
		for _, r := range remove {
			if strings.EqualFold(r, key) {
				return true
			}
		}
		for _, f := range set {
			if strings.EqualFold(f.key, key) {
				return true
			}
		}
		return false
	}
	var kept []string
	dropping := false
	for _, line := range lines {
		if line != "" && !strings.ContainsRune(" \t-#", rune(line[0])) {
			key, _, ok := cutKey(line)
			dropping = ok && drop(key)
		}
		if !dropping {
			kept = append(kept, line)
		}
	}
	for _, f := range set {
		var buf bytes.Buffer
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err := enc.Encode(map[string]any{f.key: f.value}); err != nil {
			continue // values built by the writer always encode
		}
		_ = enc.Close()
		kept = append(kept, strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")...)
	}
	if len(kept) == 0 {
		return []byte(bom + body)
	}
	return []byte(bom + "---" + eol + strings.Join(kept, eol) + eol + "---" + eol + body)
}
