package kb

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/vaultgraph/vaultgraph/core"
)

// constraintFile is a folder constraint as read from its file.
type constraintFile struct {
	file string // name in folder_constraints/
	Constraint
	compiled *compiled // nil when err is set
	err      error     // why its rules cannot be used
}

// decodeConstraint reads a constraint file in the plugin's layout: a
// frontmatter `subfolder`, and the rules as the first ```yaml fenced block
// of the body (no block: no rules, as in the plugin). An error means the
// subfolder is unknown, so the file cannot apply anywhere; rules that do
// not load or compile are kept as cf.err, reported when the constraint
// applies to a note.
func decodeConstraint(kbName, file string, raw []byte) (*constraintFile, error) {
	doc := splitDocument(string(raw))
	if !doc.hasFrontmatter {
		return nil, errors.New("no frontmatter (--- lines) with a subfolder")
	}
	fm, err := lenientFrontmatter(doc.frontmatter)
	if err != nil {
		return nil, err
	}
	sub, ok := fm["subfolder"]
	if !ok {
		return nil, errors.New("no subfolder in the frontmatter")
	}
	clean, err := lenientFolder(sub)
	if err != nil {
		return nil, fmt.Errorf("subfolder: %w", err)
	}
	cf := &constraintFile{file: file, Constraint: Constraint{KBName: kbName, Subfolder: clean}}
	v, err := decodeLenientYAML(yamlBlock(doc.body))
	if err != nil {
		cf.err = fmt.Errorf("its rules are not valid YAML: %s", yamlReason(err))
		return cf, nil
	}
	rules, problems := rulesFromValue(v, false)
	if len(problems) == 0 {
		cf.compiled, problems = compileRules(rules)
	}
	if len(problems) > 0 {
		cf.compiled = nil
		cf.err = errors.New(strings.Join(problems, "; "))
		return cf, nil
	}
	cf.Rules = rules
	return cf, nil
}

var yamlFence = regexp.MustCompile("(?i)^\\s*```\\s*ya?ml\\s*$")

// yamlBlock returns the content of the first ```yaml (or ```yml) fenced
// block of body, "" when there is none.
func yamlBlock(body string) string {
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		if !yamlFence.MatchString(l) {
			continue
		}
		var block []string
		for _, b := range lines[i+1:] {
			if strings.TrimSpace(b) == "```" {
				break
			}
			block = append(block, strings.TrimSuffix(b, "\r"))
		}
		return strings.Join(block, "\n")
	}
	return ""
}

// encodeConstraint writes a constraint file in the plugin's layout.
func encodeConstraint(c Constraint) []byte {
	return []byte("---\nsubfolder: " + quoted(c.Subfolder) + "\n---\n\n## Rules\n\n```yaml\n" + rulesYAML(c.Rules) + "\n```\n")
}

// rulesYAML writes rules as the plugin does, line for line, so that its
// line-based reader reads them back, while staying valid YAML: regular
// expressions single-quoted (literal, unlike the plugin's raw double
// quotes), field names plain where YAML allows it. The frontmatter
// section comes last: the plugin's reader drops the last required field
// when another section follows it.
func rulesYAML(r Rules) string {
	var lines []string
	if r.Filename != nil && r.Filename.Pattern != "" {
		lines = append(lines, "filename:", "  pattern: "+literal(r.Filename.Pattern))
	}
	if c := r.Content; c != nil {
		lines = append(lines, "content:")
		if c.MinLength != nil {
			lines = append(lines, "  min_length: "+strconv.Itoa(*c.MinLength))
		}
		if c.MaxLength != nil {
			lines = append(lines, "  max_length: "+strconv.Itoa(*c.MaxLength))
		}
		if len(c.RequiredSections) > 0 {
			lines = append(lines, "  required_sections: "+flowList(c.RequiredSections, quoted))
		}
	}
	if r.Frontmatter != nil && len(r.Frontmatter.RequiredFields) > 0 {
		lines = append(lines, "frontmatter:", "  required_fields:")
		for _, f := range r.Frontmatter.RequiredFields {
			lines = append(lines, "    - name: "+name(f.Name), "      type: "+name(string(f.Type)))
			if f.Pattern != "" {
				lines = append(lines, "      pattern: "+literal(f.Pattern))
			}
			if len(f.AllowedValues) > 0 {
				lines = append(lines, "      allowed_values: "+flowList(f.AllowedValues, scalar))
			}
		}
	}
	return strings.Join(lines, "\n")
}

// constraintFileName names the file of a constraint after its folder, as
// the plugin does ("research/ai/papers" → "research_ai_papers.md"); a
// folder whose name keeps no such character gets a name from its hash.
func constraintFileName(subfolder string) string {
	var b strings.Builder
	for _, r := range strings.ReplaceAll(subfolder, "/", "_") {
		if r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	name := b.String() + ".md"
	// No ASCII letter or digit left, or a name the one naming rule refuses
	// (a folder "con" would give "con.md", which Windows reserves).
	if strings.Trim(b.String(), "_-") == "" || core.CheckNewName(name) != nil {
		return "constraint-" + shortHash(subfolder) + ".md"
	}
	return name
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}
