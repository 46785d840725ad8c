package io.fsp.client.write;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PositionalWriterTest {
    private static final int BLOCK = 4096;

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "direct writes: {0}")
    @ValueSource(booleans = {false, true})
    void writesTreeWithOddSizesEmptyFilesAndNonAsciiNamesByteIdentical(boolean directWrites) throws Exception {
        Map<String, byte[]> tree = new LinkedHashMap<>();
        Random random = new Random(7);
        int[] sizes = {0, 1, BLOCK - 1, BLOCK, BLOCK + 1, 3 * BLOCK + 7, 0};
        String[] names = {"empty.bin", "a/one.bin", "a/b/c/almost.bin", "exact.bin", "ü/ñ/日本語.bin", "deep/x/y/z/odd.bin", "e/also-empty"};
        for (int i = 0; i < sizes.length; i++) {
            byte[] content = new byte[sizes[i]];
            random.nextBytes(content);
            tree.put(names[i], content);
        }
        Path dest = tmp.resolve("dest");
        try (PositionalWriter writer = new PositionalWriter(dest, directWrites)) {
            writer.createDirectory("empty-dir/inner");
            List<Runnable> blocks = new ArrayList<>();
            for (Map.Entry<String, byte[]> f : tree.entrySet()) {
                writer.prepareFile(f.getKey(), f.getValue().length);
                for (int off = 0; off < f.getValue().length; off += BLOCK) {
                    int o = off;
                    int len = Math.min(BLOCK, f.getValue().length - off);
                    blocks.add(() -> {
                        try {
                            // Page-aligned direct buffers take the O_DIRECT path where the block is aligned;
                            // the odd tails go through the page cache.
                            ByteBuffer buf = ByteBuffer.allocateDirect(len + 2 * BLOCK).alignedSlice(BLOCK).limit(len).slice();
                            buf.put(f.getValue(), o, len).flip();
                            writer.write(f.getKey(), o, buf);
                        } catch (IOException e) {
                            throw new RuntimeException(e);
                        }
                    });
                }
            }
            // Blocks arrive from many relays in any order.
            Collections.shuffle(blocks, random);
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<?>> done = new ArrayList<>();
                blocks.forEach(b -> done.add(pool.submit(b)));
                for (Future<?> f : done) {
                    f.get();
                }
            } finally {
                pool.shutdown();
            }
        }
        for (Map.Entry<String, byte[]> f : tree.entrySet()) {
            assertArrayEquals(f.getValue(), Files.readAllBytes(dest.resolve(f.getKey())), f.getKey());
        }
        assertTrue(Files.isDirectory(dest.resolve("empty-dir/inner")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"../x", "a/../../x", "a/..", "/etc/passwd", "a//b", "./a", "a/./b", "a/", "a\\..\\b", "a\u0000b", ".."})
    void refusesNamesThatLeaveTheRootOrAreNotPlain(String name) throws Exception {
        Path dest = tmp.resolve("dest");
        try (PositionalWriter writer = new PositionalWriter(dest)) {
            UnsafePathException e = assertThrows(UnsafePathException.class,
                    () -> writer.write(name, 0, ByteBuffer.wrap(new byte[] {1})));
            assertTrue(e.getMessage().startsWith("path \""), e.getMessage());
        }
        try (var files = Files.walk(tmp)) {
            assertEquals(List.of(tmp, dest), files.toList(), "nothing may be created");
        }
    }

    @Test
    void refusesOverlongSegment() throws Exception {
        try (PositionalWriter writer = new PositionalWriter(tmp.resolve("dest"))) {
            String name = "a".repeat(PositionalWriter.MAX_SEGMENT_BYTES + 1);
            UnsafePathException e = assertThrows(UnsafePathException.class, () -> writer.prepareFile(name, 1));
            assertTrue(e.getMessage().contains("(expected: <= 255)"), e.getMessage());
        }
    }

    @Test
    void refusesSymbolicLinkThatPointsOutside() throws Exception {
        Path outside = Files.createDirectory(tmp.resolve("outside"));
        Path dest = Files.createDirectory(tmp.resolve("dest"));
        Files.createSymbolicLink(dest.resolve("link"), outside);
        Files.createSymbolicLink(dest.resolve("file-link"), outside.resolve("victim"));
        try (PositionalWriter writer = new PositionalWriter(dest)) {
            assertThrows(UnsafePathException.class, () -> writer.write("link/x.bin", 0, ByteBuffer.wrap(new byte[] {1})));
            assertThrows(UnsafePathException.class, () -> writer.prepareFile("file-link", 10));
        }
        try (var files = Files.list(outside)) {
            assertEquals(0, files.count(), "nothing may be written outside the root");
        }
    }

    @Test
    void prepareKeepsWrittenContentWhenResuming() throws Exception {
        Path dest = tmp.resolve("dest");
        byte[] first = {1, 2, 3, 4};
        try (PositionalWriter writer = new PositionalWriter(dest)) {
            writer.prepareFile("f", 8);
            writer.write("f", 0, ByteBuffer.wrap(first));
        }
        try (PositionalWriter writer = new PositionalWriter(dest)) {
            writer.prepareFile("f", 8);
            writer.write("f", 4, ByteBuffer.wrap(new byte[] {5, 6, 7, 8}));
        }
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, Files.readAllBytes(dest.resolve("f")));
    }

    @Test
    void prepareSetsLengthBeforeAnyBlockArrives() throws Exception {
        Path dest = tmp.resolve("dest");
        try (PositionalWriter writer = new PositionalWriter(dest)) {
            writer.prepareFile("sparse.bin", 10_000_000);
            writer.prepareFile("shrunk.bin", 100);
            writer.prepareFile("shrunk.bin", 10);
        }
        assertEquals(10_000_000, Files.size(dest.resolve("sparse.bin")));
        assertEquals(10, Files.size(dest.resolve("shrunk.bin")));
    }

    @Test
    void keepsAFewFilesOpenWhateverTheNumberOfFilesWritten() throws Exception {
        Path dest = tmp.resolve("dest");
        Map<String, byte[]> tree = new LinkedHashMap<>();
        Random random = new Random(11);
        try (PositionalWriter writer = new PositionalWriter(new PathTree(dest), false, 8)) {
            for (int i = 0; i < 200; i++) {
                String name = "d" + (i % 5) + "/f" + i;
                byte[] content = new byte[i % 7 == 0 ? 0 : 1 + random.nextInt(5000)];
                random.nextBytes(content);
                tree.put(name, content);
                writer.prepareTemporaryFile(name, content.length, false);
                if (content.length > 0) {
                    writer.write(name, 0, ByteBuffer.wrap(content));
                }
                assertTrue(writer.openFiles() <= 8, "open: " + writer.openFiles());
            }
            for (Map.Entry<String, byte[]> f : tree.entrySet()) {
                if (f.getValue().length > 0) {
                    writer.forceData(f.getKey()); // closed long ago: opened again to be flushed
                    writer.complete(f.getKey());
                }
            }
            writer.syncNames();
            assertTrue(writer.openFiles() <= 8, "open: " + writer.openFiles());
        }
        for (Map.Entry<String, byte[]> f : tree.entrySet()) {
            assertArrayEquals(f.getValue(), Files.readAllBytes(dest.resolve(f.getKey())), f.getKey());
        }
        try (var all = Files.walk(dest)) {
            assertEquals(List.of(), all.filter(p -> p.getFileName().toString().endsWith(".fsp-part")).toList());
        }
    }
}
