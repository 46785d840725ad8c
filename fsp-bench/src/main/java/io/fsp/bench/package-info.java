/**
 * {@code fsp-bench}: the benchmarks (FIVER cost, striping, recovery) and the Meridian simulator, which the
 * {@code bin/bench-*} scripts run; kept out of the {@code fsp} command a user runs.
 */
package io.fsp.bench;
