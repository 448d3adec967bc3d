package mqtt

import (
	"context"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	mochi "github.com/mochi-mqtt/server/v2"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/meta"
)

// Bounds of the broker version question: subscribing, then waiting for the
// retained message.
const (
	versionSubscribeTimeout = 5 * time.Second
	versionWait             = time.Second
)

// infoOnce returns an end's SystemInfo, computed on the first call.
func infoOnce(s *settings, c client) func() meta.SystemInfo {
	return sync.OnceValue(func() meta.SystemInfo { return systemInfo(s, c) })
}

// systemInfo describes the broker and the connection. MQTT has no version
// field: an embedded broker is mochi-mqtt at the version this program was
// built with; otherwise the retained message of s.versionTopic ($SYS/
// broker/version: Mosquitto answers "mosquitto version 2.0.11", mochi-mqtt
// its version alone) is read once, when the broker publishes it.
func systemInfo(s *settings, c client) meta.SystemInfo {
	si := meta.SystemInfo{URL: s.url.String(), Extra: c.facts()}
	driver.RecordApplied(si.Extra, appliedFlags(s))
	if _, ok := embeddedHosts.Load(s.url.Host); ok {
		si.Product, si.Version, si.Embedded = "mochi-mqtt", mochi.Version, true
		return si
	}
	if s.versionTopic == "" {
		si.Extra["broker_version"] = "not asked (empty --" + ParamVersionTopic + ")"
		return si
	}
	raw := askVersion(c, s.versionTopic)
	if raw == "" {
		si.Extra["broker_version"] = "unknown: nothing retained on " + s.versionTopic
		return si
	}
	si.Product, si.Version = parseBrokerVersion(raw)
	si.Extra["broker_version_topic"] = s.versionTopic
	return si
}

// askVersion subscribes to topic, takes the first message within
// versionWait and unsubscribes; "" when none came or the broker refused.
func askVersion(c client, topic string) string {
	if c.err() != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), versionSubscribeTimeout)
	defer cancel()
	got := make(chan string, 1)
	err := c.subscribe(ctx, topic, 0, func(p []byte) {
		select {
		case got <- string(p):
		default:
		}
	})
	if err != nil {
		return ""
	}
	defer c.unsubscribe(ctx, topic)
	select {
	case v := <-got:
		return v
	case <-time.After(versionWait):
		return ""
	case <-c.done():
		return ""
	}
}

var versionPattern = regexp.MustCompile(`(?i)^\s*(\S.*?)\s+version\s+(\S+)\s*$`)

// parseBrokerVersion splits "<product> version <version>"; anything else
// is taken as the version alone.
func parseBrokerVersion(raw string) (product, version string) {
	if m := versionPattern.FindStringSubmatch(raw); m != nil {
		return m[1], m[2]
	}
	return "", strings.TrimSpace(raw)
}

// buildDeps holds the version of each module this program was built with.
var buildDeps = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			v := d.Version
			if d.Replace != nil {
				v = d.Replace.Version
			}
			m[d.Path] = v
		}
	}
	return m
})

// embeddedHosts holds the host:port of the brokers StartEmbedded started in
// this process.
var embeddedHosts sync.Map
