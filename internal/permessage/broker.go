package permessage

import (
	"net"
	"net/url"
	"os"
	"strconv"

	psnet "github.com/shirou/gopsutil/v4/net"
	"github.com/shirou/gopsutil/v4/process"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/load"
)

// CPUSource reads the CPU time (ns) of the process that serves a broker.
type CPUSource struct {
	// What says whose CPU it is: "broker process <pid>", or InProcessWhat.
	What string
	Read func() int64
	// InProcess is true when the broker (or an in-process transport) runs
	// in this process: its CPU is this process's less the measuring
	// sender and receiver threads, which have figures of their own.
	InProcess bool
	// Resolution is the step of Read: the scheduler tick for a process's
	// CPU clock (processTick), 10 ms for the ticks of /proc/<pid>/stat.
	Resolution int64
	// NoBroker is true when the link has no broker (sockets, in-process
	// queues: a transport not declaring driver.Capabilities.Broker): the
	// figure is then the rest of this process, InProcess, and is named so
	// (RestOfProcessLabel), not a broker's.
	NoBroker bool
}

// tickNs is the step of the process times read from /proc (USER_HZ 100).
const tickNs = 10_000_000

// InProcessWhat says what the broker CPU of an in-process broker covers.
const InProcessWhat = "this process less the sender and receiver threads: the broker in this process with the client libraries' own goroutines"

// RestOfProcessWhat says what the figure in the broker's place covers on
// a link without a broker.
const RestOfProcessWhat = "no broker: this process less the sender and receiver threads, the client libraries' own goroutines and the Go runtime"

// RestOfProcessLabel names that figure on the console, in the figures and
// in the summary's Note, in place of "broker".
const RestOfProcessLabel = "rest of this process"

// NoBrokerCPU is the source of the figure in the broker's place on a link
// without a broker: this process less the measuring threads.
func NoBrokerCPU() CPUSource {
	return CPUSource{What: RestOfProcessWhat, Read: processCPU, Resolution: processTick(), InProcess: true, NoBroker: true}
}

// LinkCPU returns the source of the broker CPU figure of links: the
// broker's (BrokerCPU) when its transport declares a broker
// (driver.Capabilities.Broker), else the rest of this process
// (NoBrokerCPU).
func LinkCPU(links load.Links) CPUSource {
	if links.Transport != nil && !driver.IsBroker(links.Transport) {
		return NoBrokerCPU()
	}
	return BrokerCPU(links.URL)
}

// BrokerCPU returns the CPU time source of the broker at brokerURL when
// a process of this host listens at its port; of this process less the
// measuring threads when it listens here (an embedded broker) or there is
// no port (an in-process transport); not available for another host's.
func BrokerCPU(brokerURL string) CPUSource {
	self := CPUSource{What: InProcessWhat, Read: processCPU, Resolution: processTick(), InProcess: true}
	u, err := url.Parse(brokerURL)
	if err != nil || u.Port() == "" {
		return self
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		// Another host's process: its CPU time cannot be read from here.
		return CPUSource{What: "broker at " + u.Host + " (another host)", Read: func() int64 { return -1 }, Resolution: 1}
	}
	port, _ := strconv.Atoi(u.Port())
	conns, err := psnet.Connections("tcp")
	if err != nil {
		return self
	}
	for _, c := range conns {
		if c.Status == "LISTEN" && int(c.Laddr.Port) == port && c.Pid > 0 {
			p, err := process.NewProcess(c.Pid)
			if err != nil || c.Pid == int32(os.Getpid()) {
				return self
			}
			what := "broker process " + strconv.Itoa(int(c.Pid))
			if read := pidCPU(int(c.Pid)); read != nil {
				return CPUSource{What: what, Read: read, Resolution: processTick()}
			}
			return CPUSource{What: what, Resolution: tickNs, Read: func() int64 {
				t, err := p.Times()
				if err != nil {
					return -1
				}
				return int64((t.User + t.System) * 1e9)
			}}
		}
	}
	return self
}
