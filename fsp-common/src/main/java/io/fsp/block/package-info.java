/**
 * The FSP block: the unit a file is cut into, striped over relays and collected by the client (paper 004 §3,
 * "partitioning"). Byte layout, flags, limits and versioning are specified in docs/protocol.md §2; this
 * package holds the header records and the Netty codec that frames blocks on a stream.
 */
package io.fsp.block;
