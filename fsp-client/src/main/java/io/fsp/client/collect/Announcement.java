package io.fsp.client.collect;

import io.fsp.checksum.Digest;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One {@code 151 BLK} line: block {@code seq} of file {@code file}, {@code length} bytes at {@code offset},
 * placed at {@code source} ({@code relay:N}, {@code direct} or {@code origin}), whose plaintext has
 * {@code digest}. A block stored on several relays ({@code relay:2,0}) names them all in {@code holders}, the
 * one to ask first in {@code source}. A block the client said it holds from an earlier run (FHAV) is
 * announced {@code have}, with {@code -} for its digest (null here).
 */
record Announcement(long seq, String source, List<Integer> holders, int file, long offset, int length, Digest digest) {
    static final int MAX_BLOCK = 16 * 1024 * 1024;
    private static final Pattern RELAYS = Pattern.compile("relay:\\d{1,4}(,\\d{1,4}){0,2}");

    /** Parses the words after {@code BLK}; throws {@link IllegalArgumentException} naming what is wrong. */
    static Announcement parse(String[] w) {
        if (w.length != 7) {
            throw new IllegalArgumentException("BLK: " + (w.length - 1) + " fields (expected: 6)");
        }
        long seq = Long.parseLong(w[1]);
        String source = w[2];
        List<Integer> holders = List.of();
        if (RELAYS.matcher(source).matches()) {
            holders = Arrays.stream(source.substring(6).split(",")).map(Integer::valueOf).toList();
            if (Set.copyOf(holders).size() != holders.size()) {
                throw new IllegalArgumentException("BLK source: " + source + " (expected: distinct relays)");
            }
            source = "relay:" + holders.get(0);
        } else if (!source.equals("direct") && !source.equals("origin") && !source.equals("have")) {
            throw new IllegalArgumentException("BLK source: " + source + " (expected: relay:N[,N[,N]], direct, origin or have)");
        }
        int file = Integer.parseInt(w[3]);
        long offset = Long.parseLong(w[4]);
        int length = Integer.parseInt(w[5]);
        if (seq < 0 || file < 0 || offset < 0 || length < 1 || length > MAX_BLOCK) {
            throw new IllegalArgumentException("BLK " + seq + ": out of range (expected: seq, file, offset >= 0,"
                    + " length 1.." + MAX_BLOCK + ")");
        }
        // "have": not sent, the client holds it from an earlier run; the server did not read it, so no digest
        Digest digest = source.equals("have") && w[6].equals("-") ? null : Digest.parse(w[6]);
        return new Announcement(seq, source, holders, file, offset, length, digest);
    }

    /** The relay index of a {@code relay:N} source, or -1. */
    int relay() {
        return source.startsWith("relay:") ? Integer.parseInt(source.substring(6)) : -1;
    }

    /** The same block, to be fetched from holder {@code relay}. */
    Announcement withDigest(Digest d) {
        return new Announcement(seq, source, holders, file, offset, length, d);
    }

    Announcement at(int relay) {
        return new Announcement(seq, "relay:" + relay, holders, file, offset, length, digest);
    }
}
