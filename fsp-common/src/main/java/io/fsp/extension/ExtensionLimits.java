package io.fsp.extension;

import io.fsp.block.BlockHeader;

/** The limits of the FSP extension's lines, the same at both ends (docs/protocol.md §1, "FSP extension"). */
public final class ExtensionLimits {
    /** Longest announcement, without {@code 151 }: a FILE line with the longest name, every byte percent-encoded. */
    public static final int MAX_LINE_LENGTH = 16 * 1024;
    /** Most bytes of a file or directory name (UTF-8, before percent-encoding), as in a block's descriptor. */
    public static final int MAX_NAME_BYTES = 4096;
    /** Largest block a transfer announces (the largest {@code block-size}). */
    public static final int MAX_BLOCK_LENGTH = 16 * 1024 * 1024;
    /**
     * Most files one block may span, empty ones on the way included: a block that carries small files names its
     * first file, and its bytes run on into the next ones ({@link FileSegment}).
     */
    public static final int MAX_FILES_PER_BLOCK = 1024;
    /** Largest sequence number: a transfer has at most 2^32 blocks. */
    public static final long MAX_SEQUENCE = BlockHeader.MAX_SEQUENCE;
    /** Largest relay index in RELAY and BLK lines. */
    public static final int MAX_RELAY_INDEX = 9999;
    /** Most relays one block is placed on (the largest {@code replicas}). */
    public static final int MAX_HOLDERS = 3;
    /** Most {@code key=value} options in the FSP line. */
    public static final int MAX_OPTIONS = 32;
    /** Longest option key and value. */
    public static final int MAX_OPTION_KEY = 32;
    public static final int MAX_OPTION_VALUE = 64;
    /** Longest relay host (a DNS name, or an IPv6 literal with its scope). */
    public static final int MAX_HOST_LENGTH = 255;
    /** Characters of a REFUSED or STOPPED reason (an error code's name). */
    public static final int MAX_REASON_LENGTH = 32;
    /** Characters of a REFUSED or STOPPED text (a relay's ERROR text is at most 1024). */
    public static final int MAX_REASON_TEXT = 1024;
    /**
     * Most byte ranges in one FHAV line: with 19-digit bounds a full line stays near 5 KiB, well inside the
     * server's default command line limit (8192 bytes).
     */
    public static final int MAX_RANGES_PER_LINE = 128;
    /** Most blocks one FGET names. */
    public static final int MAX_FGET_BLOCKS = 1024;
    /** Largest origin signature ({@link OriginSignature}): an RSA key of up to 8192 bits; ECDSA P-256 needs 72. */
    public static final int MAX_SIGNATURE_BYTES = 1024;
    /**
     * Longest {@code SIG} line: the word, a 19-digit count, the state, two UTC times in whole seconds and the
     * signature in base64.
     */
    public static final int MAX_SIGNATURE_LINE = 4 + 19 + 1 + 8 + 1 + 20 + 1 + 20 + 1 + (MAX_SIGNATURE_BYTES + 2) / 3 * 4;

    private ExtensionLimits() {
    }
}
