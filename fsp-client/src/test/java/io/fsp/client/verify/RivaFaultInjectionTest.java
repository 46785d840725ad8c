package io.fsp.client.verify;

import com.sun.nio.file.ExtendedOpenOption;
import io.fsp.client.write.PositionalWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Extreme fault injection (paper 001 §5.1.1): one bit of every page of the file is flipped on the
 * medium right after the block is flushed, behind the page cache that still holds the right bytes.
 * FIVER, which hashes the buffers it wrote, cannot see it; RIVA, which re-reads around the cache, must
 * catch every corrupted block.
 *
 * <p>Needs root, a loop device and e2fsprogs: a real ext4 file system is mounted from an image, and the
 * image file is changed underneath it. Without them the test is skipped and says why.
 */
@Timeout(120)
class RivaFaultInjectionTest {
    private static final int PAGE = 4096;
    private static final int BLOCK = 64 * 1024;
    private static final Pattern EXTENT = Pattern.compile("^\\s*\\d+:\\s*(\\d+)\\.\\.\\s*(\\d+):\\s*(\\d+)\\.\\.\\s*(\\d+):");

    @TempDir
    Path tmp;

    @Test
    void rivaCatchesEveryCorruptedBlockThatFiverMisses() throws Exception {
        String user = run(List.of("id", "-u")).trim();
        assumeTrue(user.equals("0"), "extreme fault injection needs root to mount a loop ext4 image (uid " + user + "): skipped");
        for (String tool : List.of("mkfs.ext4", "mount", "umount", "filefrag")) {
            assumeTrue(onPath(tool), tool + " not found (install e2fsprogs/mount): extreme fault injection skipped");
        }
        Path image = tmp.resolve("ext4.img");
        Path mnt = Files.createDirectory(tmp.resolve("mnt"));
        try (FileChannel ch = FileChannel.open(image, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ch.truncate(0);
            ch.write(ByteBuffer.allocate(1), (64L << 20) - 1);
        }
        run(List.of("mkfs.ext4", "-q", "-F", "-b", "4096", image.toString()));
        Process mount = new ProcessBuilder("mount", "-o", "loop", image.toString(), mnt.toString()).redirectErrorStream(true).start();
        String mountOutput = new String(mount.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        boolean mounted = mount.waitFor(30, TimeUnit.SECONDS) && mount.exitValue() == 0;
        assumeTrue(mounted, "mount -o loop failed (no loop device in this environment?): " + mountOutput.trim() + ": skipped");
        try {
            Injected fiver = transferWithInjection(VerificationMode.FIVER, mnt, image, "fiver.bin");
            Injected riva = transferWithInjection(VerificationMode.RIVA, mnt, image, "riva.bin");

            // The injection is real: every page on disk differs, while the page cache still has the original.
            Path fiverFile = mnt.resolve("fiver.bin");
            assertArrayEquals(fiver.original, Files.readAllBytes(fiverFile), "a cached read still returns the original");
            byte[] onDisk = readDirect(fiverFile, fiver.original.length);
            assertArrayEquals(fiver.injected, onDisk, "O_DIRECT returns the injected bytes");
            int pages = (fiver.original.length + PAGE - 1) / PAGE;
            assertEquals(pages, fiver.flippedPages, "one bit flipped in every page");

            for (BlockVerdict v : fiver.verdicts) {
                assertEquals(BlockVerdict.Outcome.VERIFIED, v.outcome(), "FIVER hashes the written buffers and misses it: " + v);
            }
            for (BlockVerdict v : riva.verdicts) {
                assertEquals(BlockVerdict.Outcome.MISMATCH, v.outcome(), "RIVA must catch every corrupted block: " + v);
                assertTrue(v.cause().contains("read back from disk"), v.cause());
                byte[] injectedBlock = new byte[v.block().length()];
                System.arraycopy(riva.injected, (int) v.block().offset(), injectedBlock, 0, injectedBlock.length);
                assertArrayEquals(FiverVerifierTest.sha256(injectedBlock), v.actual(), "RIVA hashed exactly what is on disk");
            }
            assertEquals(riva.verdicts.size(), (riva.original.length + BLOCK - 1) / BLOCK);
        } finally {
            Process umount = new ProcessBuilder("umount", mnt.toString()).redirectErrorStream(true).start();
            if (!umount.waitFor(30, TimeUnit.SECONDS) || umount.exitValue() != 0) {
                new ProcessBuilder("umount", "-l", mnt.toString()).start().waitFor(30, TimeUnit.SECONDS);
            }
            Files.deleteIfExists(image);
        }
    }

    private record Injected(byte[] original, byte[] injected, int flippedPages, List<BlockVerdict> verdicts) {
    }

    /**
     * Sends the blocks one at a time; when the verifier reports the flush of a block, flips one bit in
     * each of its pages in the image file (not through the mounted file system).
     */
    private Injected transferWithInjection(VerificationMode mode, Path mnt, Path image, String name) throws Exception {
        byte[] original = new byte[16 * BLOCK + 1000];
        new Random(mode.ordinal()).nextBytes(original);
        byte[] injected = original.clone();
        int[] flipped = {0};
        BlockRef[] current = new BlockRef[1];
        List<BlockVerdict> verdicts = new ArrayList<>();
        try (PositionalWriter writer = new PositionalWriter(mnt);
             FiverVerifier verifier = new FiverVerifier(writer, VerifierConfig.defaults().withMode(mode), null, event -> {
                 if (event instanceof VerificationEvent.Flushed f && f.path().equals(name)) {
                     flipped[0] += flipEveryPage(image, mnt.resolve(name), current[0], injected);
                 }
             })) {
            writer.prepareFile(name, original.length);
            for (int off = 0; off < original.length; off += BLOCK) {
                int len = Math.min(BLOCK, original.length - off);
                byte[] plain = new byte[len];
                System.arraycopy(original, off, plain, 0, len);
                current[0] = new BlockRef(name, off, len);
                verdicts.add(verifier.submit(current[0], ByteBuffer.wrap(plain), FiverVerifierTest.sha256(plain), () -> { }).get());
            }
        }
        return new Injected(original, injected, flipped[0], verdicts);
    }

    /** Flips one bit in every page of {@code block} on the medium; mirrors the flips in {@code injected}. */
    private static int flipEveryPage(Path image, Path file, BlockRef block, byte[] injected) {
        try {
            List<long[]> extents = extents(file);
            int count = 0;
            try (FileChannel img = FileChannel.open(image, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                for (long page = block.offset() / PAGE; page * PAGE < block.end(); page++) {
                    int limit = (int) Math.min(PAGE, block.end() - page * PAGE);
                    int k = (int) ((page * 131) % limit);
                    long at = physicalPage(extents, page) * PAGE + k;
                    ByteBuffer b = ByteBuffer.allocate(1);
                    img.read(b, at);
                    byte flippedByte = (byte) (b.get(0) ^ 0x10);
                    img.write(ByteBuffer.wrap(new byte[] {flippedByte}), at);
                    injected[(int) (page * PAGE + k)] ^= 0x10;
                    count++;
                }
                img.force(true);
            }
            return count;
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException("fault injection failed", e);
        }
    }

    /** Extents of a file as {logical start, logical end, physical start} in 4096-byte blocks, from filefrag. */
    private static List<long[]> extents(Path file) throws IOException, InterruptedException {
        List<long[]> out = new ArrayList<>();
        for (String line : run(List.of("filefrag", "-v", file.toString())).split("\n")) {
            Matcher m = EXTENT.matcher(line);
            if (m.find()) {
                out.add(new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3))});
            }
        }
        return out;
    }

    private static long physicalPage(List<long[]> extents, long logical) {
        for (long[] e : extents) {
            if (logical >= e[0] && logical <= e[1]) {
                return e[2] + (logical - e[0]);
            }
        }
        throw new IllegalStateException("page " + logical + " has no extent (not flushed?)");
    }

    private static byte[] readDirect(Path file, int length) throws IOException {
        ByteBuffer buf = ByteBuffer.allocateDirect(length + 2 * PAGE).alignedSlice(PAGE);
        buf.limit((length + PAGE - 1) / PAGE * PAGE);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, ExtendedOpenOption.DIRECT)) {
            long pos = 0;
            int n;
            // The last read is short (end of file) and leaves the position unaligned: stop there.
            while (pos < length && (n = ch.read(buf, pos)) > 0) {
                pos += n;
            }
        }
        byte[] out = new byte[length];
        buf.flip().get(out);
        return out;
    }

    private static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return Files.isExecutable(Path.of("/usr/sbin", tool)) || Files.isExecutable(Path.of("/sbin", tool));
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(command);
        for (String dir : List.of("/usr/sbin", "/sbin")) {
            if (!onPathOnly(cmd.get(0)) && Files.isExecutable(Path.of(dir, cmd.get(0)))) {
                cmd.set(0, dir + "/" + cmd.get(0));
            }
        }
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + out.trim());
        }
        return out;
    }

    private static boolean onPathOnly(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }
}
