package supervisor

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/toolhost/toolhost/sdk/wire"
)

// Clock is the supervisor's time source. Tests inject a fake one, so crash
// windows, relaunch backoff and disables pass without sleeping.
type Clock interface {
	Now() time.Time
	// After fires once d has passed on this clock.
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Disabled is why a tool is disabled and until when, as `host list` and a
// refused call report it.
type Disabled struct {
	Tool string `json:"tool"`
	// SHA256 is the binary that kept crashing: a rebuilt one is tried at once.
	SHA256 string `json:"sha256"`
	Reason string `json:"reason"`
	// Until is when the disable expires: the next call after it is a probe
	// that re-enables the tool when the plugin does not crash.
	Until time.Time `json:"until"`
	// Crashes is how many process deaths led to it.
	Crashes int `json:"crashes"`
}

// failure is the answer a call to a disabled tool gets.
func (d *Disabled) failure() *wire.Result {
	r := wire.Failure(wire.CodeDisabled,
		fmt.Sprintf("%s is disabled until %s: %s", d.Tool, d.Until.UTC().Format("15:04:05 UTC"), d.Reason),
		"call again after that time (the next call tries the plugin again), or fix the plugin and rebuild it: a new binary is tried at once")
	r.Error.DetailsJson, _ = json.Marshal(map[string]any{"until": d.Until.UTC().Format(time.RFC3339Nano), "reason": d.Reason, "crashes": d.Crashes})
	return r
}

// disabledDir is where the disables are recorded for `host list`.
func disabledDir(stateDir string) string { return filepath.Join(stateDir, "disabled") }

// ReadDisabled returns the disables recorded under stateDir (the
// supervisor's Options.StateDir) by the hosts running on this machine, by
// tool name. Expired ones are left out.
func ReadDisabled(stateDir string, now time.Time) (map[string]Disabled, error) {
	out := map[string]Disabled{}
	if stateDir == "" {
		return out, nil
	}
	entries, err := os.ReadDir(disabledDir(stateDir))
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("supervisor: read disabled tools: %w", err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(disabledDir(stateDir), e.Name()))
		if err != nil {
			continue // removed meanwhile
		}
		var d Disabled
		if json.Unmarshal(b, &d) != nil || d.Tool == "" || !now.Before(d.Until) {
			continue
		}
		out[d.Tool] = d
	}
	return out, nil
}

// record writes (d != nil) or removes the disable of tool under the state
// folder; a failure is logged, never fatal: the disable itself holds in
// memory.
func (s *Supervisor) record(tool string, d *Disabled) {
	if s.opts.StateDir == "" {
		return
	}
	path := filepath.Join(disabledDir(s.opts.StateDir), tool+".json")
	if d == nil {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			s.opts.Logger.Warn("could not clear a disable record", "tool", tool, "error", err)
		}
		return
	}
	b, _ := json.MarshalIndent(d, "", "  ")
	err := os.MkdirAll(filepath.Dir(path), 0o700)
	if err == nil {
		tmp := path + ".tmp"
		if err = os.WriteFile(tmp, b, 0o600); err == nil {
			err = os.Rename(tmp, path)
		}
	}
	if err != nil {
		s.opts.Logger.Warn("could not record a disable for host list", "tool", tool, "error", err)
	}
}

// checkDisabledLocked (st.mu held) returns the failure for a disabled tool,
// or nil when the call may go ahead; probe is true when this call is the one
// that tries a plugin whose disable has expired.
func (s *Supervisor) checkDisabledLocked(st *toolState, sha string) (probe bool, failure *wire.Result) {
	d := st.disabled
	if d == nil {
		return false, nil
	}
	if d.SHA256 != sha {
		// A new binary gets a fresh start.
		st.disabled, st.crashes, st.disables = nil, nil, 0
		s.record(st.name, nil)
		return false, nil
	}
	if s.opts.Clock.Now().Before(d.Until) {
		return false, d.failure()
	}
	if st.probing {
		r := d.failure()
		r.Error.Message = fmt.Sprintf("%s is being tried again after a disable (%s); call again in a moment", st.name, d.Reason)
		return false, r
	}
	st.probing = true
	return true, nil
}

// probeDone ends a probe call: a plugin that did not crash is enabled again;
// a cancelled probe lets the next call try.
func (s *Supervisor) probeDone(st *toolState, crashed, cancelled bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.probing = false
	if crashed || cancelled || st.disabled == nil {
		return // crashed() has disabled it again
	}
	s.opts.Logger.Info("plugin enabled again after a probe call", "tool", st.name)
	st.disabled, st.crashes, st.enabledAt = nil, nil, s.opts.Clock.Now()
	s.record(st.name, nil)
}

// crashedLocked (st.mu held) records one process death: relaunch backs off,
// and a tool that keeps crashing — or whose probe crashed — is disabled for
// DisableFor, doubling with each disable up to DisableMax; a tool that ran
// a whole CrashWindow after being enabled again starts over at DisableFor.
func (s *Supervisor) crashedLocked(st *toolState, p *proc, reason string) {
	if p.crashCounted {
		return // one death, however many calls it failed
	}
	p.crashCounted = true
	if s.opts.OnCrash != nil {
		s.opts.OnCrash(st.name)
	}
	s.retireLocked(st, p)
	now := s.opts.Clock.Now()
	st.crashes = append(slices.DeleteFunc(st.crashes, func(t time.Time) bool { return now.Sub(t) > s.opts.CrashWindow }), now)
	// Relaunch waits Backoff, doubling per crash in the window, but never
	// longer than a disable would (MaxCrashes may be set high).
	st.notBefore = now.Add(min(s.opts.Backoff<<min(len(st.crashes)-1, 16), s.opts.DisableFor))
	s.opts.Logger.Warn("plugin crashed", "tool", st.name, "reason", reason, "crashes", len(st.crashes))
	if len(st.crashes) < s.opts.MaxCrashes && !st.probing {
		return
	}
	why := fmt.Sprintf("it crashed %d times within %s (last: %s)", len(st.crashes), s.opts.CrashWindow, reason)
	if st.probing {
		why = fmt.Sprintf("it crashed again when tried after a disable (%s)", reason)
	}
	if !st.enabledAt.IsZero() && now.Sub(st.enabledAt) >= s.opts.CrashWindow {
		st.disables = 0 // it ran a whole crash window after its last disable: start over
	}
	wait := s.opts.DisableFor << min(st.disables, 16)
	if wait > s.opts.DisableMax || wait <= 0 {
		wait = s.opts.DisableMax
	}
	st.disables++
	st.disabled = &Disabled{Tool: st.name, SHA256: p.sha, Reason: why, Until: now.Add(wait), Crashes: len(st.crashes)}
	s.opts.Logger.Warn("plugin disabled", "tool", st.name, "until", st.disabled.Until, "reason", why)
	s.record(st.name, st.disabled)
}
