package brain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/plugins/notes/internal/notesync"
	"github.com/toolhost/toolhost/sdk"
)

// Service serves the notes actions. It keeps the brains it opened (their
// index connections) for the life of the plugin process.
type Service struct {
	// Root, when set, is the brain folder; else DefaultRoot decides per call.
	Root string
	// Configure, when set, runs on every brain the service opens (tests set
	// the clock and lock timeout here).
	Configure func(*Brain)
	// Watch starts a watcher on every brain the service opens, before its
	// first action runs: hand edits reach the index while the plugin is
	// resident (the host launched it). Close stops them.
	Watch bool

	mu     sync.Mutex
	brains map[string]*Brain
	// unreported holds the roots of brains this process created whose
	// creation no call has reported yet: the host's warm-up creates the
	// brain, and the first action the agent runs still says so.
	unreported map[string]bool
}

// takeCreated reports, once, that the brain at root was created by this
// process.
func (s *Service) takeCreated(root string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.unreported[root] {
		return false
	}
	delete(s.unreported, root)
	return true
}

// Close closes every open brain.
func (s *Service) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, b := range s.brains {
		errs = append(errs, b.Close())
	}
	s.brains = nil
	return errors.Join(errs...)
}

// Brain opens (or returns the already open) brain; created reports that
// this call created it.
func (s *Service) Brain(ctx context.Context) (*Brain, bool, error) {
	root := s.Root
	if root == "" {
		var err error
		if root, err = DefaultRoot(); err != nil {
			return nil, false, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if b, ok := s.brains[root]; ok {
		return b, false, nil
	}
	b, created, err := Open(ctx, root)
	if err != nil {
		return nil, false, err
	}
	if s.Configure != nil {
		s.Configure(b)
	}
	if s.Watch {
		if err := b.Watch(context.WithoutCancel(ctx)); err != nil {
			sdk.Logger().Warn("notes: watch the brain", "root", root, "err", err)
		}
	}
	if s.brains == nil {
		s.brains = map[string]*Brain{}
	}
	s.brains[root] = b
	if created {
		if s.unreported == nil {
			s.unreported = map[string]bool{}
		}
		s.unreported[b.Root] = true
	}
	return b, created, nil
}

// common are the args every write shares.
type common struct {
	Session string `json:"session-handle"`
	Token   string `json:"confirm-token"`
}

// handle adapts a Brain method to an action. The host (and the SDK's CLI
// mode) checks a call's args against tool.yaml before the handler runs,
// filling in every default the manifest declares and refusing values
// outside its bounds and enums, so the methods do not repeat them; Go code
// calling a method directly passes every value it needs (consolidate's
// lint pass does).
func handle[A any, R any](s *Service, fn func(b *Brain, ctx context.Context, c Call, a A) (R, error)) sdk.Handler {
	return func(ctx context.Context, req *sdk.Request) (*sdk.Result, error) {
		var a A
		if err := req.Bind(&a); err != nil {
			return nil, err
		}
		var cm common
		if err := req.Bind(&cm); err != nil {
			return nil, err
		}
		if strings.IndexFunc(cm.Session, isControlRune) >= 0 || len(cm.Session) > 200 {
			return nil, toSDK(fail(CodeInvalidArgument, "Pass the session_handle recall gave, unchanged: one line, at most 200 bytes.",
				"session-handle has a line break or control character, or is longer than 200 bytes"))
		}
		b, _, err := s.Brain(ctx)
		if err != nil {
			return nil, toSDK(err)
		}
		c := Call{Caller: req.Caller, Session: cm.Session, Args: argsDigest(req.Args), Token: cm.Token}
		r, err := fn(b, ctx, c, a)
		if err != nil {
			return nil, toSDK(err)
		}
		raw, err := json.Marshal(r)
		if err != nil {
			return nil, toSDK(fmt.Errorf("notes: encode result: %w", err))
		}
		if s.takeCreated(b.Root) {
			note, _ := json.Marshal(map[string]string{"root": b.Root, "message": "created a new brain at " + b.Root + " (git repository, .brain.json, AGENTS.md)"})
			raw = append(append(raw[:len(raw)-1], []byte(`,"brain_created":`)...), append(note, '}')...)
		}
		return &sdk.Result{Data: json.RawMessage(raw)}, nil
	}
}

// toSDK returns err as the error envelope: the reference's codes pass
// through; anything else is internal_error.
func toSDK(err error) error {
	var e *sdk.Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &sdk.Error{Code: sdk.CodeCancelled, Message: err.Error()}
	}
	sdk.Logger().Error("notes: unexpected error", "err", err)
	return &sdk.Error{Code: CodeInternal, Message: err.Error(),
		NextStep: "Check with status or read whether the operation happened before repeating it."}
}

type noArgs struct{}

// Warm opens the brain and brings its index up to date, so the first call
// after the host launches the plugin does not pay for a rebuild.
func (s *Service) Warm(ctx context.Context) {
	b, _, err := s.Brain(ctx)
	if err != nil {
		sdk.Logger().Warn("notes: warm", "err", err)
		return
	}
	if err := b.fresh(ctx); err != nil {
		sdk.Logger().Warn("notes: warm the index", "err", err)
	}
}

// Plugin returns the notes actions.
func (s *Service) Plugin() sdk.Plugin {
	p := sdk.Plugin{Start: s.Warm, Actions: map[string]sdk.Handler{
		"recall":       handle(s, (*Brain).Recall),
		"search":       handle(s, (*Brain).Search),
		"read":         handle(s, (*Brain).Read),
		"graph":        handle(s, (*Brain).Graph),
		"facts":        handle(s, (*Brain).Facts),
		"status":       handle(s, func(b *Brain, ctx context.Context, c Call, _ noArgs) (*StatusResult, error) { return b.Status(ctx, c) }),
		"lint":         handle(s, (*Brain).Lint),
		"remember":     handle(s, (*Brain).Remember),
		"handoff-save": handle(s, (*Brain).HandoffSave),
		"write-page":   handle(s, (*Brain).WritePage),
		"patch-page":   handle(s, (*Brain).PatchPage),
		"relate":       handle(s, (*Brain).Relate),
		"forget":       handle(s, (*Brain).Forget),
		"undo":         handle(s, (*Brain).Undo),
		"ingest":       handle(s, (*Brain).Ingest),
		"sync":         handle(s, func(b *Brain, ctx context.Context, c Call, _ noArgs) (*notesync.Result, error) { return b.Sync(ctx, c) }),
		"consolidate":  handle(s, (*Brain).Consolidate),
		"recent":       handle(s, (*Brain).Recent),
		"move":         handle(s, (*Brain).Move),
	}}
	// The MCP prompts and resources tool.yaml declares (content.go).
	p.Prompts, p.Resources = s.Prompts(), s.ReadResource
	p.ResourceURIs, p.ResourceTemplates = []string{SchemaURI, IndexURI}, []string{PageTemplate}
	return p
}
