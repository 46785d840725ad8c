package io.fsp.block;

import java.nio.charset.StandardCharsets;
import java.util.Random;

/** Deterministic test payloads: random (incompressible) and text-like (compressible, like logs or CSV). */
public final class TestData {
    private static final String[] WORDS = {"transfer", "block", "relay", "offset", "checksum", "the", "of", "and",
        "2026-11-22T00:00:00Z", "INFO", "WARN", "bytes", "42", "3.14159", "server", "client", "\n", ",", " ", " "};

    private TestData() {
    }

    public static byte[] random(int length, long seed) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }

    public static byte[] text(int length, long seed) {
        Random r = new Random(seed);
        StringBuilder sb = new StringBuilder(length + 32);
        while (sb.length() < length) {
            sb.append(WORDS[r.nextInt(WORDS.length)]).append(' ');
        }
        byte[] all = sb.toString().getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[length];
        System.arraycopy(all, 0, out, 0, length);
        return out;
    }
}
