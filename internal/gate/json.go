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
	SubExperiment string    `json:"sub_experiment"`
	Payload       int       `json:"payload"`
	Metric        Metric    `json:"metric"`
	Reference     jsonFloat `json:"reference"`
	Threshold     jsonFloat `json:"threshold"`
	Limit         jsonFloat `json:"limit"`
	Value         jsonFloat `json:"value"`
	Difference    jsonFloat `json:"difference"`
	Percent       jsonFloat `json:"percent"`
	Margin        jsonFloat `json:"margin"`
	Status        Status    `json:"status"`
	Message       string    `json:"message"`
}

// MarshalJSON encodes c with values that do not exist (NaN) as null.
func (c Check) MarshalJSON() ([]byte, error) {
	return json.Marshal(checkJSON{
		c.SubExperiment, c.Payload, c.Metric,
		jsonFloat(c.Reference), jsonFloat(c.Threshold), jsonFloat(c.Limit), jsonFloat(c.Value),
		jsonFloat(c.Difference), jsonFloat(c.Percent), jsonFloat(c.Margin),
		c.Status, c.Message,
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
		j.Status, j.Message,
	}
	return nil
}
