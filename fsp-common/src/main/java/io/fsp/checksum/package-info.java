/**
 * Checksums and digests: the per-block wire checksum of paper 004 §3.4 (Adler-32, CRC32, MD5, SHA-1, plus
 * CRC32C, SHA-256 and BLAKE3) and the plaintext digests used for end-to-end verification. Every module hashes
 * through {@link io.fsp.checksum.Hasher}, which reads Netty buffers, NIO buffers and arrays without moving them.
 */
package io.fsp.checksum;
