package kb

import kbase "github.com/vaultgraph/vaultgraph/kb"

// The answers below follow spec 002's output shapes. Where the spec's
// summary matrix says a tool returns the "Full" knowledge base, the whole
// KnowledgeBase object is sent (a superset of the fields its YAML shape
// lists). Note paths in answers are vault-relative, as in the spec's
// examples. Additions to the spec's shapes: "version" on notes (the
// content hash update_note's expected_version compares with),
// move_note's "links_updated" and list_notes' paging fields.

// KnowledgeBaseRef is the partial knowledge base of delete_note and
// list_notes.
type KnowledgeBaseRef struct {
	Name      string `json:"name"`
	Subfolder string `json:"subfolder"`
}

// ListKnowledgeBasesResponse is list_knowledge_bases' answer.
type ListKnowledgeBasesResponse struct {
	KnowledgeBases []kbase.Summary `json:"knowledge_bases"`
}

// AddKnowledgeBaseResponse is add_knowledge_base's answer.
type AddKnowledgeBaseResponse struct {
	KnowledgeBase *kbase.KnowledgeBase `json:"knowledge_base"`
	NextSteps     string               `json:"next_steps"`
}

// UpdateKnowledgeBaseResponse is update_knowledge_base's answer; Notes
// are warnings (about a subfolder change), empty when there are none.
type UpdateKnowledgeBaseResponse struct {
	KnowledgeBase *kbase.KnowledgeBase `json:"knowledge_base"`
	Notes         []NoteMessage        `json:"notes"`
}

// NoteMessage is one warning of update_knowledge_base.
type NoteMessage struct {
	Message string `json:"message"`
}

// AddFolderConstraintResponse is add_knowledge_base_folder_constraint's
// answer: the constraint as stored.
type AddFolderConstraintResponse struct {
	FolderConstraint *kbase.Constraint `json:"folder_constraint"`
}

// NoteResponse is a note in an answer.
type NoteResponse struct {
	Path    string `json:"path"` // vault-relative
	Content string `json:"content"`
	Version string `json:"version"`
}

// CreateNoteResponse is create_note's answer.
type CreateNoteResponse struct {
	KnowledgeBase               *kbase.KnowledgeBase `json:"knowledge_base"`
	Note                        NoteResponse         `json:"note"`
	MachineValidation           kbase.Validation     `json:"machine_validation"`
	ValidationInstructionForLLM string               `json:"validation_instruction_for_llm"`
	// Relinked are the other notes rewritten so that the bare links the
	// new note would take over keep their target ([[Name]] written
	// longer), by vault-relative path as move_note's; left out when none.
	Relinked []RelinkedNote `json:"relinked,omitempty"`
}

// NoteChangeResponse is the answer of update_note and append_note.
type NoteChangeResponse struct {
	KnowledgeBase               *kbase.KnowledgeBase `json:"knowledge_base"`
	OriginalNote                NoteResponse         `json:"original_note"`
	UpdatedNote                 NoteResponse         `json:"updated_note"`
	MachineValidation           kbase.Validation     `json:"machine_validation"`
	ValidationInstructionForLLM string               `json:"validation_instruction_for_llm"`
}

// MoveNoteResponse is move_note's answer.
type MoveNoteResponse struct {
	KnowledgeBase               *kbase.KnowledgeBase `json:"knowledge_base"`
	OriginPath                  string               `json:"origin_path"`
	NewPath                     string               `json:"new_path"`
	MachineValidation           kbase.Validation     `json:"machine_validation"`
	ValidationInstructionForLLM string               `json:"validation_instruction_for_llm"`
	LinksUpdated                LinksUpdated         `json:"links_updated"`
}

// LinksUpdated says what move_note rewrote in other notes so that their
// links to the moved note still resolve.
type LinksUpdated struct {
	FilesChanged int `json:"files_changed"`
	LinksChanged int `json:"links_changed"`
	// Relinked are the notes rewritten, by vault-relative path, with how
	// many of their links changed each.
	Relinked []RelinkedNote `json:"relinked"`
}

// RelinkedNote is a note move_note (or create_note) rewrote so that its
// links keep their target.
type RelinkedNote struct {
	Path  string `json:"path"`
	Links int    `json:"links"`
}

// DeleteNoteResponse is delete_note's answer.
type DeleteNoteResponse struct {
	KnowledgeBase KnowledgeBaseRef `json:"knowledge_base"`
	DeletedPath   string           `json:"deleted_path"`
}

// ReadNoteResponse is read_note's answer.
type ReadNoteResponse struct {
	KnowledgeBase *kbase.KnowledgeBase `json:"knowledge_base"`
	Note          NotePageResponse     `json:"note"`
}

// NotePageResponse is a page of a note: offsets count characters.
type NotePageResponse struct {
	Path           string `json:"path"`
	Content        string `json:"content"`
	Offset         int    `json:"offset"`
	NextOffset     int    `json:"next_offset"`
	HasMore        bool   `json:"has_more"`
	RemainingChars int    `json:"remaining_chars"`
	Version        string `json:"version"`
}

// ListNotesResponse is list_notes' answer: the spec's knowledge_base and
// notes, and where this page lies among all the notes listed (offsets
// count notes in path order, as read_note's count characters).
type ListNotesResponse struct {
	KnowledgeBase  KnowledgeBaseRef `json:"knowledge_base"`
	Notes          []NotePath       `json:"notes"`
	Offset         int              `json:"offset"`
	NextOffset     int              `json:"next_offset"`
	HasMore        bool             `json:"has_more"`
	RemainingNotes int              `json:"remaining_notes"`
	TotalNotes     int              `json:"total_notes"`
}

// NotePath is one entry of list_notes.
type NotePath struct {
	Path string `json:"path"` // vault-relative
}

// ValidateNoteResponse is validate_note's answer.
type ValidateNoteResponse struct {
	KnowledgeBase               *kbase.KnowledgeBase `json:"knowledge_base"`
	Note                        NoteResponse         `json:"note"`
	MachineValidation           kbase.Validation     `json:"machine_validation"`
	ValidationInstructionForLLM string               `json:"validation_instruction_for_llm"`
}

func noteResponse(n kbase.NoteVersion) NoteResponse {
	return NoteResponse{Path: n.Path, Content: n.Content, Version: n.Version}
}

func refOf(k *kbase.KnowledgeBase) KnowledgeBaseRef {
	return KnowledgeBaseRef{Name: k.Name, Subfolder: k.Subfolder}
}
