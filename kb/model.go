package kb

// KnowledgeBase is a named scope of the vault: the notes under Subfolder,
// with human-readable OrganizationRules and machine-checked folder
// constraints. It is stored in .llm_bridges/knowledge_base/{Name}/meta.md.
type KnowledgeBase struct {
	Name              string `json:"name"`
	CreateTime        string `json:"create_time"` // ISO 8601, as stored
	Description       string `json:"description"`
	Subfolder         string `json:"subfolder"` // vault-relative, "/"-separated, no leading or trailing "/"
	OrganizationRules string `json:"organization_rules"`
}

// Summary is a knowledge base as list_knowledge_bases shows it, and as the
// plugin's metadata.json cache holds it.
type Summary struct {
	Name                     string `json:"name"`
	Description              string `json:"description"`
	Subfolder                string `json:"subfolder"`
	CreateTime               string `json:"create_time"`
	OrganizationRulesPreview string `json:"organization_rules_preview"`
}

// previewRunes is how much of the organization rules a Summary shows (the
// plugin's length, counted in characters here).
const previewRunes = 200

// summary returns kb's Summary.
func (kb *KnowledgeBase) summary() Summary {
	preview := kb.OrganizationRules
	if r := []rune(preview); len(r) > previewRunes {
		preview = string(r[:previewRunes]) + "..."
	}
	return Summary{Name: kb.Name, Description: kb.Description, Subfolder: kb.Subfolder, CreateTime: kb.CreateTime, OrganizationRulesPreview: preview}
}

// Constraint is a folder constraint: Rules that every note under Subfolder
// (vault-relative, inside the knowledge base) must satisfy.
type Constraint struct {
	KBName    string `json:"kb_name"`
	Subfolder string `json:"subfolder"`
	Rules     Rules  `json:"rules"`
}

// ConstraintRef names a constraint in a folder_constraint_violation error.
type ConstraintRef struct {
	KBName    string `json:"kb_name"`
	Subfolder string `json:"subfolder"`
}

// NoteVersion is a note's content at one moment: its vault-relative path,
// its full text and its version, the hex SHA-256 of the file's bytes
// (what update_note's expected_version compares with).
type NoteVersion struct {
	Path    string
	Content string
	Version string
}

// Validation is the result of checking a note against its folder
// constraint. Issues is never nil, so it encodes as [] when empty.
type Validation struct {
	Passed bool    `json:"passed"`
	Issues []Issue `json:"issues"`
}

// passed is the Validation of a note that no constraint refused.
func passed() Validation { return Validation{Passed: true, Issues: []Issue{}} }
