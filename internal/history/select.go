package history

import (
	"slices"

	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/requirements"
)

// selectSubs keeps, in exps and *reqs, only the sub-experiments subs
// (everything when subs is empty). A name no experiment holds is a usage
// error naming those they hold.
func selectSubs(exps []*experiment.Experiment, subs []string, reqs *[]requirements.KeyedRow) ([]*experiment.Experiment, error) {
	if len(subs) == 0 {
		return exps, nil
	}
	selected, err := experiment.Select(exps, subs)
	if err != nil {
		return nil, exit.Usagef("--subexperiments: %v", err)
	}
	*reqs = selectedRows(*reqs, subs)
	return selected, nil
}

// selectedRows returns the requirement rows of the sub-experiments subs
// (every row when subs is empty).
func selectedRows(rows []requirements.KeyedRow, subs []string) []requirements.KeyedRow {
	if len(subs) == 0 || rows == nil {
		return rows
	}
	return slices.DeleteFunc(slices.Clone(rows), func(r requirements.KeyedRow) bool { return !slices.Contains(subs, r.Type) })
}
