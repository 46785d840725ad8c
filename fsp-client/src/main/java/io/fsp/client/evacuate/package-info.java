/**
 * Evacuation (docs/protocol.md §5): having the origin stripe a data set to its relays for safekeeping, what it
 * placed and where (the sealed manifest a collector reads later), and the BagIt bag a collection writes.
 */
package io.fsp.client.evacuate;
