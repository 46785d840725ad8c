/**
 * The Prometheus scrape endpoint that the server and the relay serve with {@code --metrics HOST:PORT}. What they
 * count lives in one class per daemon ({@code io.fsp.server.metrics.ServerMetrics},
 * {@code io.fsp.relay.metrics.RelayMetrics}).
 */
package io.fsp.metrics;
