package httpops

import (
	"fmt"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limiter is a token bucket per client (golang.org/x/time/rate): each
// client may send Burst requests at once and Rate a second after that.
// Buckets that have filled up again are forgotten, so the map holds only
// clients seen lately.
type Limiter struct {
	rate  rate.Limit
	burst int
	now   func() time.Time

	mu      sync.Mutex
	clients map[string]*rate.Limiter
	sweep   time.Time
}

// NewLimiter allows r requests a second per client with bursts of burst
// (at least 1); now is the clock (nil: time.Now).
func NewLimiter(r float64, burst int, now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	return &Limiter{rate: rate.Limit(r), burst: max(burst, 1), now: now, clients: map[string]*rate.Limiter{}}
}

// Allow takes a token from key's bucket. When there is none it returns
// false and how long until there is one.
func (l *Limiter) Allow(key string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.forgetFull(now)
	lim, ok := l.clients[key]
	if !ok {
		lim = rate.NewLimiter(l.rate, l.burst)
		l.clients[key] = lim
	}
	r := lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// forgetFull drops, at most once a minute, the buckets that are full again:
// a new bucket starts full, so forgetting them changes nothing.
func (l *Limiter) forgetFull(now time.Time) {
	if now.Sub(l.sweep) < time.Minute {
		return
	}
	l.sweep = now
	for k, lim := range l.clients {
		if lim.TokensAt(now) >= float64(l.burst) {
			delete(l.clients, k)
		}
	}
}

// Clients is how many clients the limiter remembers.
func (l *Limiter) Clients() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.clients)
}

// String describes the limit ("5 requests a second (bursts of 10)").
func (l *Limiter) String() string {
	return fmt.Sprintf("%g requests a second (bursts of %d)", float64(l.rate), l.burst)
}
