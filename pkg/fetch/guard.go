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

// specialPurpose lists the ranges of the IANA IPv4 and IPv6
// Special-Purpose Address Registries (RFC 6890 and their later entries)
// that are not globally reachable, plus every range that embeds or
// translates an IPv4 address (a fetch through one could reach any IPv4
// host, internal ones included, via a translator). Ranges netip's
// predicates already cover (loopback, RFC 1918, link-local, multicast,
// unspecified) are listed too, so the list reads as the registry does.
var specialPurpose = []netip.Prefix{
	// IPv4 (iana-ipv4-special-registry).
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("10.0.0.0/8"),      // private use
	netip.MustParsePrefix("100.64.0.0/10"),   // shared address space (CGN)
	netip.MustParsePrefix("127.0.0.0/8"),     // loopback
	netip.MustParsePrefix("169.254.0.0/16"),  // link local, cloud metadata
	netip.MustParsePrefix("172.16.0.0/12"),   // private use
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments, DS-Lite, NAT64 discovery
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation (TEST-NET-1)
	netip.MustParsePrefix("192.88.99.0/24"),  // deprecated 6to4 relay anycast
	netip.MustParsePrefix("192.168.0.0/16"),  // private use
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation (TEST-NET-2)
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation (TEST-NET-3)
	netip.MustParsePrefix("224.0.0.0/4"),     // multicast
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, limited broadcast
	// IPv6 (iana-ipv6-special-registry).
	netip.MustParsePrefix("::/96"),           // IPv4-compatible (deprecated), :: and ::1
	netip.MustParsePrefix("::ffff:0:0/96"),   // IPv4-mapped (checked as IPv4 first)
	netip.MustParsePrefix("::ffff:0:0:0/96"), // IPv4-translated (SIIT)
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64 well-known prefix
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use IPv4/IPv6 translation
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("100:0:0:1::/64"),  // dummy prefix
	netip.MustParsePrefix("2001::/23"),       // IETF protocol assignments, Teredo (embeds IPv4)
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("2002::/16"),       // 6to4 (embeds any IPv4 address)
	netip.MustParsePrefix("3fff::/20"),       // documentation
	netip.MustParsePrefix("5f00::/16"),       // SRv6 SIDs
	netip.MustParsePrefix("fc00::/7"),        // unique local
	netip.MustParsePrefix("fe80::/10"),       // link-local
	netip.MustParsePrefix("fec0::/10"),       // site-local (deprecated)
	netip.MustParsePrefix("ff00::/8"),        // multicast
}

// globalUnicast6 is the only IPv6 space IANA allocates for global
// unicast; everything outside it is special or unassigned, so an IPv6
// address must be inside it besides being outside specialPurpose.
var globalUnicast6 = netip.MustParsePrefix("2000::/3")

// Public reports whether a is an ordinary internet address: not loopback,
// private, link-local (which includes the cloud metadata endpoint
// 169.254.169.254), multicast, unspecified, in any range of the IANA
// special-purpose registries, or an IPv6 form of an IPv4 address that is
// not itself public.
func Public(a netip.Addr) bool {
	if a.Is4In6() {
		a = a.Unmap() // ::ffff:a.b.c.d is dialed as a.b.c.d
	}
	if !a.IsValid() || a.Zone() != "" || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() ||
		a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return false
	}
	if a.Is6() && !globalUnicast6.Contains(a) {
		return false
	}
	for _, p := range specialPurpose {
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
