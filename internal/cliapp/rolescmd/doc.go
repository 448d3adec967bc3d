// Package rolescmd is the command line of the distributed roles (run pub,
// sub, req, qry): their flags, help text, run's own role flags, and the
// action that resolves a roles.Settings. The work is roles.Run's.
package rolescmd
