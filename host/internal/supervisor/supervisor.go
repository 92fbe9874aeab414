// Package supervisor runs plugin processes for the host: lazy launch, a
// concurrency bound with a bounded queue, per-call timeouts, cancellation,
// idle stop after in-flight calls drain, crash recovery with backoff, and the
// process hygiene of docs/design.md ("Lifecycle") (stdin /dev/null, scrubbed environment,
// Pdeathsig, AutoMTLS, binaries run from a host-owned copy).
package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/toolhost/toolhost/manifests"
	"github.com/toolhost/toolhost/registry"
	"github.com/toolhost/toolhost/sdk/wire"
)

// BaseEnv is the minimal set of host variables every plugin gets: the
// basics of a process (PATH aside: see pluginEnv), and the four XDG base directories (XDG_CACHE_HOME,
// XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_STATE_HOME), which only say where the
// user keeps each kind of file, so a plugin finds its cache and data where
// the user moved them. No other XDG_* variable passes: a name with that
// prefix is no promise that it holds a path (XDG_SECRET_TOKEN).
var BaseEnv = []string{"HOME", "USER", "LANG", "LC_ALL", "TZ", "TMPDIR",
	"XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"}

// Options configure a Supervisor. Zero values take the defaults.
type Options struct {
	// Logger receives the supervisor's and the plugins' logs.
	Logger hclog.Logger
	// CacheDir holds the run copies of plugin folders the host launches
	// (default registry.DefaultRunDir()).
	CacheDir string
	// Hashes caches file hashes for checking run copies (default: in
	// memory).
	Hashes *registry.HashCache
	// Idle stops a plugin after this long without calls (default 10m); a
	// manifest's idle overrides it.
	Idle time.Duration
	// WorkDir is the plugins' working directory (default: the host's).
	WorkDir string
	// Environ is the host environment (default os.Environ()).
	Environ []string
	// QueueFactor bounds waiting calls at QueueFactor × concurrency
	// (default 4); calls beyond it get busy at once.
	QueueFactor int
	// MaxCrashes process deaths within CrashWindow disable a tool
	// (defaults 3 and 1m).
	MaxCrashes  int
	CrashWindow time.Duration
	// Backoff is the first wait before relaunching a crashed plugin; it
	// doubles with each crash in the window (default 100ms), up to
	// DisableFor.
	Backoff time.Duration
	// DisableFor is how long the first disable lasts (default 30s); each
	// further disable of the same binary doubles it, up to DisableMax
	// (default 10m). When it expires the next call is a probe.
	DisableFor time.Duration
	DisableMax time.Duration
	// StateDir, when set, is where disables are recorded for `host list`.
	StateDir string
	// MaxInflight bounds the calls running at once across every tool
	// (HOST_MAX_INFLIGHT, default 64); up to QueueFactor × MaxInflight more
	// wait, and a call beyond that gets busy. Nested calls of an agent run
	// inside their agent's slot.
	MaxInflight int
	// Clock is the time source (default the system clock).
	Clock Clock
	// Reaper, when set, is an executable that runs Reap when given
	// ReaperArg (the host's own, /proc/self/exe): each plugin then runs
	// under a reaper that kills its whole process group when the host dies,
	// however it dies. Without one, only the plugin process itself gets
	// Pdeathsig.
	Reaper string
	// WatchEvery is how often the manifests' memory and cpu_time ceilings
	// are checked (default 250ms).
	WatchEvery time.Duration
	// StartTimeout is how long a launched plugin has to complete the
	// plugin handshake (default 20s); one that does not is killed and its
	// call answers not_ready.
	StartTimeout time.Duration
	// HostServer, when set, is served to agents and MCP servers' bridges
	// over go-plugin's broker for the duration of each of their calls; ctx
	// is the call's.
	HostServer func(ctx context.Context, agent string, caller *wire.Caller) wire.HostServer
	// OnLaunch and OnCrash, when set, are told of each plugin process
	// started and each one that died under the host (the metrics); they
	// must not block.
	OnLaunch func(tool string)
	OnCrash  func(tool string)
	// OnChanged, when set, is told of a tool whose folder, read at its
	// first launch, no longer matches its approval (the launch is
	// refused), so the registry can rescan and list it as changed.
	OnChanged func(tool string)
	// BridgeExe is the host's executable, which runs an MCP server's
	// plugin as its bridge (mcpbridge.Arg); without it such a plugin
	// cannot start.
	BridgeExe string
}

// Supervisor owns every plugin process the host runs.
type Supervisor struct {
	opts Options

	mu     sync.Mutex // guards tools and closed only
	tools  map[string]*toolState
	closed bool
	wg     sync.WaitGroup // idle reapers and retirements
	stop   chan struct{}

	// inflight and queued are the host-wide slots of MaxInflight.
	inflight chan struct{}
	queued   chan struct{}
}

// toolState is everything the supervisor keeps per tool name.
type toolState struct {
	// mu guards the fields below; a launch holds it, so only calls to the
	// same tool wait for that tool's start.
	mu   sync.Mutex
	name string
	sem  chan struct{} // concurrency slots
	wait chan struct{} // queue slots

	cur       *proc
	live      []*proc     // launched and not yet seen exited, for the watchdog
	crashes   []time.Time // process deaths within the crash window
	disabled  *Disabled   // nil when enabled
	disables  int         // how many times this binary was disabled
	probing   bool        // a call is trying the plugin after its disable expired
	enabledAt time.Time   // when a probe last enabled it again
	notBefore time.Time   // relaunch backoff
}

// proc is one launched plugin process.
type proc struct {
	tool     *registry.Tool
	sha      string
	client   *plugin.Client
	rpc      *wire.Client
	mu       sync.Mutex
	inflight int
	lastUse  time.Time
	retired  bool
	// crashCounted (guarded by the tool state's mu) makes a death count
	// once, however many calls in flight it failed.
	crashCounted bool
	// killed says why the watchdog killed the process, "" otherwise.
	killed string
	// pgid is the plugin's process group; reaper is true when its leader
	// is a reaper rather than the plugin.
	pgid   int
	reaper bool
}

// New returns a Supervisor.
func New(opts Options) *Supervisor {
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	if opts.Idle <= 0 {
		opts.Idle = 10 * time.Minute
	}
	if opts.CacheDir == "" {
		opts.CacheDir = registry.DefaultRunDir()
	}
	if opts.Hashes == nil {
		opts.Hashes = registry.NewHashCache("", nil)
	}
	if opts.WorkDir == "" {
		opts.WorkDir, _ = os.Getwd()
	}
	if opts.Environ == nil {
		opts.Environ = os.Environ()
	}
	if opts.QueueFactor <= 0 {
		opts.QueueFactor = 4
	}
	if opts.MaxCrashes <= 0 {
		opts.MaxCrashes = 3
	}
	if opts.CrashWindow <= 0 {
		opts.CrashWindow = time.Minute
	}
	if opts.Backoff <= 0 {
		opts.Backoff = 100 * time.Millisecond
	}
	if opts.DisableFor <= 0 {
		opts.DisableFor = 30 * time.Second
	}
	if opts.DisableMax < opts.DisableFor {
		opts.DisableMax = max(10*time.Minute, opts.DisableFor)
	}
	if opts.MaxInflight <= 0 {
		opts.MaxInflight = 64
	}
	if opts.Clock == nil {
		opts.Clock = realClock{}
	}
	if opts.WatchEvery <= 0 {
		opts.WatchEvery = 250 * time.Millisecond
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 20 * time.Second
	}
	s := &Supervisor{opts: opts, tools: map[string]*toolState{}, stop: make(chan struct{}),
		inflight: make(chan struct{}, opts.MaxInflight), queued: make(chan struct{}, opts.MaxInflight*opts.QueueFactor)}
	s.wg.Add(2)
	// Stop idle plugins whose calls have drained; check the running
	// plugins' resource ceilings.
	go s.every(time.Second, func() { s.reapIdle(time.Now()) })
	go s.every(s.opts.WatchEvery, s.watch)
	return s
}

// Call runs one call on tool's plugin and returns its result. Every failure
// is a result carrying the error envelope; Call never panics on plugin
// misbehaviour. onProgress, when set, receives progress events.
func (s *Supervisor) Call(ctx context.Context, tool *registry.Tool, req *wire.CallRequest, onProgress func(*wire.Progress)) *wire.Result {
	st, probe, failure := s.admit(tool)
	if failure != nil {
		return failure
	}
	var out callOutcome
	if probe {
		defer func() { s.probeDone(st, out.crashed, out.cancelled) }()
	}
	release, failure := s.slots(ctx, st, tool, req)
	if failure != nil {
		out.cancelled = true
		return failure
	}
	defer release()
	p, failure := s.acquire(ctx, st, tool)
	if failure != nil {
		out.cancelled = true // a plugin that did not start proved nothing: a probe stays due
		return failure
	}
	defer s.release(p)
	out = s.run(ctx, st, p, tool, req, onProgress)
	return out.res
}

// callOutcome is what one call came to: its result, and whether the
// plugin crashed during it or the caller gave up first (a probe call that
// was cancelled proved nothing either way).
type callOutcome struct {
	res                *wire.Result
	crashed, cancelled bool
}

// slots takes what a call needs before it may run: a host-wide slot for a
// top-level call (an agent's nested calls run inside their agent's, so a
// flood of agents cannot starve their own children), then a place in the
// tool's bounded queue and one of its concurrency slots. The returned func
// gives them all back.
func (s *Supervisor) slots(ctx context.Context, st *toolState, tool *registry.Tool, req *wire.CallRequest) (func(), *wire.Result) {
	releaseHost := func() {}
	if req.GetCaller().GetAgent() == "" {
		release, failure := s.hostSlot(ctx, tool)
		if failure != nil {
			return nil, failure
		}
		releaseHost = release
	}
	releaseTool, failure := toolSlot(ctx, st, tool)
	if failure != nil {
		releaseHost()
		return nil, failure
	}
	return func() { releaseTool(); releaseHost() }, nil
}

// toolSlot takes a place in the tool's bounded queue, refusing at once when
// it is full, then waits there for one of its concurrency slots; the
// returned func gives the slot back.
func toolSlot(ctx context.Context, st *toolState, tool *registry.Tool) (func(), *wire.Result) {
	select {
	case st.wait <- struct{}{}:
	default:
		return nil, wire.Failure(wire.CodeBusy, fmt.Sprintf("%s is busy: %d calls running and %d waiting", tool.Name(), cap(st.sem), cap(st.wait)),
			"retry in a moment, or make fewer calls at once")
	}
	select {
	case st.sem <- struct{}{}:
		<-st.wait
		return func() { <-st.sem }, nil
	case <-ctx.Done():
		<-st.wait
		return nil, ctxFailure(ctx, tool, "while waiting for a free slot")
	}
}

// run makes the call on p within the manifest's timeout, serving the host
// API to an agent or an MCP server's bridge while it runs, and says what it
// came to.
func (s *Supervisor) run(ctx context.Context, st *toolState, p *proc, tool *registry.Tool, req *wire.CallRequest, onProgress func(*wire.Progress)) callOutcome {
	timeout := callTimeout(tool)
	callCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// An agent calls the host; an MCP server's bridge passes the server's
	// elicitation and sampling requests to the call's client through it.
	if (tool.Manifest.Kind == "agent" || tool.Manifest.MCP()) && s.opts.HostServer != nil && p.rpc.Broker != nil {
		stopHost := serveHost(p.rpc.Broker, s.opts.HostServer(ctx, tool.Name(), req.GetCaller()), req)
		defer stopHost()
	}
	res, err := runCall(callCtx, p.rpc, req, onProgress, recvLimit(req))
	if err == nil {
		// The plugin enforces the deadline gRPC carries and may answer its
		// own timeout before our timer fires: past the deadline, that is the
		// manifest's timeout, named as such.
		if dl, ok := callCtx.Deadline(); ok && res.GetError().GetCode() == string(wire.CodeTimeout) && !time.Now().Before(dl) && ctx.Err() == nil {
			return callOutcome{res: manifestTimeout(tool, req, timeout)}
		}
		return callOutcome{res: res}
	}
	return s.failed(ctx, callCtx, st, p, tool, req, timeout, err)
}

// callTimeout is the manifest's timeout for one call, the manifests'
// default when it sets none.
func callTimeout(tool *registry.Tool) time.Duration {
	if t := tool.Manifest.Timeout; t > 0 {
		return t
	}
	return manifests.DefaultTimeout
}

// failed turns a call that ended in err into its answer: the plugin killed
// for a limit, a result refused for its size, the manifest's timeout, the
// caller's cancellation, a crash, or else an internal error.
func (s *Supervisor) failed(ctx, callCtx context.Context, st *toolState, p *proc, tool *registry.Tool, req *wire.CallRequest, timeout time.Duration, err error) callOutcome {
	if reason := p.killReason(); reason != "" {
		s.crashed(st, p, reason)
		return callOutcome{crashed: true, res: wire.Failure(wire.CodePluginCrashed, fmt.Sprintf("%s was stopped during %s: %s", tool.Name(), req.GetAction(), reason),
			"ask for less in one call, or raise the limit in "+tool.Manifest.Path)}
	}
	switch {
	case errors.Is(err, errResultTooLarge):
		return callOutcome{res: tooLarge(tool, req)}
	// The plugin may enforce the deadline (gRPC carries it) a moment before
	// our own timer fires: either way it is the manifest's timeout.
	case (errors.Is(callCtx.Err(), context.DeadlineExceeded) || status.Code(err) == codes.DeadlineExceeded) && ctx.Err() == nil:
		return callOutcome{res: manifestTimeout(tool, req, timeout)}
	case ctx.Err() != nil:
		return callOutcome{cancelled: true, res: ctxFailure(ctx, tool, "")}
	}
	if s.died(p, err) {
		s.crashed(st, p, err.Error())
		return callOutcome{crashed: true, res: wire.Failure(wire.CodePluginCrashed, fmt.Sprintf("%s crashed during %s: %v", tool.Name(), req.GetAction(), err),
			"the next call starts it again; if it keeps crashing, check its logs on the host's stderr")}
	}
	return callOutcome{res: wire.Failure(wire.CodeInternalError, fmt.Sprintf("call %s %s: %v", tool.Name(), req.GetAction(), err), "")}
}

// hostSlot takes one of the host-wide MaxInflight slots, waiting in a
// bounded queue; the returned func gives it back.
func (s *Supervisor) hostSlot(ctx context.Context, tool *registry.Tool) (func(), *wire.Result) {
	select {
	case s.inflight <- struct{}{}:
		return func() { <-s.inflight }, nil
	default:
	}
	select {
	case s.queued <- struct{}{}:
	default:
		return nil, wire.Failure(wire.CodeBusy, fmt.Sprintf("the host is busy: %d calls running and %d waiting (HOST_MAX_INFLIGHT)", cap(s.inflight), cap(s.queued)),
			"retry in a moment, or make fewer calls at once")
	}
	defer func() { <-s.queued }()
	select {
	case s.inflight <- struct{}{}:
		return func() { <-s.inflight }, nil
	case <-ctx.Done():
		return nil, ctxFailure(ctx, tool, "while waiting for the host to have a free slot")
	}
}

// runCall streams one call: progress events, then the result.
func runCall(ctx context.Context, c *wire.Client, req *wire.CallRequest, onProgress func(*wire.Progress), limit int) (*wire.Result, error) {
	stream, err := c.Call(ctx, req, grpc.MaxCallRecvMsgSize(limit))
	if err != nil {
		return nil, err
	}
	for {
		ev, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil, errors.New("the plugin closed the call without a result")
		}
		if s, ok := status.FromError(err); ok && s.Code() == codes.ResourceExhausted && strings.Contains(s.Message(), "received message larger than max") {
			// grpc-go's own refusal on this side, before the body is read.
			return nil, fmt.Errorf("%w: %w", errResultTooLarge, err)
		}
		if err != nil {
			return nil, err
		}
		if p := ev.GetProgress(); p != nil {
			if onProgress != nil {
				onProgress(p)
			}
			continue
		}
		if r := ev.GetResult(); r != nil {
			return r, nil
		}
	}
}

// envelopeBytes is the room a result message takes besides its JSON and
// Markdown (field tags, lengths, an error envelope).
const envelopeBytes = 64 << 10

// fallbackMaxResult bounds a call whose caller set no MaxResultBytes.
const fallbackMaxResult = 16 << 20

// errResultTooLarge marks a call whose result message was refused as it
// arrived, for being over the caller's cap.
var errResultTooLarge = errors.New("the result is larger than the caller's cap")

// recvLimit is the largest message a call may receive: the caller's result
// cap for the JSON and again for the Markdown, plus the envelope. A result
// over it is refused by gRPC as it arrives, before the host buffers it;
// other RPCs keep go-plugin's own limit.
func recvLimit(req *wire.CallRequest) int {
	max := int(req.GetCaller().GetMaxResultBytes())
	if max <= 0 || max > fallbackMaxResult {
		max = fallbackMaxResult
	}
	return 2*max + envelopeBytes
}

// tooLarge is the answer to a result refused on arrival.
func tooLarge(tool *registry.Tool, req *wire.CallRequest) *wire.Result {
	a := tool.Manifest.Action(req.GetAction())
	var narrow []string
	if a != nil {
		narrow = a.NarrowWith
	}
	r := wire.Failure(wire.CodeResultTooLarge,
		fmt.Sprintf("the result of %s %s is over %d bytes, the host's limit (HOST_MAX_RESULT_BYTES) plus room for its Markdown; it was refused as it arrived",
			tool.Name(), req.GetAction(), recvLimit(req)), a.AskForLess())
	r.Error.DetailsJson, _ = json.Marshal(map[string]any{"max_bytes": req.GetCaller().GetMaxResultBytes(), "narrow_with": narrow})
	return r
}

// died tells whether a failed call means p is gone: it exited, its
// connection is down, or — on an error that a live plugin can also send
// (a result it could not encode) — it no longer answers Describe. A plugin
// still answering is not counted as a crash.
func (s *Supervisor) died(p *proc, err error) bool {
	if p.client.Exited() {
		return true
	}
	switch status.Code(err) {
	case codes.Unavailable:
		return true
	case codes.Canceled, codes.Internal, codes.Unknown:
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, derr := p.rpc.Describe(ctx, &wire.DescribeRequest{})
		return derr != nil || p.client.Exited()
	}
	return false
}

// manifestTimeout is the answer to a call that ran past its manifest's
// timeout: the limit named, and where to raise it.
func manifestTimeout(tool *registry.Tool, req *wire.CallRequest, timeout time.Duration) *wire.Result {
	return wire.Failure(wire.CodeTimeout, fmt.Sprintf("%s %s did not finish within %s (the manifest's timeout)", tool.Name(), req.GetAction(), timeout),
		"narrow the call, or raise timeout in "+tool.Manifest.Path)
}

func ctxFailure(ctx context.Context, tool *registry.Tool, where string) *wire.Result {
	msg := fmt.Sprintf("the call to %s was cancelled", tool.Name())
	if where != "" {
		msg += " " + where
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return wire.Failure(wire.CodeTimeout, strings.Replace(msg, "was cancelled", "ran out of time", 1), "")
	}
	return wire.Failure(wire.CodeCancelled, msg, "")
}

// admit returns the tool's state, or a failure when it is disabled; probe
// is true for the one call that tries a tool whose disable expired.
func (s *Supervisor) admit(tool *registry.Tool) (st *toolState, probe bool, failure *wire.Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, false, wire.Failure(wire.CodeCancelled, "the host is shutting down", "")
	}
	st = s.tools[tool.Name()]
	if st == nil {
		n := tool.Manifest.Concurrency
		if n <= 0 {
			n = 4
		}
		st = &toolState{name: tool.Name(), sem: make(chan struct{}, n), wait: make(chan struct{}, n*s.opts.QueueFactor)}
		s.tools[tool.Name()] = st
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	probe, failure = s.checkDisabledLocked(st, tool.SHA256)
	if failure != nil {
		return nil, false, failure
	}
	return st, probe, nil
}

// acquire returns a running process for tool, launching one when needed, and
// counts the call in flight.
func (s *Supervisor) acquire(ctx context.Context, st *toolState, tool *registry.Tool) (*proc, *wire.Result) {
	st.mu.Lock()
	p := st.cur
	if p != nil && (p.sha != tool.SHA256 || p.client.Exited()) {
		s.retireLocked(st, p)
		p = nil
	}
	if p == nil {
		if wait := st.notBefore.Sub(s.opts.Clock.Now()); wait > 0 {
			st.mu.Unlock()
			select {
			case <-s.opts.Clock.After(wait):
			case <-ctx.Done():
				return nil, ctxFailure(ctx, tool, "while waiting to relaunch after a crash")
			}
			st.mu.Lock()
		}
		if st.cur != nil && st.cur.sha == tool.SHA256 && !st.cur.client.Exited() {
			p = st.cur
		} else {
			np, err := s.launch(ctx, tool)
			if err != nil {
				st.mu.Unlock()
				if ctx.Err() != nil {
					return nil, ctxFailure(ctx, tool, "while the plugin was starting")
				}
				if na, ok := errors.AsType[*registry.ApprovalError](err); ok {
					// Read at its first launch and found changed: refused
					// as the scan refuses it.
					if s.opts.OnChanged != nil {
						s.opts.OnChanged(tool.Name())
					}
					return nil, wire.Failure(wire.CodeNotReady, fmt.Sprintf("%s is not ready: %s", tool.Name(), na.Reason), na.NextStep)
				}
				next := "run `host check` to see what is wrong with the plugin"
				if le, ok := errors.AsType[*launchError](err); ok && le.nextStep != "" {
					next = le.nextStep
				}
				return nil, wire.Failure(wire.CodeNotReady, fmt.Sprintf("%s could not start: %v", tool.Name(), err), next)
			}
			st.cur = np
			st.live = append(st.live, np)
			p = np
		}
	}
	p.mu.Lock()
	p.inflight++
	p.lastUse = time.Now()
	p.mu.Unlock()
	st.mu.Unlock()
	return p, nil
}

// release ends a call in flight; a retired process stops when its last
// call ends.
func (s *Supervisor) release(p *proc) {
	p.mu.Lock()
	p.inflight--
	p.lastUse = time.Now()
	done := p.retired && p.inflight == 0
	p.mu.Unlock()
	if done {
		p.client.Kill()
	}
}

// retireLocked takes p out of service (st.mu held); it is stopped once its
// calls drain.
func (s *Supervisor) retireLocked(st *toolState, p *proc) {
	if st.cur == p {
		st.cur = nil
	}
	p.mu.Lock()
	p.retired = true
	idle := p.inflight == 0
	p.mu.Unlock()
	if idle {
		go p.client.Kill()
	}
}

// crashed records the death of p (once per process): it is discarded,
// relaunch backs off, and a tool that keeps crashing is disabled.
func (s *Supervisor) crashed(st *toolState, p *proc, reason string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	s.crashedLocked(st, p, reason)
}

// killReason says why the watchdog killed p, or "".
func (p *proc) killReason() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.killed
}

// launch starts tool's plugin from the host-owned copy of its binary and
// checks Describe against the manifest.
func (s *Supervisor) launch(ctx context.Context, tool *registry.Tool) (*proc, error) {
	bin, err := s.ownedCopy(tool)
	if err != nil {
		return nil, err
	}
	exe, args, env, err := s.command(tool, bin)
	if err != nil {
		return nil, err
	}
	logger := s.opts.Logger.Named(tool.Name())
	if !limitsEnforced && (tool.Manifest.Memory > 0 || tool.Manifest.CPUTime > 0) {
		logger.Warn("memory and cpu_time are not enforced on this platform (Linux and Windows enforce them)", "manifest", tool.Manifest.Path)
	}
	tail := &stderrTail{} // what the plugin last said on stderr, for a failed launch
	var group int         // set by the runner as the process starts, before Client returns
	var viaReaper bool
	cfg := &plugin.ClientConfig{
		HandshakeConfig:  wire.Handshake,
		Plugins:          wire.PluginMap(nil),
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		RunnerFunc: newRunner(exe, args, s.opts.Reaper, s.opts.WorkDir, env,
			limits{memory: tool.Manifest.Memory, cpuTime: int64(tool.Manifest.CPUTime)}, func(pgid int, reaper bool) {
				group, viaReaper = pgid, reaper
			}),
		SkipHostEnv:  true,
		AutoMTLS:     true,
		Managed:      true,
		Logger:       logger,
		SyncStdout:   logWriter{logger, "stdout"},
		SyncStderr:   logWriter{logger, "stderr"},
		Stderr:       tail,
		StartTimeout: s.opts.StartTimeout,
	}
	cfg.GRPCDialOptions = pluginDialOptions()
	client := plugin.NewClient(cfg)
	rpcClient, err := client.Client()
	// failed stops the plugin, which waits for go-plugin to read its
	// stderr to the end, and returns err with the stderr's last lines.
	failed := func(err error) error {
		client.Kill()
		out := tail.String()
		return &launchError{err: err, stderr: out, nextStep: launchNextStep(out)}
	}
	if err != nil {
		return nil, failed(fmt.Errorf("start %s: %w", bin, err))
	}
	raw, err := rpcClient.Dispense(wire.PluginName)
	if err != nil {
		return nil, failed(fmt.Errorf("connect: %w", err))
	}
	c := raw.(*wire.Client)
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	d, err := c.Describe(dctx, &wire.DescribeRequest{})
	if err != nil {
		return nil, failed(fmt.Errorf("describe: %w", err))
	}
	if err := checkPinned(dctx, tool, c); err != nil {
		if _, ok := err.(*registry.ApprovalError); ok {
			client.Kill()
			return nil, err
		}
		return nil, failed(err)
	}
	if diff := DescribeDiff(tool.Manifest.ActionNames(), d.GetActions()); diff != "" {
		client.Kill()
		return nil, fmt.Errorf("the binary does not match %s: %s", tool.Manifest.Path, diff)
	}
	logger.Debug("plugin started", "binary", bin)
	if s.opts.OnLaunch != nil {
		s.opts.OnLaunch(tool.Name())
	}
	return &proc{tool: tool, sha: tool.SHA256, client: client, rpc: c, lastUse: time.Now(), pgid: group, reaper: viaReaper}, nil
}

// DescribeDiff says how the actions a binary implements differ from its
// manifest's, or "" when they match.
func DescribeDiff(manifest, binary []string) string {
	var missing, extra []string
	for _, a := range manifest {
		if !slices.Contains(binary, a) {
			missing = append(missing, a)
		}
	}
	for _, a := range binary {
		if !slices.Contains(manifest, a) {
			extra = append(extra, a)
		}
	}
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, "actions in tool.yaml but not in the binary: "+strings.Join(missing, ", "))
	}
	if len(extra) > 0 {
		parts = append(parts, "actions in the binary but not in tool.yaml: "+strings.Join(extra, ", "))
	}
	return strings.Join(parts, "; ")
}

// pluginEnv is the scrubbed environment: the base set, the manifest's
// passthrough, and its declared secrets, less every variable of the host's
// own (manifests.HostOnlyEnv) whatever the manifest lists; and PATH, which
// is the manifest's exec_path, the host's when env lists PATH, or else the
// system's fixed one — never a folder of the user's the manifest did not
// name, where a program of the same name as one the plugin runs could be.
func (s *Supervisor) pluginEnv(tool *registry.Tool) []string {
	want := map[string]bool{}
	for _, k := range BaseEnv {
		want[k] = true
	}
	for _, k := range tool.Manifest.Env {
		want[k] = true
	}
	for _, sec := range tool.Manifest.Secrets {
		want[sec.Env] = true
	}
	path := systemPath(s.opts.Environ)
	if len(tool.Manifest.ExecPath) > 0 {
		path = strings.Join(tool.Manifest.ExecPath, string(os.PathListSeparator))
	}
	var env []string
	for _, kv := range s.opts.Environ {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case manifests.HostOnlyEnv(k):
		case k == "PATH" && want[k]:
			path = v
		case want[k]:
			env = append(env, kv)
		}
	}
	env = append(env, "PATH="+path)
	sort.Strings(env)
	return env
}

// ownedCopy returns the entrypoint in the run copy of tool's whole folder
// (read-only, made once per digest and checked before every launch), so
// the checked bytes are the executed bytes and the author may change the
// original while it runs.
func (s *Supervisor) ownedCopy(tool *registry.Tool) (string, error) {
	if tool.SHA256 == "" {
		return "", fmt.Errorf("%s has no binary: %s", tool.Name(), tool.NotReady)
	}
	bin, err := registry.RunCopy(tool, s.opts.CacheDir, s.opts.Hashes)
	if err != nil {
		return "", fmt.Errorf("supervisor: %w", err)
	}
	return bin, nil
}

// every runs f every d until the supervisor stops; s.wg counts it.
func (s *Supervisor) every(d time.Duration, f func()) {
	defer s.wg.Done()
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			f()
		}
	}
}

// states returns the tool states, for the sweeps below.
func (s *Supervisor) states() []*toolState {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*toolState, 0, len(s.tools))
	for _, st := range s.tools {
		out = append(out, st)
	}
	return out
}

func (s *Supervisor) reapIdle(now time.Time) {
	for _, st := range s.states() {
		st.mu.Lock()
		p := st.cur
		if p == nil {
			st.mu.Unlock()
			continue
		}
		idle := s.opts.Idle
		if p.tool.Manifest.Idle > 0 {
			idle = p.tool.Manifest.Idle
		}
		p.mu.Lock()
		stop := p.inflight == 0 && now.Sub(p.lastUse) >= idle
		p.mu.Unlock()
		if stop {
			s.opts.Logger.Debug("stopping idle plugin", "tool", st.name)
			s.retireLocked(st, p)
		}
		st.mu.Unlock()
	}
}

// Running returns the names of tools with a live process, sorted.
func (s *Supervisor) Running() []string {
	var names []string
	for _, st := range s.states() {
		st.mu.Lock()
		if st.cur != nil && !st.cur.client.Exited() {
			names = append(names, st.name)
		}
		st.mu.Unlock()
	}
	sort.Strings(names)
	return names
}

// Warm launches tool's plugin now (for `eager: true`).
func (s *Supervisor) Warm(ctx context.Context, tool *registry.Tool) error {
	st, probe, failure := s.admit(tool)
	if failure != nil {
		return errors.New(failure.GetError().GetMessage())
	}
	if probe {
		defer s.probeDone(st, false, true) // starting is no proof; the next call probes
	}
	p, failure := s.acquire(ctx, st, tool)
	if failure != nil {
		return errors.New(failure.GetError().GetMessage())
	}
	s.release(p)
	return nil
}

// Close stops every plugin; calls in flight end with an error.
func (s *Supervisor) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.mu.Unlock()
	var procs []*proc
	for _, st := range s.states() {
		st.mu.Lock()
		if st.cur != nil {
			procs = append(procs, st.cur)
			st.cur = nil
		}
		st.mu.Unlock()
	}
	close(s.stop)
	for _, p := range procs {
		p.client.Kill()
	}
	plugin.CleanupClients() // retired processes still draining
	s.wg.Wait()
}

// serveHost serves the Host service to an agent for one call over the
// broker and sets the call's broker id; the returned func stops it.
func serveHost(broker *plugin.GRPCBroker, srv wire.HostServer, req *wire.CallRequest) func() {
	id := broker.NextId()
	req.HostBrokerId = id
	started := make(chan *grpc.Server, 1)
	go broker.AcceptAndServe(id, func(opts []grpc.ServerOption) *grpc.Server {
		g := grpc.NewServer(opts...)
		wire.RegisterHostServer(g, &callHost{HostServer: srv, id: id})
		started <- g
		return g
	})
	return func() {
		select {
		case g := <-started:
			g.Stop()
		default:
		}
	}
}

// callHost is the Host service of one agent call, whose broker id is id:
// it runs a nested call only when the call names this one
// (wire.NestedCallKey), or names none and is not confirmed. Every call of
// an agent shares its process, so a host client one call kept could
// otherwise carry another call's nested calls under this call's
// confirmation.
type callHost struct {
	wire.HostServer
	id uint32
}

// Call implements wire.HostServer.
func (h *callHost) Call(in *wire.HostCallRequest, stream grpc.ServerStreamingServer[wire.CallEvent]) error {
	named := metadata.ValueFromIncomingContext(stream.Context(), wire.NestedCallKey)
	var why string
	switch {
	case len(named) > 1 || len(named) == 1 && named[0] != strconv.FormatUint(uint64(h.id), 10):
		why = "it was made within another call of the agent than the one whose host client carried it: a host client serves only the call it was given to"
	case len(named) == 0 && in.GetConfirmed():
		why = "a confirmed nested call must name the confirmed call it belongs to (made with that call's context): the confirmation belongs to that call only"
	}
	if why != "" {
		return stream.Send(&wire.CallEvent{Event: &wire.CallEvent_Result{Result: wire.Failure(wire.CodeDenied,
			fmt.Sprintf("nested call %s %s refused: %s", in.GetTool(), in.GetAction(), why),
			"call req.Host() of the request being served, with the context its handler was given")}})
	}
	return h.HostServer.Call(in, stream)
}

// logWriter forwards a plugin's stray stdout/stderr lines to the log.
type logWriter struct {
	logger hclog.Logger
	stream string
}

func (w logWriter) Write(b []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if line != "" {
			w.logger.Info("plugin output", "stream", w.stream, "line", line)
		}
	}
	return len(b), nil
}

// Sync brings the running processes in line with a new snapshot: a plugin
// whose tool is gone, or whose binary changed, is retired — stopped now if
// idle, else when its calls in flight finish.
func (s *Supervisor) Sync(snap *registry.Snapshot) {
	for _, st := range s.states() {
		st.mu.Lock()
		if st.cur != nil {
			if t, _ := snap.Tool(st.name); t == nil || t.SHA256 != st.cur.sha {
				s.opts.Logger.Debug("retiring plugin after a registry change", "tool", st.name)
				s.retireLocked(st, st.cur)
			}
		}
		st.mu.Unlock()
	}
}
