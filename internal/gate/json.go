package gate

import (
	"encoding/json"
	"math"
)

// jsonFloat encodes NaN and ±Inf, which JSON cannot represent, as null.
type jsonFloat float64

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	x := float64(f)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(x)
}

func (f *jsonFloat) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = jsonFloat(math.NaN())
		return nil
	}
	var x float64
	err := json.Unmarshal(b, &x)
	*f = jsonFloat(x)
	return err
}

type checkJSON struct {
	SubExperiment string     `json:"sub_experiment"`
	Payload       int        `json:"payload"`
	Metric        Metric     `json:"metric"`
	Reference     jsonFloat  `json:"reference"`
	Threshold     jsonFloat  `json:"threshold"`
	Limit         jsonFloat  `json:"limit"`
	Value         jsonFloat  `json:"value"`
	Difference    jsonFloat  `json:"difference"`
	Percent       jsonFloat  `json:"percent"`
	Margin        jsonFloat  `json:"margin"`
	Status        Status     `json:"status"`
	Message       string     `json:"message"`
	Stats         *statsJSON `json:"stats,omitempty"`
}

type statsJSON struct {
	NReference int       `json:"n_reference"`
	NCandidate int       `json:"n_candidate"`
	Estimate   jsonFloat `json:"estimate"`
	Low        jsonFloat `json:"low"`
	High       jsonFloat `json:"high"`
	Tail       jsonFloat `json:"tail"`
	PassTail   jsonFloat `json:"pass_tail"`
	Confidence jsonFloat `json:"confidence"`
	P          jsonFloat `json:"p"`
	PAdjusted  jsonFloat `json:"p_adjusted"`
	Exact      bool      `json:"exact"`
	Dispersion jsonFloat `json:"dispersion"`
	NeedRuns   int       `json:"need_runs"`
	Gateable   bool      `json:"gateable"`
	MoreRuns   int       `json:"more_runs"`
	Method     string    `json:"method,omitempty"`
	Over       int       `json:"over,omitempty"`
	Floor      bool      `json:"floor,omitempty"`
}

// An interval end that does not exist (too few runs) is null in JSON:
// 0 for a low end, +Inf for a high end, when decoded.
func toStatsJSON(s *Stats) *statsJSON {
	if s == nil {
		return nil
	}
	return &statsJSON{s.NReference, s.NCandidate, jsonFloat(s.Estimate), jsonFloat(s.Low), jsonFloat(s.High),
		jsonFloat(s.Tail), jsonFloat(s.PassTail), jsonFloat(s.Confidence), jsonFloat(s.P), jsonFloat(s.PAdjusted), s.Exact,
		jsonFloat(s.Dispersion), s.NeedRuns, s.Gateable, s.MoreRuns, s.Method, s.Over, s.Floor}
}

func fromStatsJSON(j *statsJSON) *Stats {
	if j == nil {
		return nil
	}
	s := &Stats{j.NReference, j.NCandidate, float64(j.Estimate), float64(j.Low), float64(j.High),
		float64(j.Tail), float64(j.PassTail), float64(j.Confidence), float64(j.P), float64(j.PAdjusted), j.Exact,
		float64(j.Dispersion), j.NeedRuns, j.Gateable, j.MoreRuns, j.Method, j.Over, j.Floor}
	if math.IsNaN(s.High) {
		s.High = math.Inf(1)
	}
	return s
}

// MarshalJSON encodes c with values that do not exist (NaN) as null.
func (c Check) MarshalJSON() ([]byte, error) {
	return json.Marshal(checkJSON{
		c.SubExperiment, c.Payload, c.Metric,
		jsonFloat(c.Reference), jsonFloat(c.Threshold), jsonFloat(c.Limit), jsonFloat(c.Value),
		jsonFloat(c.Difference), jsonFloat(c.Percent), jsonFloat(c.Margin),
		c.Status, c.Message, toStatsJSON(c.Stats),
	})
}

// UnmarshalJSON decodes what MarshalJSON encodes, null as NaN.
func (c *Check) UnmarshalJSON(b []byte) error {
	var j checkJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*c = Check{
		j.SubExperiment, j.Payload, j.Metric,
		float64(j.Reference), float64(j.Threshold), float64(j.Limit), float64(j.Value),
		float64(j.Difference), float64(j.Percent), float64(j.Margin),
		j.Status, j.Message, fromStatsJSON(j.Stats),
	}
	return nil
}
