package zenohhelper

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/clockoffset"
)

// Files of the clock role and of sub --arrivals (formats §9).
const (
	ClockFile    = "clock.csv"
	ArrivalsFile = "arrivals.csv"

	ClockHeader    = "Instance,T1 [ns],T2 [ns],T3 [ns],T4 [ns]"
	ArrivalsHeader = "Publisher,Payload [Bytes],One-way [ns]"
)

// ClockEnvShift is the helper's environment variable that shifts its wall
// clock by a number of nanoseconds: a host whose clock is off, on one
// machine (tests of the clock-offset correction).
const ClockEnvShift = "MQGATE_ZENOH_CLOCK_SHIFT_NS"

// Arrival is one row of ArrivalsFile: a measured message's publisher, size
// and one-way latency (receive − send, two hosts' clocks, not clamped).
type Arrival struct {
	Publisher uint16
	Payload   int
	Ns        int64
}

// readCSV reads a helper CSV file with header want and n integer columns
// per row, calling row for each (line numbers from 2).
func readCSV(path, want string, row func(line int, v []int64) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.ReuseRecord = true
	n := strings.Count(want, ",") + 1
	r.FieldsPerRecord = n
	head, err := r.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%s: empty, expected the header %q", path, want)
		}
		return fmt.Errorf("%s:1: %v", path, err)
	}
	if got := strings.Join(head, ","); got != want {
		return fmt.Errorf("%s:1: header %q, expected %q", path, got, want)
	}
	v := make([]int64, n)
	for line := 2; ; line++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %v", path, line, err)
		}
		for i, s := range rec {
			if v[i], err = strconv.ParseInt(s, 10, 64); err != nil {
				return fmt.Errorf("%s:%d: column %d (%s): %q is not an integer", path, line, i+1, strings.Split(want, ",")[i], s)
			}
		}
		if err := row(line, v); err != nil {
			return fmt.Errorf("%s:%d: %v", path, line, err)
		}
	}
}

// ReadClock reads a clock role's ClockFile: the exchanges with each
// publisher host, by instance, in the order made.
func ReadClock(path string) (map[uint8][]clockoffset.Exchange, error) {
	out := map[uint8][]clockoffset.Exchange{}
	err := readCSV(path, ClockHeader, func(_ int, v []int64) error {
		if v[0] < 0 || v[0] > 255 {
			return fmt.Errorf("instance %d, expected 0 to 255", v[0])
		}
		out[uint8(v[0])] = append(out[uint8(v[0])], clockoffset.Exchange{T1: v[1], T2: v[2], T3: v[3], T4: v[4]})
		return nil
	})
	return out, err
}

// ReadArrivals reads a sub's ArrivalsFile, in file order (row for row with
// its measurements.csv).
func ReadArrivals(path string) ([]Arrival, error) {
	var out []Arrival
	err := readCSV(path, ArrivalsHeader, func(_ int, v []int64) error {
		if v[0] < 0 || v[0] > 65535 {
			return fmt.Errorf("publisher %d, expected 0 to 65535", v[0])
		}
		if v[1] <= 0 {
			return fmt.Errorf("payload %d, expected a size in bytes", v[1])
		}
		out = append(out, Arrival{Publisher: uint16(v[0]), Payload: int(v[1]), Ns: v[2]})
		return nil
	})
	return out, err
}
