/**
 * The per-block stages of paper 004 §3.3–3.5, each usable on its own: {@link io.fsp.block.stage.Digester}
 * (plaintext digest for end-to-end verification), {@link io.fsp.block.stage.Compressor} (zstd, skipped when
 * it does not shrink), {@link io.fsp.block.stage.Encryptor} (AES-GCM) and
 * {@link io.fsp.block.stage.WireChecksum}; {@link io.fsp.block.stage.BlockPipeline} composes them in the
 * order of docs/protocol.md §2.5.
 */
package io.fsp.block.stage;
