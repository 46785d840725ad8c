package io.fsp.block;

import java.util.StringJoiner;

/**
 * The 16-bit descriptor flags of a block header (docs/protocol.md §2.3). A block is exactly one of
 * {@link #DATA}, {@link #RTT_PROBE} or {@link #RTT_ACK}; the other bits qualify it. Version 1 receivers
 * reject any bit not defined here.
 */
public record BlockFlags(int bits) {
    /** The payload carries file data described by a {@link BlockDescriptor}. */
    public static final int DATA = 0x0001;
    /** The last data block of its file: the client may finish the file once it holds every block up to it. */
    public static final int END_OF_FILE = 0x0002;
    /** DRS (paper 004 §3.2): the receiver asks for an acknowledgement to measure the round-trip time. */
    public static final int RTT_PROBE = 0x0004;
    /** DRS: answers the probe with the same sequence number; sent as the next block on that connection. */
    public static final int RTT_ACK = 0x0008;
    /** DRS: the 4-byte payload of a probe or acknowledgement holds a socket buffer size in bytes. */
    public static final int BUFFER_SIZE = 0x0010;
    /** The data is one zstd frame; the descriptor gives its decompressed length. */
    public static final int COMPRESSED = 0x0020;
    /** The payload is AES-GCM ciphertext of descriptor + data, followed by the 16-byte tag. */
    public static final int ENCRYPTED = 0x0040;

    /** Every bit version 1 defines. */
    public static final int KNOWN = DATA | END_OF_FILE | RTT_PROBE | RTT_ACK | BUFFER_SIZE | COMPRESSED | ENCRYPTED;
    private static final int KINDS = DATA | RTT_PROBE | RTT_ACK;
    private static final String[] NAMES = {
        "DATA", "END_OF_FILE", "RTT_PROBE", "RTT_ACK", "BUFFER_SIZE", "COMPRESSED", "ENCRYPTED"};

    public BlockFlags {
        String problem = problem(bits);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
    }

    public static BlockFlags of(int bits) {
        return new BlockFlags(bits);
    }

    /** Why {@code bits} is not a valid version 1 combination, or {@code null} if it is. */
    public static String problem(int bits) {
        if ((bits & ~KNOWN) != 0 || bits > 0xFFFF) {
            return String.format("flags: 0x%04x has unknown bits 0x%04x (expected: only 0x%04x)", bits, bits & ~KNOWN, KNOWN);
        }
        int kind = bits & KINDS;
        if (Integer.bitCount(kind) != 1) {
            return "flags: " + describe(bits) + " (expected: exactly one of DATA, RTT_PROBE, RTT_ACK)";
        }
        if (kind == DATA && (bits & BUFFER_SIZE) != 0) {
            return "flags: " + describe(bits) + " (expected: BUFFER_SIZE only on RTT_PROBE or RTT_ACK)";
        }
        if (kind != DATA && (bits & (END_OF_FILE | COMPRESSED | ENCRYPTED)) != 0) {
            return "flags: " + describe(bits) + " (expected: END_OF_FILE, COMPRESSED, ENCRYPTED only on DATA)";
        }
        return null;
    }

    public boolean has(int flag) {
        return (bits & flag) == flag;
    }

    public boolean isData() {
        return has(DATA);
    }

    public boolean isEndOfFile() {
        return has(END_OF_FILE);
    }

    public boolean isRttProbe() {
        return has(RTT_PROBE);
    }

    public boolean isRttAck() {
        return has(RTT_ACK);
    }

    public boolean hasBufferSize() {
        return has(BUFFER_SIZE);
    }

    public boolean isCompressed() {
        return has(COMPRESSED);
    }

    public boolean isEncrypted() {
        return has(ENCRYPTED);
    }

    public BlockFlags with(int flag) {
        return new BlockFlags(bits | flag);
    }

    public BlockFlags without(int flag) {
        return new BlockFlags(bits & ~flag);
    }

    /** {@code "DATA|END_OF_FILE"}; unknown bits in hex. */
    public static String describe(int bits) {
        StringJoiner j = new StringJoiner("|");
        for (int i = 0; i < NAMES.length; i++) {
            if ((bits & (1 << i)) != 0) {
                j.add(NAMES[i]);
            }
        }
        if ((bits & ~KNOWN) != 0) {
            j.add(String.format("0x%04x", bits & ~KNOWN));
        }
        return j.length() == 0 ? "none" : j.toString();
    }

    @Override
    public String toString() {
        return describe(bits);
    }
}
