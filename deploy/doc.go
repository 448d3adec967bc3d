// Package deploy holds no code: its tests build the container image
// (deploy/Dockerfile, `make image`) and run it, alone and as the Compose
// topology of deploy/compose, the way docs/deploy.md tells users to. They
// need a reachable Docker daemon (and docker-compose for the topology):
// without one they skip, naming it, and fail under CI=true
// (internal/testenv). The Kubernetes manifests of deploy/kubernetes need
// neither Docker nor a cluster: their tests decode them strictly with the
// Kubernetes API types and have run, nats-server and the Zenoh helper
// parse every command line and MQ_* variable in them. The Makefile's
// tests read what its targets run (make -n), among them that make test runs
// every statistical simulation and input sweep (TestSim…, TestSweep…, built
// only without the race detector) exactly once, in its go test without
// -race.
package deploy
