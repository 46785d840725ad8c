/**
 * What the server counts (connections, commands, bytes, blocks), in one registry served by the {@code metrics}
 * setting (docs/operating.md, "Metrics").
 */
package io.fsp.server.metrics;
