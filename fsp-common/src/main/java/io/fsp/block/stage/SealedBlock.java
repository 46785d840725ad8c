package io.fsp.block.stage;

import io.fsp.block.Block;
import io.fsp.checksum.Digest;

/**
 * What the sender side of a {@link BlockPipeline} produces: the block ready for the wire, and the digest of
 * its plaintext for the control channel ({@code null} when the pipeline has no digester). The caller owns
 * {@code block}: write it (the channel releases it) or release it.
 */
public record SealedBlock(Block block, Digest digest) {
}
