package httpops

import (
	"fmt"
	"sync"
	"time"
)

// Limiter is a token bucket per client: each client may send Burst
// requests at once and Rate a second after that. Buckets that have filled
// up again are forgotten, so the map holds only clients seen lately.
type Limiter struct {
	rate  float64 // tokens a second
	burst float64
	now   func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
	sweep   time.Time
}

type bucket struct {
	tokens float64
	at     time.Time
}

// NewLimiter allows rate requests a second per client with bursts of
// burst (at least 1); now is the clock (nil: time.Now).
func NewLimiter(rate float64, burst int, now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	return &Limiter{rate: rate, burst: float64(max(burst, 1)), now: now, buckets: map[string]*bucket{}}
}

// Allow takes a token from key's bucket. When there is none it returns
// false and how long until there is one.
func (l *Limiter) Allow(key string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.forgetFull(now)
	b, ok := l.buckets[key]
	if !ok {
		b = &bucket{tokens: l.burst, at: now}
		l.buckets[key] = b
	}
	b.tokens = l.filled(b, now)
	b.at = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
}

// filled is b's tokens at now.
func (l *Limiter) filled(b *bucket, now time.Time) float64 {
	if elapsed := now.Sub(b.at); elapsed > 0 {
		return min(l.burst, b.tokens+elapsed.Seconds()*l.rate)
	}
	return b.tokens
}

// forgetFull drops, at most once a minute, the buckets that are full again:
// a new bucket starts full, so forgetting them changes nothing.
func (l *Limiter) forgetFull(now time.Time) {
	if now.Sub(l.sweep) < time.Minute {
		return
	}
	l.sweep = now
	for k, b := range l.buckets {
		if l.filled(b, now) >= l.burst {
			delete(l.buckets, k)
		}
	}
}

// Clients is how many clients the limiter remembers.
func (l *Limiter) Clients() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

// String describes the limit ("5 requests a second, bursts of 10").
func (l *Limiter) String() string {
	return fmt.Sprintf("%g requests a second (bursts of %g)", l.rate, l.burst)
}
