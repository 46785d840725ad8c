/**
 * Runs thousands of {@link io.fsp.meridian.MeridianNode}s in one JVM over a latency matrix with a
 * virtual clock, and scores their answers against brute-force ground truth.
 */
package io.fsp.testkit.meridian.sim;
