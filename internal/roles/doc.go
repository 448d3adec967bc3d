// Package roles runs the distributed roles of a measurement: `run pub`
// (open-loop publishers), `run sub` (one-way latency, corrected by each
// publisher host's clock offset), `run req` (open-loop queries: time to
// first and last reply) and `run qry` (queryables), each a process of its
// own on any host, over NATS, MQTT 5, AMQP 0-9-1 (RabbitMQ) or Zenoh
// (through mqgate-zenoh). Every role of a run writes into one experiment
// folder, --out-dir/<run-id>, which the pipeline and the gates read:
// raw files, sub-experiments merged into meta.json under a lock, and a
// report per role (formats §9, "Role reports"). Settings come from flags
// (internal/cliapp/rolescmd), then MQ_* variables, then a
// YAML or TOML file (internal/config).
package roles
