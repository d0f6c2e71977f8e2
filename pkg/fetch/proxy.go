package fetch

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// Proxy is an HTTP proxy on loopback whose every upstream connection goes
// through a Guard. A downloader we do not control (yt-dlp follows
// redirects to CDNs and opens many connections) is pointed at it, so the
// address rules hold for all of its traffic, not just the first URL.
type Proxy struct {
	guard *Guard
	ln    net.Listener
	srv   *http.Server
	tr    *http.Transport

	mu      sync.Mutex
	blocked *BlockedError
}

// StartProxy listens on 127.0.0.1 at a free port.
func StartProxy(g *Guard) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{guard: g, ln: ln}
	p.tr = &http.Transport{DialContext: p.dial, ResponseHeaderTimeout: 30 * time.Second, DisableCompression: true}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	go p.srv.Serve(ln)
	return p, nil
}

// URL is the proxy's address for a client's proxy setting.
func (p *Proxy) URL() string { return "http://" + p.ln.Addr().String() }

// Blocked returns the first connection the guard refused, if any.
func (p *Proxy) Blocked() *BlockedError {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.blocked
}

// Close stops the proxy and its connections.
func (p *Proxy) Close() error {
	p.tr.CloseIdleConnections()
	return p.srv.Close()
}

func (p *Proxy) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := p.guard.DialContext(ctx, network, addr)
	var be *BlockedError
	if errors.As(err, &be) {
		p.mu.Lock()
		if p.blocked == nil {
			p.blocked = be
		}
		p.mu.Unlock()
	}
	return c, err
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		p.tunnel(w, r)
		return
	}
	if r.URL.Scheme != "http" || r.URL.Host == "" {
		http.Error(w, "absolute http URL or CONNECT required", http.StatusBadRequest)
		return
	}
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.Header.Del("Proxy-Connection")
	out.Header.Del("Proxy-Authorization")
	resp, err := p.tr.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// tunnel serves CONNECT (HTTPS through the proxy): check and dial the
// target, then copy bytes both ways.
func (p *Proxy) tunnel(w http.ResponseWriter, r *http.Request) {
	up, err := p.dial(r.Context(), "tcp", r.Host)
	if err != nil {
		status := http.StatusBadGateway
		var be *BlockedError
		if errors.As(err, &be) {
			status = http.StatusForbidden
		}
		http.Error(w, err.Error(), status)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "hijacking not supported", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
	down, buf, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		if n := buf.Reader.Buffered(); n > 0 { // bytes the client sent right after CONNECT
			b, _ := buf.Reader.Peek(n)
			_, _ = up.Write(b)
		}
		_, _ = io.Copy(up, down)
		closeWrite(up)
	})
	wg.Go(func() {
		_, _ = io.Copy(down, up)
		closeWrite(down)
	})
	wg.Wait()
	up.Close()
	down.Close()
}

func closeWrite(c net.Conn) {
	if tc, ok := c.(interface{ CloseWrite() error }); ok {
		_ = tc.CloseWrite()
	} else {
		_ = c.Close()
	}
}
