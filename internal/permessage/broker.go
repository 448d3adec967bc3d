package permessage

import (
	"net"
	"net/url"
	"os"
	"strconv"

	psnet "github.com/shirou/gopsutil/v4/net"
	"github.com/shirou/gopsutil/v4/process"
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
}

// tickNs is the step of the process times read from /proc (USER_HZ 100).
const tickNs = 10_000_000

// InProcessWhat says what the broker CPU of an in-process broker covers.
const InProcessWhat = "this process less the sender and receiver threads: the broker in this process with the client libraries' own goroutines"

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
