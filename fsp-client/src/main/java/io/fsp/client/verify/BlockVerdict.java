package io.fsp.client.verify;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * The outcome for one submitted block. Only {@link Outcome#VERIFIED} means "these bytes are on disk and
 * are the bytes the server digested"; it is issued only after the block's range has been flushed.
 *
 * @param expected the digest announced by the server (empty in mode {@code off})
 * @param actual the digest computed here (empty when none was computed)
 * @param cause why the block is not verified, or empty
 */
public record BlockVerdict(BlockRef block, Outcome outcome, byte[] expected, byte[] actual, String cause) {
    private static final HexFormat HEX = HexFormat.of();

    public enum Outcome {
        /** Flushed, and the digest matches. */
        VERIFIED,
        /** The digest differs: the block must be fetched again. */
        MISMATCH,
        /** Writing, flushing or re-reading failed: the block must be fetched again (after fixing the cause). */
        FAILED,
        /** Mode {@code off}: written and flushed, not verified. */
        WRITTEN
    }

    public BlockVerdict {
        Objects.requireNonNull(block, "block");
        Objects.requireNonNull(outcome, "outcome");
        expected = expected.clone();
        actual = actual.clone();
        cause = cause == null ? "" : cause;
    }

    public boolean verified() {
        return outcome == Outcome.VERIFIED;
    }

    @Override
    public byte[] expected() {
        return expected.clone();
    }

    @Override
    public byte[] actual() {
        return actual.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BlockVerdict v && block.equals(v.block) && outcome == v.outcome
                && Arrays.equals(expected, v.expected) && Arrays.equals(actual, v.actual) && cause.equals(v.cause);
    }

    @Override
    public int hashCode() {
        return Objects.hash(block, outcome, Arrays.hashCode(expected), Arrays.hashCode(actual), cause);
    }

    @Override
    public String toString() {
        return block + " " + outcome + (cause.isEmpty() ? "" : " (" + cause + ")")
                + " expected=" + HEX.formatHex(expected) + " actual=" + HEX.formatHex(actual);
    }
}
