package io.fsp.relay.store;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens again, at start, the retained transfers an earlier run left ({@link RetainedTransfers#restore}), finished:
 * nobody pushes into them after a restart (the connection that opened them is gone), so each keeps what it holds.
 * They must fit this run's limits, which may be lower than the last run's: in order of expiry, the latest first, each
 * is kept if what it holds fits within the quota, its server's share and its server's retained space beside those
 * kept before it, and deleted otherwise (one log line each). So the transfers that would expire soonest go first.
 */
final class Restore {
    private static final Logger log = LoggerFactory.getLogger(BlockStore.class);

    private Restore() {
    }

    /** Hands each transfer kept to {@code reopen}, which takes its reservation before the next is weighed. */
    static void run(RetainedTransfers retained, SpillFiles files, Admission admission, StoreConfig config, Instant now,
                    Consumer<Transfer> reopen) throws IOException {
        List<RetainedTransfers.Restored> found = new ArrayList<>();
        retained.restore(now, found::add);
        found.sort(Comparator.comparing((RetainedTransfers.Restored r) -> r.transfer().expiresAt()).reversed()
                .thenComparing(r -> r.transfer().id().toString()));
        for (RetainedTransfers.Restored restored : found) {
            RetainedTransfer r = restored.transfer();
            if (admission.admitsRestored(r.owner(), restored.bytes())) {
                Transfer t = transfer(restored, now);
                reopen.accept(t);
                log.info("restored retained transfer {}: {} blocks, {} bytes, expires {}, {} bytes reserved", r.id(),
                        t.blocks.size(), t.bytes, r.expiresAt(), t.reservation);
            } else {
                log.warn("deleting retained transfer {} of server {} left by an earlier run: its {} bytes (expiring {})"
                        + " do not fit beside the {} bytes restored before it (--quota {}, --server-quota {},"
                        + " --server-retained-space {}; transfers expiring later are kept first)", r.id(), r.owner(),
                        restored.bytes(), r.expiresAt(), admission.total(), config.quotaBytes(),
                        config.serverQuotaBytes(), config.serverRetainedBytes());
                retained.forget(r.id()); // its metadata first: a crash meanwhile leaves leftovers, not a transfer
                SpillFiles.deleteLeftovers(files.transferDir(r.id()));
            }
        }
    }

    /** The transfer as restored: finished, holding its blocks' files, its reservation what it holds. */
    private static Transfer transfer(RetainedTransfers.Restored restored, Instant now) {
        RetainedTransfer r = restored.transfer();
        Transfer t = new Transfer(r.id(), r.key(), r.expiresAt(), r.space(), r.reservation(), r.owner(), true, now);
        t.kept.complete(null); // its metadata is on disk: that is where it comes from
        for (RetainedTransfers.Block b : restored.blocks()) {
            t.blocks.put(b.seq(), new Transfer.Held(null, b.file(), b.size()));
            t.bytes += b.size();
            t.held += b.size();
        }
        t.pushed = t.held;
        t.finished = true;
        t.reservation = t.held;
        return t;
    }
}
