/**
 * The client side of a striped transfer: collecting blocks and placing them, each at its offset, into
 * the destination tree (architecture §3, steps 7–8).
 */
package io.fsp.client.collect;
