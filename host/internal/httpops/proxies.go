package httpops

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Proxies are the peers (load balancers, ingress controllers) trusted to
// say who the client is in X-Forwarded-For. A nil *Proxies trusts none.
type Proxies struct {
	prefixes []netip.Prefix
}

// ParseProxies reads trusted proxies: addresses or CIDR prefixes
// ("10.0.0.0/8", "127.0.0.1").
func ParseProxies(list []string) (*Proxies, error) {
	p := &Proxies{}
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if !strings.Contains(s, "/") {
			a, err := netip.ParseAddr(s)
			if err != nil {
				return nil, fmt.Errorf("httpops: trusted proxy %q: not an address or CIDR prefix (e.g. 10.0.0.0/8): %w", s, err)
			}
			p.prefixes = append(p.prefixes, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		pr, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, fmt.Errorf("httpops: trusted proxy %q: not an address or CIDR prefix (e.g. 10.0.0.0/8): %w", s, err)
		}
		p.prefixes = append(p.prefixes, pr.Masked())
	}
	return p, nil
}

// trusted reports whether a is a trusted proxy.
func (p *Proxies) trusted(a netip.Addr) bool {
	if p == nil {
		return false
	}
	a = a.Unmap()
	for _, pr := range p.prefixes {
		if pr.Contains(a) {
			return true
		}
	}
	return false
}

// ClientAddr is the address of the client r comes from: the peer's, or,
// when the peer is a trusted proxy, the nearest address in
// X-Forwarded-For that is not itself a trusted proxy (walking from the
// right, the end this side's proxies appended to; what is left of it the
// client could have written).
func (p *Proxies) ClientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil || !p.trusted(peer) {
		return host
	}
	client := peer
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break // a garbled hop: trust nothing left of it
		}
		client = a.Unmap()
		if !p.trusted(client) {
			break
		}
	}
	return client.String()
}
