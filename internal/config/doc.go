// Package config merges a command's settings from three sources with
// koanf (github.com/knadh/koanf/v2), the later winning: a configuration
// file (YAML, or TOML by its .toml extension), MQ_* environment variables,
// then the flags given on the command line. So `--rate 500` beats
// MQ_RATE=200, which beats `rate: 100` in the file.
//
// Keys are the flag names (topic-prefix, proc-delay, …). A file may write
// them with "_" instead of "-", at its top level or in a section named
// after the role (pub:, sub:, req:, qry:), whose values win over the top
// level's. An environment variable is MQ_ and the key in upper case with
// "_" for "-": MQ_TOPIC_PREFIX. A key the command does not know is an
// error naming the file (or variable) and the keys it knows, so that a
// typing mistake is not silently ignored; so is a value of the wrong type,
// named with its source.
package config
