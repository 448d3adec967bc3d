// Package unpaired holds a test of two independent samples that stays
// valid where the shift rule of package dist is not: Welch's t-test of the
// log values (WelchWorse), which keeps its level, nearly, for log-normal
// runs whatever the two sides' spreads (a quiet baseline against a noisy
// candidate). Package gate rejects "no regression" only when both it and
// Mann–Whitney do, so that a check keeps its level when either test's
// assumption holds (exchangeable runs, or log-normal ones).
//
// Rank tests built for unequal spreads do not rescue few runs: with 20
// runs at CV 5 % against 5 at CV 30 %, the 5 all land above the tight
// reference 1 time in 32 with no change, and Brunner–Munzel's test (t
// approximation or studentised permutation) rejects about 3 % of the time
// at 1 % (Mann–Whitney about 4 %). Results taken apart are unpaired: drift
// between them is not controlled, which package trend can show.
package unpaired
