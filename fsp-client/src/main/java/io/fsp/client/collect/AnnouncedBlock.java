package io.fsp.client.collect;

import io.fsp.checksum.Digest;
import io.fsp.extension.Announcement;
import io.fsp.extension.Announcement.Placement;
import java.util.List;

/**
 * A block to collect, as its {@code BLK} line announced it ({@link Announcement.Block}), with the source to take it
 * from: a relay, the direct connection, the origin, or the journal for a block the client said it holds from an
 * earlier run (FHAV, announced {@code have}; no digest, null here, until the journal supplies it). A block stored on
 * several relays names them all in {@code holders}; {@code source} is the one asked now.
 */
record AnnouncedBlock(long seq, BlockSource source, List<Integer> holders, int file, long offset, int length,
                      Digest digest) {

    /** The block of a {@code BLK} line, to be fetched first from where the server placed it (the first relay). */
    static AnnouncedBlock of(Announcement.Block b) {
        List<Integer> holders = List.of();
        BlockSource source;
        if (b.placement() instanceof Placement.Relays r) {
            holders = r.holders();
            source = new BlockSource.Relay(r.first());
        } else if (b.placement() instanceof Placement.Direct) {
            source = BlockSource.DIRECT;
        } else if (b.placement() instanceof Placement.Held) {
            source = BlockSource.JOURNAL;
        } else {
            source = BlockSource.ORIGIN;
        }
        return new AnnouncedBlock(b.seq(), source, holders, b.file(), b.offset(), b.length(), b.digest());
    }

    /** The relay index of a relay source, or -1. */
    int relay() {
        return source.relay();
    }

    /** The same block with the digest the journal holds for it. */
    AnnouncedBlock withDigest(Digest d) {
        return new AnnouncedBlock(seq, source, holders, file, offset, length, d);
    }

    /** The same block, to be fetched from holder {@code relay}. */
    AnnouncedBlock at(int relay) {
        return new AnnouncedBlock(seq, new BlockSource.Relay(relay), holders, file, offset, length, digest);
    }
}
