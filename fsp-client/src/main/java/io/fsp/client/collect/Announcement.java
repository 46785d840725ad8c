package io.fsp.client.collect;

import io.fsp.checksum.Digest;
import io.fsp.extension.Announcement.Placement;
import io.fsp.extension.ExtensionCodec;
import java.util.List;

/**
 * A block to collect, as its {@code BLK} line announced it ({@link io.fsp.extension.Announcement.Block}), with
 * the source to take it from: {@code relay:N}, {@code direct}, {@code origin}, or {@code have} for a block the
 * client said it holds from an earlier run (FHAV; no digest, null here, until the journal supplies it). A block
 * stored on several relays names them all in {@code holders}; {@code source} is the one asked now.
 */
record Announcement(long seq, String source, List<Integer> holders, int file, long offset, int length, Digest digest) {

    /** The block of a {@code BLK} line, to be fetched first from where the server placed it (the first relay). */
    static Announcement of(io.fsp.extension.Announcement.Block b) {
        List<Integer> holders = List.of();
        String source = ExtensionCodec.format(b.placement());
        if (b.placement() instanceof Placement.Relays r) {
            holders = r.holders();
            source = "relay:" + r.first();
        }
        return new Announcement(b.seq(), source, holders, b.file(), b.offset(), b.length(), b.digest());
    }

    /** The relay index of a {@code relay:N} source, or -1. */
    int relay() {
        return source.startsWith("relay:") ? Integer.parseInt(source.substring(6)) : -1;
    }

    /** The same block with the digest the journal holds for it. */
    Announcement withDigest(Digest d) {
        return new Announcement(seq, source, holders, file, offset, length, d);
    }

    /** The same block, to be fetched from holder {@code relay}. */
    Announcement at(int relay) {
        return new Announcement(seq, "relay:" + relay, holders, file, offset, length, digest);
    }
}
