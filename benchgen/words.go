package benchgen

// words is the vocabulary of titles, folder names and body text: plain
// lower-case ASCII words, none of which starts a broken-link name
// (brokenPrefix), so a broken link can never resolve by accident.
var words = []string{
	"graph", "vector", "lattice", "signal", "kernel", "tensor", "matrix", "sparse", "dense", "module",
	"network", "protocol", "schema", "index", "query", "cache", "buffer", "stream", "socket", "thread",
	"memory", "storage", "cluster", "replica", "shard", "partition", "commit", "branch", "merge", "rebase",
	"design", "review", "draft", "outline", "summary", "journal", "meeting", "agenda", "decision", "action",
	"project", "roadmap", "milestone", "sprint", "backlog", "feature", "release", "version", "patch", "hotfix",
	"research", "paper", "theory", "proof", "lemma", "theorem", "axiom", "model", "sample", "dataset",
	"training", "inference", "gradient", "descent", "entropy", "softmax", "attention", "encoder", "decoder", "token",
	"language", "grammar", "syntax", "semantic", "meaning", "context", "window", "prompt", "answer", "question",
	"garden", "forest", "river", "mountain", "valley", "ocean", "island", "desert", "meadow", "canyon",
	"coffee", "recipe", "kitchen", "bread", "butter", "pepper", "garlic", "onion", "tomato", "basil",
	"travel", "ticket", "station", "airport", "hotel", "museum", "gallery", "theater", "concert", "festival",
	"health", "sleep", "exercise", "running", "cycling", "swimming", "yoga", "diet", "habit", "routine",
	"finance", "budget", "invoice", "receipt", "account", "ledger", "savings", "pension", "mortgage", "tax",
	"history", "empire", "dynasty", "treaty", "battle", "archive", "letter", "diary", "chronicle", "legend",
	"music", "melody", "rhythm", "harmony", "chord", "scale", "tempo", "guitar", "piano", "violin",
	"physics", "quantum", "particle", "photon", "gravity", "orbit", "planet", "comet", "galaxy", "nebula",
	"biology", "cell", "protein", "enzyme", "genome", "neuron", "synapse", "species", "habitat", "ecology",
	"writing", "chapter", "scene", "character", "plot", "dialogue", "narrative", "essay", "poem", "verse",
	"software", "compiler", "runtime", "debugger", "profiler", "benchmark", "latency", "throughput", "queue", "scheduler",
	"security", "cipher", "hash", "signature", "certificate", "token", "session", "audit", "policy", "access",
	"teaching", "lecture", "seminar", "student", "course", "exam", "syllabus", "reading", "exercise", "lesson",
	"people", "friend", "family", "mentor", "colleague", "client", "partner", "team", "community", "neighbor",
	"idea", "insight", "pattern", "principle", "heuristic", "tradeoff", "constraint", "option", "risk", "goal",
	"amber", "azure", "crimson", "golden", "silver", "violet", "indigo", "scarlet", "emerald", "ivory",
	"quiet", "rapid", "gentle", "bright", "hidden", "ancient", "modern", "simple", "complex", "robust",
	"north", "south", "eastern", "western", "upper", "lower", "inner", "outer", "central", "remote",
	"monday", "friday", "morning", "evening", "winter", "summer", "spring", "autumn", "weekly", "annual",
}

// topFolders are the top-level folders of every vault, PARA-style, as many
// real vaults are organised.
var topFolders = []string{"Areas", "Projects", "Resources", "Archive", "Daily", "People", "Meetings", "Inbox"}

// dupNames are file names that real vaults repeat in many folders. A note
// takes one of them only when its folder has no note of that name yet.
var dupNames = []string{
	"Index", "Overview", "Meeting notes", "Ideas", "TODO", "README", "Reading list",
	"Summary", "Questions", "Log", "Notes", "References",
}

// statuses are the values of the frontmatter "status" field.
var statuses = []string{"draft", "active", "review", "done", "someday"}

// headings are the section titles of note bodies.
var headings = []string{"Context", "Details", "Notes", "Open questions", "Links", "Summary", "Background", "Next steps"}

// brokenPrefix starts every broken link's target; no word, folder or
// duplicate name starts with it (a test checks).
const brokenPrefix = "Unwritten"
