package daemon

import (
	"fmt"
	"net"
	"strings"

	"github.com/stead-dev/stead/web"
)

// listenWeb takes the control room's address and token, and records them
// in info: the last daemon's address and token when its port is free (a
// signed-in page goes on working across a restart), else any free port
// on loopback and a new token.
func (d *Daemon) listenWeb(info *Info) error {
	if d.Web == "off" {
		return nil
	}
	addr := d.Web
	if addr == "" {
		addr = "127.0.0.1:0"
		if old, err := Read(d.Env); err == nil && old.WebToken != "" {
			if a, ok := strings.CutPrefix(old.Web, "http://"); ok {
				if l, err := net.Listen("tcp", a); err == nil {
					d.web, d.token = l, old.WebToken
				}
			}
		}
	}
	if d.web == nil {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return fmt.Errorf("the control room cannot listen on %s: %w", addr, err)
		}
		d.web = l
	}
	if d.token == "" {
		d.token = web.NewToken()
	}
	info.Web, info.WebToken = "http://"+webHost(d.web.Addr()), d.token
	return nil
}

// webHost is how a browser on this machine reaches a listener's address.
func webHost(a net.Addr) string {
	ta, ok := a.(*net.TCPAddr)
	if !ok {
		return a.String()
	}
	if ta.IP.IsUnspecified() {
		return net.JoinHostPort("127.0.0.1", fmt.Sprint(ta.Port))
	}
	return ta.String()
}

func (d *Daemon) closeWeb() {
	if d.web != nil {
		d.web.Close()
	}
}
