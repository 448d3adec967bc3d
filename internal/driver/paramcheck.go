package driver

// ParamChecker is implemented by transports that can check their settings
// (Options.Params, Topic) without connecting: the run command calls it for
// each selected sub-experiment before the experiment directory exists, so
// that a bad flag value costs nothing. The error names the flag.
type ParamChecker interface {
	CheckParams(opts Options) error
}

// FanOutChecker is implemented by transports on which some settings cannot
// give every one of several subscribers of a topic each message (run load
// with more subscribers than topics). The error says which setting to add.
type FanOutChecker interface {
	CheckFanOut(subscribers, topics int, params map[string]string) error
}
