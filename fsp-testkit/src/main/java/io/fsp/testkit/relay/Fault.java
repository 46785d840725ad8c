package io.fsp.testkit.relay;

import java.util.Locale;

/** One way a relay misbehaves towards clients (connections without a trusted server certificate). */
public sealed interface Fault {
    /** Serves block {@code seq} with one bit flipped (every time it is fetched). */
    record FlipBit(long seq) implements Fault {
    }

    /**
     * Serves block {@code seq} with one bit flipped the first time it is fetched only: damage on the way to
     * the client, while the relay's stored copy stays good.
     */
    record FlipBitOnce(long seq, java.util.concurrent.atomic.AtomicBoolean spent) implements Fault {
        public FlipBitOnce(long seq) {
            this(seq, new java.util.concurrent.atomic.AtomicBoolean());
        }
    }

    /**
     * Serves every block whose seq is a multiple of {@code every} with one bit flipped the first time it is
     * fetched in each transfer: damage on the way, spread over a transfer, for measuring recovery.
     */
    record FlipBitOnceEvery(long every, java.util.Set<String> spent) implements Fault {
        public FlipBitOnceEvery(long every) {
            this(every, java.util.concurrent.ConcurrentHashMap.newKeySet());
        }

        public FlipBitOnceEvery {
            if (every < 1) {
                throw new IllegalArgumentException("every: " + every + " (expected: >= 1)");
            }
        }
    }

    /**
     * Serves block {@code seq} with one payload bit flipped and its wire checksum recomputed: a tampering
     * relay that only the end-to-end checks (AES-GCM tag, plaintext digest) can catch.
     */
    record Tamper(long seq) implements Fault {
    }

    /** Closes each client connection after sending {@code bytes} bytes of frames, mid-frame if so. */
    record CloseAfter(long bytes) implements Fault {
        public CloseAfter {
            if (bytes < 0) {
                throw new IllegalArgumentException("close-after: " + bytes + " (expected: >= 0)");
            }
        }
    }

    /** Accepts client connections and TLS, then never answers anything. */
    record Stall() implements Fault {
    }

    /** Sends to each client at most {@code bytesPerSecond}. */
    record Throttle(long bytesPerSecond) implements Fault {
        public Throttle {
            if (bytesPerSecond < 1) {
                throw new IllegalArgumentException("throttle: " + bytesPerSecond + " (expected: >= 1 byte/s)");
            }
        }
    }

    /** Sends block {@code seq} twice in answer to one request. */
    record Duplicate(long seq) implements Fault {
    }

    /** Answers a request for block {@code seq} with the bytes of another block (another transfer's if any). */
    record ForeignBlock(long seq) implements Fault {
    }

    /**
     * Parses the command-line form: {@code flip-bit:SEQ}, {@code flip-bit-once:SEQ}, {@code flip-bit-once-every:N},
     * {@code tamper:SEQ}, {@code close-after:BYTES}, {@code stall},
     * {@code throttle:BYTES_PER_SECOND}, {@code duplicate:SEQ}, {@code foreign-block:SEQ}.
     */
    static Fault parse(String spec) {
        String s = spec.trim().toLowerCase(Locale.ROOT);
        int colon = s.indexOf(':');
        String name = colon < 0 ? s : s.substring(0, colon);
        String arg = colon < 0 ? null : s.substring(colon + 1);
        try {
            return switch (name) {
                case "flip-bit" -> new FlipBit(number(arg));
                case "flip-bit-once" -> new FlipBitOnce(number(arg));
                case "flip-bit-once-every" -> new FlipBitOnceEvery(number(arg));
                case "tamper" -> new Tamper(number(arg));
                case "close-after" -> new CloseAfter(number(arg));
                case "stall" -> new Stall();
                case "throttle" -> new Throttle(number(arg));
                case "duplicate" -> new Duplicate(number(arg));
                case "foreign-block" -> new ForeignBlock(number(arg));
                default -> throw new IllegalArgumentException("unknown fault");
            };
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + spec + "': " + e.getMessage() + " (expected: flip-bit:SEQ, flip-bit-once:SEQ, flip-bit-once-every:N,"
                    + " tamper:SEQ, close-after:BYTES, stall, throttle:BYTES_PER_SECOND, duplicate:SEQ or foreign-block:SEQ)");
        }
    }

    private static long number(String arg) {
        if (arg == null) {
            throw new IllegalArgumentException("missing number");
        }
        long n = Long.parseLong(arg);
        if (n < 0) {
            throw new IllegalArgumentException("negative number");
        }
        return n;
    }
}
