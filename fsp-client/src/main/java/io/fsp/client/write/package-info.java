/**
 * Placing received blocks into the destination tree: each at its offset, under a temporary name until its
 * file is whole, with names from the network checked before any file is touched (docs/verification.md).
 */
package io.fsp.client.write;
