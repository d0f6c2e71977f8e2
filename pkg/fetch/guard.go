package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"time"
)

// nonPublic lists the ranges no fetch may reach besides what netip's own
// predicates cover: shared address space, benchmarking, documentation,
// reserved and IETF protocol ranges, NAT64 and the IPv6 special ranges.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("100::/64"),
	netip.MustParsePrefix("2001::/23"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("2002::/16"), // 6to4 can wrap any IPv4 address
	netip.MustParsePrefix("fc00::/7"),
}

// Public reports whether a is an ordinary internet address: not loopback,
// private, link-local (which includes the cloud metadata endpoint
// 169.254.169.254), multicast, unspecified or any special range.
func Public(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() || a.Zone() != "" {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// BlockedError is a refused connection: the host resolved to an address
// that is not public.
type BlockedError struct {
	Host string
	Addr netip.Addr
}

func (e *BlockedError) Error() string {
	return fmt.Sprintf("fetch: %s resolves to %s, which is not a public address", e.Host, e.Addr)
}

// Guard decides which addresses outbound connections may reach. It
// resolves the host itself and dials the checked address, never the name,
// so a second DNS answer (rebinding) cannot slip a private address in
// between the check and the connection.
type Guard struct {
	// Resolve turns a host and port into the addresses to dial (default:
	// the system resolver, same port). Tests point platform hosts at
	// their own servers with it.
	Resolve func(ctx context.Context, host, port string) ([]netip.AddrPort, error)
	// Allow decides which addresses may be reached (default Public).
	// Tests widen it to reach their servers on loopback; nothing in the
	// service configuration sets it.
	Allow func(netip.Addr) bool
	// DialTimeout bounds one connection attempt (default 10 s).
	DialTimeout time.Duration
}

func (g *Guard) resolve(ctx context.Context, host, port string) ([]netip.AddrPort, error) {
	if g.Resolve != nil {
		return g.Resolve(ctx, host, port)
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("fetch: bad port %q", port)
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else if addrs, err = net.DefaultResolver.LookupNetIP(ctx, "ip", host); err != nil {
		return nil, err
	}
	out := make([]netip.AddrPort, len(addrs))
	for i, a := range addrs {
		out[i] = netip.AddrPortFrom(a.Unmap(), uint16(p))
	}
	return out, nil
}

// Check resolves host:port and returns the addresses to dial when every
// one of them may be reached; one non-public answer refuses the host
// altogether.
func (g *Guard) Check(ctx context.Context, host, port string) ([]netip.AddrPort, error) {
	addrs, err := g.resolve(ctx, host, port)
	if err != nil {
		return nil, err
	}
	if len(addrs) == 0 {
		return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
	}
	allow := g.Allow
	if allow == nil {
		allow = Public
	}
	for _, a := range addrs {
		if !allow(a.Addr().Unmap()) {
			return nil, &BlockedError{Host: host, Addr: a.Addr().Unmap()}
		}
	}
	return addrs, nil
}

// DialContext is a net.Dialer.DialContext that only reaches checked
// addresses; use it as an http.Transport's DialContext.
func (g *Guard) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	addrs, err := g.Check(ctx, host, port)
	if err != nil {
		return nil, err
	}
	timeout := g.DialTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	d := net.Dialer{Timeout: timeout}
	var errs []error
	for _, a := range addrs {
		c, err := d.DialContext(ctx, network, a.String())
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}
