/**
 * Where a relay keeps blocks: in memory up to a budget, then spilled to files in the store directory, all
 * within a quota; a put that does not fit waits until confirmed, aborted or expired blocks make room, so
 * the pushing server slows down instead of the relay running out of memory (paper 004 §3: intermediate
 * nodes hold striped blocks until the client collects them). It knows nothing of the protocol: what it refuses
 * is a {@link io.fsp.relay.store.StoreException}, which the network layer says as an error code.
 */
package io.fsp.relay.store;
