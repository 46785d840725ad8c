/**
 * End-to-end verification of received blocks: FIVER-overlapped hashing of the very buffers being
 * written, with every block flushed to disk before its verdict (papers 000 Algorithm 2 and 002 §3
 * Observation 2), and RIVA re-reads from disk around the page cache (paper 001 §4).
 */
package io.fsp.client.verify;
