package io.fsp.server.ftp.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelProgressivePromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.stream.ChunkedNioFile;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.util.ReferenceCountUtil;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** RETR's bytes are counted as the write reports its progress, each byte once. */
class FileSenderProgressTest {
    @TempDir
    Path dir;

    @Test
    void countsEachByteOnceAsTheChunksAreWritten() throws Exception {
        int length = 5 * FileSender.CHUNK_SIZE + 1234;
        Path f = dir.resolve("f.bin");
        Files.write(f, new byte[length]);
        List<Long> told = new ArrayList<>();
        EmbeddedChannel ch = new EmbeddedChannel(new ChunkedWriteHandler());
        try (FileChannel file = FileChannel.open(f)) {
            ChannelFuture w = ch.writeAndFlush(new ChunkedNioFile(file, 0, length, FileSender.CHUNK_SIZE),
                    ch.newProgressivePromise()).addListener(new FileSender.Progress(told::add, length));
            ch.runPendingTasks();
            assertTrue(w.isSuccess(), String.valueOf(w.cause()));
        } finally {
            for (Object chunk; (chunk = ch.readOutbound()) != null; ) {
                ReferenceCountUtil.release(chunk);
            }
            ch.finishAndReleaseAll();
        }
        assertEquals(length, told.stream().mapToLong(Long::longValue).sum(), told.toString());
    }

    @Test
    void progressIsCumulativeAndTheRestCountsOnSuccess() {
        EmbeddedChannel ch = new EmbeddedChannel();
        List<Long> told = new ArrayList<>();
        ChannelProgressivePromise w = ch.newProgressivePromise();
        w.addListener(new FileSender.Progress(told::add, 1000));
        w.tryProgress(100, 1000);
        w.tryProgress(300, 1000);
        w.tryProgress(300, 1000);
        assertEquals(List.of(100L, 200L), told, "only what is new");
        w.setSuccess();
        assertEquals(List.of(100L, 200L, 700L), told, "the rest, once the write succeeded");
        ch.finishAndReleaseAll();
    }

    @Test
    void aFailedWriteCountsWhatWentOnly() {
        EmbeddedChannel ch = new EmbeddedChannel();
        List<Long> told = new ArrayList<>();
        ChannelProgressivePromise w = ch.newProgressivePromise();
        w.addListener(new FileSender.Progress(told::add, 1000));
        w.tryProgress(400, 1000);
        w.setFailure(new java.io.IOException("connection reset"));
        assertEquals(List.of(400L), told);
        ch.finishAndReleaseAll();
    }
}
