package io.fsp.relay.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.tls.Certificates;
import io.fsp.tls.Fingerprint;
import io.fsp.token.TokenKey;
import io.fsp.token.TransferId;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RetainedTransfersTest {
    private static final Instant NOW = Instant.parse("2026-11-22T00:00:00Z");
    private static final Fingerprint SERVER = Certificates.selfSigned("server").fingerprint();
    @TempDir
    Path dir;

    private SpillFiles files() throws IOException {
        return new SpillFiles(dir, PooledByteBufAllocator.DEFAULT);
    }

    private static RetainedTransfer transfer(TransferId id, Instant expiresAt, long reservation) {
        return new RetainedTransfer(id, TokenKey.random(), expiresAt, 100_000, reservation, SERVER);
    }

    private static List<RetainedTransfers.Restored> restore(RetainedTransfers retained) throws IOException {
        List<RetainedTransfers.Restored> found = new ArrayList<>();
        retained.restore(NOW, found::add);
        return found;
    }

    @Test
    void aKeptTransferIsRestoredWithItsSoundBlocksInOrder() throws IOException {
        SpillFiles files = files();
        RetainedTransfers retained = new RetainedTransfers(files);
        TransferId id = TransferId.random();
        RetainedTransfer kept = transfer(id, NOW.plusSeconds(60), 100_000);
        retained.keep(kept);
        byte[] second = BlockStoreTest.sealed(id, 10);
        byte[] first = BlockStoreTest.sealed(id, 2);
        Files.write(files.blockFile(id, 10), second);
        Files.write(files.blockFile(id, 2), first);

        List<RetainedTransfers.Restored> found = restore(retained);
        assertEquals(1, found.size());
        assertEquals(kept, found.get(0).transfer());
        assertEquals(List.of(new RetainedTransfers.Block(10, files.blockFile(id, 10), second.length),
                new RetainedTransfers.Block(2, files.blockFile(id, 2), first.length)), found.get(0).blocks(),
                "in the order of their file names");
        assertEquals(first.length + second.length, found.get(0).bytes());
    }

    @Test
    void whatCannotBeServedIsDeletedAndWhatTheStoreNeverWroteIsLeftAlone() throws IOException {
        SpillFiles files = files();
        RetainedTransfers retained = new RetainedTransfers(files);
        TransferId id = TransferId.random();
        byte[] sound = BlockStoreTest.sealed(id, 0);
        retained.keep(transfer(id, NOW.plusSeconds(60), 2L * sound.length));
        Files.write(files.blockFile(id, 0), sound);
        Files.write(files.blockFile(id, 1), BlockStoreTest.sealed(id, 7)); // its header names block 7
        Files.write(files.blockFile(id, 2), new byte[10]); // no block
        Files.write(files.blockFile(id, 3), BlockStoreTest.sealed(id, 3)); // sound, but beyond the reservation
        Files.write(files.blockFile(id, 4), BlockStoreTest.sealed(id, 4));
        Path temporary = files.transferDir(id).resolve("." + RetainedTransfer.FILE_NAME + "1.tmp");
        Files.write(temporary, new byte[1]);
        Path foreign = files.transferDir(id).resolve("notes.txt");
        Files.writeString(foreign, "not ours");

        List<RetainedTransfers.Restored> found = restore(retained);
        assertEquals(1, found.size());
        assertEquals(List.of(0L, 3L), found.get(0).blocks().stream().map(RetainedTransfers.Block::seq).toList(),
                "the sound blocks that fit its reservation");
        assertFalse(Files.exists(files.blockFile(id, 1)));
        assertFalse(Files.exists(files.blockFile(id, 2)));
        assertFalse(Files.exists(files.blockFile(id, 4)));
        assertFalse(Files.exists(temporary));
        assertTrue(Files.exists(foreign));
    }

    @Test
    void transfersThatWereNotRetainedExpiredOrHoldNothingAreDeleted() throws IOException {
        SpillFiles files = files();
        RetainedTransfers retained = new RetainedTransfers(files);
        TransferId plain = TransferId.random();
        files.write(files.blockFile(plain, 0), Unpooled.wrappedBuffer(BlockStoreTest.sealed(plain, 0)), false);
        TransferId expired = TransferId.random();
        retained.keep(transfer(expired, NOW, 100_000));
        Files.write(files.blockFile(expired, 0), BlockStoreTest.sealed(expired, 0));
        TransferId empty = TransferId.random();
        retained.keep(transfer(empty, NOW.plusSeconds(60), 100_000));
        TransferId elsewhere = TransferId.random(); // its metadata names another transfer
        transfer(TransferId.random(), NOW.plusSeconds(60), 100_000).write(files.transferDir(elsewhere));
        Files.write(files.blockFile(elsewhere, 0), BlockStoreTest.sealed(elsewhere, 0));

        assertEquals(List.of(), restore(retained));
        for (TransferId id : List.of(plain, expired, empty, elsewhere)) {
            assertFalse(Files.exists(files.transferDir(id)), id.toString());
        }
    }

    @Test
    void aForgottenTransferIsNotRestored() throws IOException {
        SpillFiles files = files();
        RetainedTransfers retained = new RetainedTransfers(files);
        TransferId id = TransferId.random();
        retained.keep(transfer(id, NOW.plusSeconds(60), 100_000));
        Files.write(files.blockFile(id, 0), BlockStoreTest.sealed(id, 0));
        retained.forget(id);
        assertFalse(Files.exists(files.transferDir(id).resolve(RetainedTransfer.FILE_NAME)));
        assertTrue(Files.exists(files.blockFile(id, 0)), "its blocks are the store's to delete");
        assertEquals(List.of(), restore(retained));
        assertFalse(Files.exists(files.transferDir(id)));
        retained.forget(TransferId.random()); // never kept: nothing to do
    }
}
