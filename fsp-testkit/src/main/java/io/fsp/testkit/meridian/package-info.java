/**
 * Meridian under test: emulated wide-area round trips between endpoints on loopback, and the simulator's latency
 * model in {@code sim}.
 */
package io.fsp.testkit.meridian;
