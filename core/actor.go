package core

import "context"

// Actor is who made a change: a person signed in through OAuth (Subject,
// with Email and Name when the token carries them), a static HTTP token
// ("token:<label>"), the local user of a stdio process ("local"), or an
// editor outside vaultgraph whose change the watcher saw ("outside").
type Actor struct {
	// ID is the actor as the change log records it: the OAuth subject,
	// "token:<label>", "local" or "outside".
	ID    string `json:"id"`
	Email string `json:"email,omitempty"`
	Name  string `json:"name,omitempty"`
}

// The actors that are not a signed-in person.
var (
	ActorLocal   = Actor{ID: "local"}
	ActorOutside = Actor{ID: "outside"}
)

type actorKey struct{}

// WithActor returns ctx carrying a, for the writes made under it.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorFrom returns the actor ctx carries, and whether it carries one.
func ActorFrom(ctx context.Context) (Actor, bool) {
	a, ok := ctx.Value(actorKey{}).(Actor)
	return a, ok
}
