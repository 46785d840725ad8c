package io.fsp.relay.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpillFilesTest {
    private static final TransferId ID = TransferId.parse("0011223344556677");
    @TempDir
    Path dir;

    private SpillFiles files() throws IOException {
        return new SpillFiles(dir.resolve("store"), PooledByteBufAllocator.DEFAULT);
    }

    @Test
    void aBlockIsWrittenAsExactlyItsBytesUnderItsTransferAndReadBack() throws IOException {
        SpillFiles files = files();
        Path file = files.blockFile(ID, 42);
        assertEquals(dir.resolve("store/0011223344556677/42.blk"), file);
        CompositeByteBuf block = Unpooled.compositeBuffer(); // a block in several pieces is written whole
        block.addComponents(true, Unpooled.wrappedBuffer(new byte[] {1, 2, 3}), Unpooled.wrappedBuffer(new byte[] {4}));
        files.write(file, block, true);
        assertEquals(4, block.readableBytes(), "the caller's buffer is left as it was");
        block.release();
        assertArrayEquals(new byte[] {1, 2, 3, 4}, Files.readAllBytes(file));
        ByteBuf read = files.read(file, 4);
        assertArrayEquals(new byte[] {1, 2, 3, 4}, ByteBufUtil.getBytes(read));
        read.release();
    }

    @Test
    void aFileShorterThanItsBlockOrGoneIsAnError() throws IOException {
        SpillFiles files = files();
        Path file = files.blockFile(ID, 0);
        files.write(file, Unpooled.wrappedBuffer(new byte[3]), false);
        IOException shorter = assertThrows(IOException.class, () -> files.read(file, 4));
        assertTrue(shorter.getMessage().contains("3 bytes (expected: 4)"), shorter.getMessage());
        assertThrows(NoSuchFileException.class, () -> files.read(files.blockFile(ID, 1), 4));
    }

    @Test
    void deletingTheLastFileOfATransferDeletesItsDirectory() throws IOException {
        SpillFiles files = files();
        Path first = files.blockFile(ID, 0);
        Path second = files.blockFile(ID, 1);
        files.write(first, Unpooled.wrappedBuffer(new byte[1]), false);
        files.write(second, Unpooled.wrappedBuffer(new byte[1]), false);
        SpillFiles.deleteQuietly(first);
        assertTrue(Files.isDirectory(files.transferDir(ID)), "a block is left in it");
        SpillFiles.deleteQuietly(second);
        assertFalse(Files.exists(files.transferDir(ID)));
        SpillFiles.deleteQuietly(second); // gone already: nothing to do
    }

    @Test
    void leftoversAreWhatTheStoreWroteAndNothingElse() throws IOException {
        SpillFiles files = files();
        Path transfer = files.transferDir(ID);
        Files.createDirectories(transfer);
        Files.write(transfer.resolve("7.blk"), new byte[1]);
        Files.write(transfer.resolve(RetainedTransfer.FILE_NAME), new byte[1]);
        Files.write(transfer.resolve("." + RetainedTransfer.FILE_NAME + "123.tmp"), new byte[1]);
        Files.createDirectories(files.transferDir(TransferId.parse("00000000000000ff")));
        Files.createDirectories(dir.resolve("store/not-a-transfer"));
        assertEquals(List.of(dir.resolve("store/00000000000000ff"), transfer), files.transferDirs());

        SpillFiles.deleteLeftovers(transfer);
        assertFalse(Files.exists(transfer));

        Files.createDirectories(transfer);
        Files.write(transfer.resolve("notes.txt"), new byte[1]);
        Files.write(transfer.resolve("8.blk"), new byte[1]);
        SpillFiles.deleteLeftovers(transfer);
        try (Stream<Path> left = Files.list(transfer)) {
            assertEquals(List.of(transfer.resolve("notes.txt")), left.toList(),
                    "a file the store never writes stays, and so does its directory");
        }
    }

    @Test
    void onlyDigitsBeforeDotBlkNameABlock() {
        assertEquals("12", SpillFiles.blockSeq("12.blk"));
        assertNull(SpillFiles.blockSeq("12.blk.tmp"));
        assertNull(SpillFiles.blockSeq("-1.blk"));
        assertNull(SpillFiles.blockSeq(RetainedTransfer.FILE_NAME));
        assertTrue(SpillFiles.isOwnFile(RetainedTransfer.FILE_NAME));
        assertFalse(SpillFiles.isOwnFile("README"));
    }
}
