package supervisor

import (
	"fmt"
	"slices"
	"time"

	"github.com/toolhost/toolhost/manifests"
)

// usage is what the watchdog measures of one plugin's process group.
type usage struct {
	rss int64         // bytes resident, summed over the group
	cpu time.Duration // CPU time of the group's live processes and their reaped children
}

// watch kills, alone, each plugin over its manifest's memory or cpu_time:
// its process group is killed, its calls in flight end with plugin_crashed
// and the reason, and the death counts as a crash.
func (s *Supervisor) watch() {
	type watched struct {
		st *toolState
		p  *proc
	}
	var ps []watched
	want, skip := map[int]bool{}, map[int]bool{}
	for _, st := range s.states() {
		st.mu.Lock()
		st.live = slices.DeleteFunc(st.live, func(p *proc) bool { return p.client.Exited() })
		for _, p := range st.live {
			m := p.tool.Manifest
			if p.pgid > 0 && (m.Memory > 0 || m.CPUTime > 0) {
				ps = append(ps, watched{st, p})
				want[p.pgid] = true
				if p.reaper {
					skip[p.pgid] = true // the reaper leads the group; it is not the plugin
				}
			}
		}
		st.mu.Unlock()
	}
	if len(ps) == 0 {
		return
	}
	use := groupUsage(want, skip)
	for _, w := range ps {
		reason := overCeiling(w.p.tool.Manifest, use[w.p.pgid])
		if reason == "" {
			continue
		}
		s.opts.Logger.Warn("killing a plugin over its resource ceiling", "tool", w.st.name, "reason", reason)
		w.p.mu.Lock()
		w.p.killed = reason
		w.p.mu.Unlock()
		s.crashed(w.st, w.p, reason)
		killPlugin(w.p.pgid, w.p.reaper)
	}
}

// overCeiling says why a plugin whose process group used u is over m's
// memory or cpu_time (a zero one is no ceiling), naming both figures, or
// "" when it is within them.
func overCeiling(m *manifests.Manifest, u usage) string {
	switch {
	case m.Memory > 0 && u.rss > m.Memory:
		return fmt.Sprintf("its processes held %d MiB of memory, over the manifest's memory of %d MiB", u.rss>>20, m.Memory>>20)
	case m.CPUTime > 0 && u.cpu > m.CPUTime:
		return fmt.Sprintf("it used %s of CPU time, over the manifest's cpu_time of %s", u.cpu.Round(10*time.Millisecond), m.CPUTime)
	}
	return ""
}
