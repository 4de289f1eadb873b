package server

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"
)

// ErrForbiddenAddress is the dial error for an address the proxy never
// connects to (link-local, cloud metadata, unspecified, multicast).
var ErrForbiddenAddress = errors.New("address refused: link-local, metadata, unspecified and multicast addresses are never dialed")

// metadataAddrs are cloud instance-metadata endpoints outside the
// link-local ranges (169.254.0.0/16 and fe80::/10 are refused as a whole).
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("fd00:ec2::254"),   // AWS IMDS over IPv6
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud metadata
}

// ForbiddenIP reports whether the proxy refuses to connect to ip:
// link-local unicast and multicast (169.254.0.0/16 with the AWS/GCP/Azure
// metadata address 169.254.169.254, fe80::/10), other multicast,
// unspecified (0.0.0.0, ::) and the metadata addresses above. Loopback and
// private addresses are allowed (Prometheus usually lives there).
func ForbiddenIP(ip netip.Addr) bool {
	ip = ip.Unmap()
	if ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() || !ip.IsValid() {
		return true
	}
	for _, m := range metadataAddrs {
		if ip == m {
			return true
		}
	}
	return false
}

// guardedDialer checks every address after name resolution, just before
// connecting (so DNS answers pointing at a metadata address are refused
// too).
func guardedDialer() *net.Dialer {
	return &net.Dialer{
		Timeout:   10 * time.Second,
		KeepAlive: 30 * time.Second,
		Control: func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("%w (unparsable %q)", ErrForbiddenAddress, address)
			}
			if ForbiddenIP(ap.Addr()) {
				return ErrForbiddenAddress
			}
			return nil
		},
	}
}
