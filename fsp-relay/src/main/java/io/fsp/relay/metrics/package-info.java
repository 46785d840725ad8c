/**
 * What a relay counts and serves to Prometheus ({@code --metrics HOST:PORT}; docs/operating.md, "Metrics"):
 * its store's holdings, the connections it serves, and the blocks and refusals of each.
 */
package io.fsp.relay.metrics;
